//! Generates a deterministic log-like text file of a given size, for the
//! benchmarks (`benches/compare.sh`): timestamped lines of varied length
//! with a few recurring words, occasional long lines, ASCII only.
//!
//! `cargo run --release --example genlog -- OUT SIZE_BYTES [SEED [START]]`
//!
//! START (`YYYY-MM-DD`, default 2026-11-20) is the day of the first stamp;
//! the stamps go on at 50 lines a second, never back.

use std::io::Write;

/// The day number of 1_700_000_000 s, the first stamp's instant (its time
/// of day is kept, its day is START's).
const T0_DAY: u64 = 1_700_000_000 / 86400;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: genlog OUT SIZE_BYTES [SEED [START]]");
        std::process::exit(2);
    }
    let size: u64 = args[2].parse().expect("size in bytes");
    let mut seed: u64 = args.get(3).map_or(42, |s| s.parse().expect("seed"));
    let start: jiff::civil::Date = args
        .get(4)
        .map_or("2026-11-20", |s| s.as_str())
        .parse()
        .expect("START is YYYY-MM-DD");
    // The date of the day being written, found again when the day changes.
    let mut day = (u64::MAX, start);
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const LEVELS: [&str; 4] = ["INFO", "WARN", "DEBUG", "ERROR"];
    const WORDS: [&str; 16] = [
        "request",
        "served",
        "user",
        "session",
        "timeout",
        "cache",
        "miss",
        "backend",
        "retry",
        "connection",
        "closed",
        "latency",
        "upstream",
        "payload",
        "accepted",
        "queue",
    ];
    let file = std::fs::File::create(&args[1]).expect("create output");
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    let mut line = Vec::with_capacity(4096);
    let mut n: u64 = 0;
    while written < size {
        line.clear();
        let r = next();
        let t = 1_700_000_000 + n / 50;
        // The calendar from START on, past the month's end: the stamps
        // never go back, however big the file.
        if day.0 != t / 86400 {
            let days = jiff::Span::new().days((t / 86400 - T0_DAY) as i64);
            day = (t / 86400, start.checked_add(days).expect("a date"));
        }
        let date = day.1;
        write!(
            line,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z {} [{}] ",
            date.year(),
            date.month(),
            date.day(),
            (t / 3600) % 24,
            (t / 60) % 60,
            t % 60,
            r % 1000,
            LEVELS[(r >> 10) as usize % 4],
            n % 97
        )
        .unwrap();
        let words = if r % 1000 == 0 {
            400
        } else {
            3 + (r >> 20) % 14
        };
        for i in 0..words {
            let w = next();
            line.extend_from_slice(WORDS[(w % 16) as usize].as_bytes());
            if i % 3 == 2 {
                write!(line, "={}", w % 100_000).unwrap();
            }
            line.push(b' ');
        }
        line.pop();
        line.push(b'\n');
        let take = (line.len() as u64).min(size - written) as usize;
        out.write_all(&line[..take]).unwrap();
        written += take as u64;
        n += 1;
    }
    out.flush().unwrap();
}
