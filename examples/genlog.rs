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

/// `YYYY-MM-DD` as days since 1970-01-01 (the days-from-civil algorithm).
fn days_of(date: &str) -> i64 {
    let p: Vec<i64> = date
        .split('-')
        .map(|x| x.parse().expect("START is YYYY-MM-DD"))
        .collect();
    let (m, d) = (p[1], p[2]);
    let y = p[0] - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 as (year, month, day), by the days-to-civil
/// algorithm.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: genlog OUT SIZE_BYTES [SEED [START]]");
        std::process::exit(2);
    }
    let size: u64 = args[2].parse().expect("size in bytes");
    let mut seed: u64 = args.get(3).map_or(42, |s| s.parse().expect("seed"));
    let day0 = days_of(args.get(4).map_or("2026-11-20", |s| s.as_str()));
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
        let (year, month, day) = civil(day0 + (t / 86400 - T0_DAY) as i64);
        write!(
            line,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z {} [{}] ",
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
