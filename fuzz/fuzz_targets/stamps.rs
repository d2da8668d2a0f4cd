//! Time stamps: a fuzzer-chosen format (detected, a name or a strptime
//! format given as text, or a named kind) and zone over fuzzed lines. The
//! format chosen must name itself back (`kind_of(name)`); a sidecar with a
//! time index built with one worker and with several must be the same
//! bytes (the parallel pass reads stamps out of order); and every
//! `line_at_time` answer must be the first line whose time (its stamp as
//! a sequential `Stamper` reads it, else the stamp before) is at or after
//! the instant.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lidx::io::MemSource;
use lidx::time::{Strptime, TimeFormat, TimeKind};
use lidx::{BuildOptions, Index, TimeOptions};

const NAMED: [&str; 11] = [
    "iso8601", "syslog", "clf", "epoch-s", "epoch-ms", "ymd-slash", "yy-slash", "yymmdd", "ctime",
    "keyed", "strptime@1:%s",
];
const ZONES: [&str; 4] = ["UTC", "Europe/Paris", "America/New_York", "+05:30"];
/// The text's modification time (2027-01-15): the year of stamps without one.
const MTIME: i64 = 1_800_000_000;

/// A sidecar of `text` built as a file of modification time [`MTIME`].
fn build(text: &[u8], opts: &BuildOptions) -> lidx::Result<Vec<u8>> {
    let info = lidx::ingest::SourceInfo { mtime: (MTIME, 0), name: b"f.log".to_vec() };
    let mut pages = vec![0u8; opts.page_size as usize];
    let sb = lidx::ingest::build(&MemSource::new(text.to_vec()), &info, opts, &mut pages, &mut |_| true)?;
    pages[..lidx::format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
    Ok(pages)
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let (fmt, text) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let fmt = String::from_utf8_lossy(fmt).into_owned();
    let kind = match sel % 4 {
        0 => None,
        1 => match TimeFormat::kind_of(&fmt) {
            Ok(k) => Some(k),
            Err(_) => return,
        },
        2 => Some(TimeKind::Strptime(Strptime::new(&fmt, None))),
        _ => Some(TimeFormat::kind_of(NAMED[(sel >> 2) as usize % NAMED.len()]).unwrap()),
    };
    if let Some(TimeKind::Strptime(s)) = &kind {
        if s.format().is_empty() {
            return;
        }
        // A place named is a place read back.
        if let Some(Ok(p)) = Strptime::parse_name(&s.name()) {
            assert_eq!(p.name(), s.name());
        }
    }
    let tz = ZONES[(sel >> 4) as usize % ZONES.len()];
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let heads: Vec<&[u8]> = lines.iter().map(|l| &l[..l.len().min(512)]).collect();
    let f = match TimeFormat::for_lines(kind.clone(), tz, &heads, MTIME) {
        Ok(Some(f)) => f,
        _ => return,
    };
    let named = TimeFormat::kind_of(&f.name()).expect("a format's name names it");
    assert_eq!(&named, f.kind(), "{}", f.name());

    // The oracle: each line's time, in order.
    let mut s = f.stamper();
    let mut times = Vec::new();
    let mut last = None;
    for h in &heads {
        if let Some(t) = s.stamp(h) {
            last = Some(t);
        }
        times.push(last);
    }

    let time = TimeOptions { format: kind, tz: Some(tz.to_string()) };
    let opts = |threads| BuildOptions {
        spacing: 1 + (sel as u64 % 7) * 13,
        page_size: 512,
        time: Some(time.clone()),
        threads,
        ..BuildOptions::default()
    };
    let one = build(text, &opts(1));
    let many = build(text, &opts(3));
    let sidecar = match (one, many) {
        (Ok(a), Ok(b)) => {
            assert!(a == b, "one worker and three built different sidecars");
            a
        }
        (Err(_), Err(_)) => return, // refused alike (implausible times, a zone conflict)
        (a, b) => panic!("one worker and three disagree: {:?} / {:?}", a.is_ok(), b.is_ok()),
    };
    let index = Index::from_parts(
        Box::new(MemSource::new(text.to_vec())),
        Box::new(MemSource::new(sidecar)),
        (MTIME, 0),
        1 << 20,
    )
    .expect("opens what was built");
    for t in times.iter().flatten().take(40) {
        for probe in [*t, t.saturating_add(1), t.saturating_sub(1)] {
            // The line count when no line is.
            let want = times
                .iter()
                .position(|x| x.is_some_and(|x| x >= probe))
                .unwrap_or(times.len());
            let got = index.line_at_time(probe).expect("a time query on an intact index");
            assert_eq!(got, want as u64, "line_at_time({probe})");
        }
    }
});
