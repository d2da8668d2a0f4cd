//! The time index (spec §12) through the real binary: `index --time`,
//! `line-at-time`, `lines --since/--until`, `grep --since/--until`, `info`
//! and `verify`, on generated logs in every stamp format.
//!
//! The oracle is the generator: it knows the instant each stamp it wrote
//! stands for (its own calendar arithmetic, its own reading of Paris's
//! daylight-saving rules), gives a line without a stamp the time of the
//! stamped line before it, and answers each query by looking at every
//! line: the first line at or after T, the last line before U, and the
//! lines between them. Real tools check the sorted case: `awk` string
//! windows on RFC 3339 stamps, and lnav's `:hide-lines-before/after`.

use crate::oracle::{self, Rng};
use crate::run::{Out, Rules, have_tool, lidx_with};
use std::path::{Path, PathBuf};

const NS: i64 = 1_000_000_000;
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn month_days(y: i64, m: i64) -> i64 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Seconds since the epoch of a UTC date and time (years from 1970 on),
/// counted day by day: nothing shared with the code under test.
fn utc(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
    let mut days = 0;
    for yy in 1970..y {
        days += if leap(yy) { 366 } else { 365 };
    }
    for mm in 1..mo {
        days += month_days(y, mm);
    }
    (days + d - 1) * 86_400 + h * 3600 + mi * 60 + s
}

/// The UTC date and time of `secs` since the epoch.
fn civil(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let mut days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let mut y = 1970;
    loop {
        let n = if leap(y) { 366 } else { 365 };
        if days < n {
            break;
        }
        days -= n;
        y += 1;
    }
    let mut m = 1;
    while days >= month_days(y, m) {
        days -= month_days(y, m);
        m += 1;
    }
    (y, m, days + 1, rem / 3600, rem / 60 % 60, rem % 60)
}

/// An instant as lidx prints it (RFC 3339 UTC, 0, 3, 6 or 9 fraction
/// digits) and as queries give it.
fn rfc3339(t: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(t.div_euclid(NS));
    let ns = t.rem_euclid(NS);
    let frac = match ns {
        0 => String::new(),
        n if n % 1_000_000 == 0 => format!(".{:03}", n / 1_000_000),
        n if n % 1000 == 0 => format!(".{:06}", n / 1000),
        n => format!(".{n:09}"),
    };
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}Z")
}

/// Europe/Paris's UTC offset at `secs` in 2026 (CEST from the last Sunday
/// of March, 01:00 UTC, to the last Sunday of October, 01:00 UTC).
fn paris_offset(secs: i64) -> i64 {
    let summer = utc(2026, 3, 29, 1, 0, 0)..utc(2026, 10, 25, 1, 0, 0);
    if summer.contains(&secs) { 7200 } else { 3600 }
}

/// The instant a Paris wall-clock time stands for, by the rule the spec
/// states (RFC 9557's "compatible"): a time that occurs twice is the
/// earlier, a time skipped is read with the offset before the gap.
fn paris_reading(wall: i64) -> i64 {
    let summer = wall - 7200;
    let winter = wall - 3600;
    match (paris_offset(summer) == 7200, paris_offset(winter) == 3600) {
        (true, _) => summer,
        (false, true) => winter,
        (false, false) => winter,
    }
}

/// How the generator writes stamps.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fmt {
    /// `2026-11-30T08:00:01.250000Z`.
    IsoZ,
    /// `2026-11-30T10:00:01+02:00`, offsets varying.
    IsoOffset,
    /// `2026-11-30 11:00:01.2` read in +03:00.
    IsoZoneless,
    /// `2026-11-30 08:00:01,250` (log4j) read in UTC.
    Log4j,
    /// `2026-03-29 03:30:00,000` written in Paris, read in Europe/Paris.
    Log4jParis,
    /// `[30/Nov/2026:09:00:01 +0100]`, offsets varying.
    Clf,
    /// `Nov 30 08:00:01`, read in UTC, the year inferred.
    Syslog,
    /// `1796025601.250`.
    EpochS,
    /// `1796025601250`.
    EpochMs,
    /// `30.11.2026 08:00:01` with `--time-format '%d.%m.%Y %H:%M:%S'`.
    Strftime,
    /// `2026/11/30 08:00:01` (nginx's error log), detected.
    YmdSlash,
    /// `26/11/30 08:00:01` (Spark), detected.
    YySlash,
    /// `261130 080001` (HDFS), detected.
    Yymmdd,
    /// `[Mon Nov 30 08:00:01.250 2026]` (Apache's error log), detected.
    Ctime,
    /// JSON lines with `"time":"…"` or `"ts":SECONDS.FRACTION` after a
    /// long message, detected.
    Keyed,
    /// `%s` at the fourth field, after a sequence number.
    EpochField,
    /// `11-30 08:00:01.250` (logcat) with `%m-%d %H:%M:%S%.f`: no year.
    YearLess,
    /// `20261130-08:00:01:7` (an unpadded millisecond) with `%3f`.
    Millis,
}

/// The English abbreviation of the day of the week of `secs`.
fn weekday(secs: i64) -> &'static str {
    ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        [secs.div_euclid(86_400).rem_euclid(7) as usize]
}

impl Fmt {
    /// The stamp for instant `t` and the instant it reads as.
    fn stamp(self, t: i64, rng: &mut Rng) -> (String, i64) {
        let secs = t.div_euclid(NS);
        let ns = t.rem_euclid(NS);
        let wall = |off: i64| civil(secs + off);
        match self {
            Fmt::IsoZ => {
                let (y, mo, d, h, mi, s) = wall(0);
                let us = ns / 1000;
                (
                    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{us:06}Z"),
                    secs * NS + us * 1000,
                )
            }
            Fmt::IsoOffset => {
                let off = [7200, -19_800, 0, 3600][rng.below(4) as usize];
                let (y, mo, d, h, mi, s) = wall(off);
                let sign = if off < 0 { '-' } else { '+' };
                let a = off.abs();
                (
                    format!(
                        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{sign}{:02}:{:02}",
                        a / 3600,
                        a / 60 % 60
                    ),
                    secs * NS,
                )
            }
            Fmt::IsoZoneless => {
                let (y, mo, d, h, mi, s) = wall(3 * 3600);
                let tenth = ns / 100_000_000;
                (
                    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{tenth}"),
                    secs * NS + tenth * 100_000_000,
                )
            }
            Fmt::Log4j => {
                let (y, mo, d, h, mi, s) = wall(0);
                let ms = ns / 1_000_000;
                (
                    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02},{ms:03}"),
                    secs * NS + ms * 1_000_000,
                )
            }
            Fmt::Log4jParis => {
                let w = secs + paris_offset(secs);
                let (y, mo, d, h, mi, s) = civil(w);
                let ms = ns / 1_000_000;
                (
                    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02},{ms:03}"),
                    paris_reading(w) * NS + ms * 1_000_000,
                )
            }
            Fmt::Clf => {
                let off = [0, 3600, -18_000, 19_800][rng.below(4) as usize];
                let (y, mo, d, h, mi, s) = wall(off);
                let sign = if off < 0 { '-' } else { '+' };
                let a = off.abs();
                (
                    format!(
                        "[{d:02}/{}/{y:04}:{h:02}:{mi:02}:{s:02} {sign}{:02}{:02}]",
                        MONTHS[mo as usize - 1],
                        a / 3600,
                        a / 60 % 60
                    ),
                    secs * NS,
                )
            }
            Fmt::Syslog => {
                let (_, mo, d, h, mi, s) = wall(0);
                (
                    format!("{} {d:>2} {h:02}:{mi:02}:{s:02}", MONTHS[mo as usize - 1]),
                    secs * NS,
                )
            }
            Fmt::EpochS => {
                if rng.below(2) == 0 {
                    (format!("{secs}"), secs * NS)
                } else {
                    let ms = ns / 1_000_000;
                    (format!("{secs}.{ms:03}"), secs * NS + ms * 1_000_000)
                }
            }
            Fmt::EpochMs => {
                let ms = t.div_euclid(1_000_000);
                (format!("{ms}"), ms * 1_000_000)
            }
            Fmt::Strftime => {
                let (y, mo, d, h, mi, s) = wall(0);
                (
                    format!("{d:02}.{mo:02}.{y:04} {h:02}:{mi:02}:{s:02}"),
                    secs * NS,
                )
            }
            Fmt::YmdSlash => {
                let (y, mo, d, h, mi, s) = wall(0);
                (
                    format!("{y:04}/{mo:02}/{d:02} {h:02}:{mi:02}:{s:02}"),
                    secs * NS,
                )
            }
            Fmt::YySlash => {
                let (y, mo, d, h, mi, s) = wall(0);
                (
                    format!("{:02}/{mo:02}/{d:02} {h:02}:{mi:02}:{s:02}", y - 2000),
                    secs * NS,
                )
            }
            Fmt::Yymmdd => {
                let (y, mo, d, h, mi, s) = wall(0);
                (
                    format!("{:02}{mo:02}{d:02} {h:02}{mi:02}{s:02}", y - 2000),
                    secs * NS,
                )
            }
            Fmt::Ctime => {
                let (y, mo, d, h, mi, s) = wall(0);
                let ms = ns / 1_000_000;
                (
                    format!(
                        "[{} {} {d:02} {h:02}:{mi:02}:{s:02}.{ms:03} {y:04}]",
                        weekday(secs),
                        MONTHS[mo as usize - 1]
                    ),
                    secs * NS + ms * 1_000_000,
                )
            }
            Fmt::Keyed => {
                let ms = ns / 1_000_000;
                if rng.below(2) == 0 {
                    let (y, mo, d, h, mi, s) = wall(0);
                    (
                        format!(
                            "\"time\":\"{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z\""
                        ),
                        secs * NS + ms * 1_000_000,
                    )
                } else {
                    (format!("\"ts\":{secs}.{ms:03}"), secs * NS + ms * 1_000_000)
                }
            }
            Fmt::EpochField => (format!("{secs}"), secs * NS),
            Fmt::YearLess => {
                let (_, mo, d, h, mi, s) = wall(0);
                let ms = ns / 1_000_000;
                (
                    format!("{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{ms:03}"),
                    secs * NS + ms * 1_000_000,
                )
            }
            Fmt::Millis => {
                let (y, mo, d, h, mi, s) = wall(0);
                let ms = ns / 1_000_000;
                (
                    format!("{y:04}{mo:02}{d:02}-{h:02}:{mi:02}:{s:02}:{ms}"),
                    secs * NS + ms * 1_000_000,
                )
            }
        }
    }

    /// A whole line around stamp `s`.
    fn line(self, s: &str, i: usize) -> String {
        match self {
            Fmt::Clf => format!(
                "10.0.{}.{} - - {s} \"GET /worker/{i} HTTP/1.1\" 200 {}",
                i % 7,
                i % 250,
                i * 13 % 9000
            ),
            Fmt::Syslog => format!("{s} host app[{}]: worker {i} done", 100 + i % 50),
            Fmt::Keyed => format!(
                "{{\"level\":\"info\",\"msg\":\"worker {} request {i} done after a long wait\",{s}}}",
                i % 9
            ),
            Fmt::EpochField => format!("{} node-{} start {s} worker {i}", 100_000 + i, i % 300),
            Fmt::YearLess => format!("{s}  1702  2395 D worker: request {i}"),
            Fmt::Millis => format!("{s}|Step_LSC|30002312|worker {i}"),
            _ => format!("{s} INFO worker {} request {i} done", i % 9),
        }
    }

    /// The options `lidx index` needs for it.
    fn index_args(self) -> Vec<&'static str> {
        match self {
            Fmt::IsoZoneless => vec!["--tz", "+03:00"],
            Fmt::Log4jParis => vec!["--tz", "Europe/Paris"],
            Fmt::Strftime => vec!["--tz", "UTC", "--time-format", "%d.%m.%Y %H:%M:%S"],
            Fmt::EpochField => vec!["--time-format", "%s"],
            Fmt::YearLess => vec!["--tz", "UTC", "--time-format", "%m-%d %H:%M:%S%.f"],
            Fmt::Millis => vec!["--tz", "UTC", "--time-format", "%Y%m%d-%H:%M:%S:%3f"],
            _ => vec!["--tz", "UTC"],
        }
    }

    /// What `info --json` says of the format: name and "detected".
    fn info_name(self) -> (&'static str, bool) {
        match self {
            Fmt::Clf => ("clf", true),
            Fmt::Syslog => ("syslog", true),
            Fmt::EpochS => ("epoch-s", true),
            Fmt::EpochMs => ("epoch-ms", true),
            Fmt::Strftime => ("strptime:%d.%m.%Y %H:%M:%S", false),
            Fmt::YmdSlash => ("ymd-slash", true),
            Fmt::YySlash => ("yy-slash", true),
            Fmt::Yymmdd => ("yymmdd", true),
            Fmt::Ctime => ("ctime", true),
            Fmt::Keyed => ("keyed", true),
            Fmt::EpochField => ("strptime@3:%s", false),
            Fmt::YearLess => ("strptime:%m-%d %H:%M:%S%.f", false),
            Fmt::Millis => ("strptime:%Y%m%d-%H:%M:%S:%3f", false),
            _ => ("iso8601", true),
        }
    }
}

/// A generated log and the time of each of its lines.
#[derive(Default, Clone)]
struct Log {
    text: Vec<u8>,
    /// Line starts, and one past the end.
    starts: Vec<usize>,
    /// Each line's time: its stamp's reading, or the last before it.
    times: Vec<Option<i64>>,
}

impl Log {
    fn push(&mut self, line: &str, stamp: Option<i64>) {
        let t = stamp.or(self.times.last().copied().flatten());
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.text.extend_from_slice(line.as_bytes());
        self.text.push(b'\n');
        self.starts.push(self.text.len());
        self.times.push(t);
    }

    /// A continuation line (a stack trace's) with no stamp.
    fn push_unstamped(&mut self, rng: &mut Rng, i: usize) {
        let l = if rng.below(2) == 0 {
            format!("    at com.example.Worker.run(Worker.java:{})", i % 400)
        } else {
            "Caused by: java.io.IOException: connection reset".to_string()
        };
        self.push(&l, None);
    }

    fn first_at_or_after(&self, t: i64) -> Option<usize> {
        oracle::first_at_or_after(&self.times, t)
    }

    fn range(&self, since: Option<i64>, until: Option<i64>) -> Option<(usize, usize)> {
        oracle::time_range(&self.times, since, until)
    }

    fn bytes(&self, a: usize, b: usize) -> &[u8] {
        &self.text[self.starts[a]..self.starts[b + 1]]
    }

    fn extremes(&self) -> Option<(i64, i64)> {
        let ts = self.times.iter().flatten();
        Some((*ts.clone().min()?, *ts.max()?))
    }
}

/// How the times of generated lines move.
#[derive(Clone, Copy)]
struct Shape {
    /// Probability (in 1/1000) of a line without a stamp.
    unstamped: u64,
    /// Probability (in 1/1000) of the same time as the line before.
    equal: u64,
    /// Jitter of each stamp around the clock (several writers), in ms.
    jitter_ms: i64,
    /// Probability (in 1/1000) that the clock steps back ten minutes.
    step_back: u64,
    /// The most the clock advances per line, in ms.
    step_ms: i64,
}

const IN_ORDER: Shape = Shape {
    unstamped: 150,
    equal: 200,
    jitter_ms: 0,
    step_back: 0,
    step_ms: 2500,
};

/// Appends `n` lines in format `fmt` with the clock starting at `clock`;
/// returns the clock after them.
fn generate(log: &mut Log, rng: &mut Rng, fmt: Fmt, shape: Shape, clock: i64, n: usize) -> i64 {
    let mut clock = clock;
    let mut last: Option<i64> = None;
    for _ in 0..n {
        let i = log.times.len();
        if rng.below(1000) < shape.unstamped && !log.times.is_empty() {
            log.push_unstamped(rng, i);
            continue;
        }
        if rng.below(1000) < shape.step_back {
            clock -= 600 * NS;
        }
        let t = match last {
            Some(l) if rng.below(1000) < shape.equal => l,
            _ => {
                clock += rng.below(shape.step_ms as u64 * 1_000_000) as i64 + 1;
                let j = if shape.jitter_ms > 0 {
                    rng.below(2 * shape.jitter_ms as u64 * 1_000_000) as i64
                        - shape.jitter_ms * 1_000_000
                } else {
                    0
                };
                clock + j
            }
        };
        last = Some(t);
        let (s, reading) = fmt.stamp(t, rng);
        log.push(&fmt.line(&s, i), Some(reading));
    }
    clock
}

/// Runs lidx; errors must follow the rules of every run.
fn lidx(args: &[&str]) -> Out {
    lidx_with(args, Rules::STREAMING)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Instants to ask about: around every extreme, at and beside random
/// lines' own times, and anywhere in between.
fn probes(log: &Log, rng: &mut Rng, n: usize) -> Vec<i64> {
    let Some((lo, hi)) = log.extremes() else {
        return vec![0, 1_800_000_000 * NS];
    };
    let mut v = vec![
        lo - 1,
        lo,
        lo + 1,
        hi - 1,
        hi,
        hi + 1,
        lo - 3600 * NS,
        hi + 3600 * NS,
    ];
    let stamped: Vec<i64> = log.times.iter().flatten().copied().collect();
    while v.len() < n {
        let t = stamped[rng.below(stamped.len() as u64) as usize];
        v.push(match rng.below(4) {
            0 => t,
            1 => t - 1,
            2 => t + 1,
            _ => lo - 60 * NS + rng.below((hi - lo + 120 * NS) as u64) as i64,
        });
    }
    v
}

/// Asks lidx what the oracle knows: the first line at or after each probe,
/// the lines of time ranges (both ends, one end) and a grep count in them.
fn check_queries(file: &Path, log: &Log, rng: &mut Rng, ctx: &str) {
    let f = file.to_str().unwrap();
    let ps = probes(log, rng, 14);
    for &t in &ps {
        let ts = rfc3339(t);
        let o = lidx(&["line-at-time", f, &ts]);
        match log.first_at_or_after(t) {
            Some(l) => {
                assert_eq!(o.code, 0, "{ctx}: line-at-time {ts}: {}", o.stderr);
                assert_eq!(
                    o.stdout_str(),
                    format!("{}\n", l + 1),
                    "{ctx}: line-at-time {ts}"
                );
            }
            None => {
                assert_eq!(o.code, 1, "{ctx}: line-at-time {ts}: {}", o.stderr);
                assert!(o.stdout.is_empty(), "{ctx}: line-at-time {ts}");
            }
        }
    }
    for k in 0..10 {
        let mut s = ps[rng.below(ps.len() as u64) as usize];
        let mut u = ps[rng.below(ps.len() as u64) as usize];
        if s > u && k % 3 != 0 {
            std::mem::swap(&mut s, &mut u);
        }
        let (ss, us) = (rfc3339(s), rfc3339(u));
        let (since, until) = match k {
            0 => (Some(s), None),
            1 => (None, Some(u)),
            _ => (Some(s), Some(u)),
        };
        let mut args = vec!["lines", f];
        if since.is_some() {
            args.extend(["--since", &ss]);
        }
        if until.is_some() {
            args.extend(["--until", &us]);
        }
        let o = lidx(&args);
        let what = format!("{ctx}: {args:?}");
        match log.range(since, until) {
            Some((a, b)) => {
                assert_eq!(o.code, 0, "{what}: {}", o.stderr);
                assert!(
                    o.stdout == log.bytes(a, b),
                    "{what}: lines {}..={} expected, got {} bytes",
                    a + 1,
                    b + 1,
                    o.stdout.len()
                );
            }
            None => {
                assert_eq!(o.code, 1, "{what}: {}", o.stderr);
                assert!(o.stdout.is_empty(), "{what}");
            }
        }
        if k >= 7 {
            let mut g = vec!["grep", "-c", "worker", f];
            g.extend(&args[2..]);
            let o = lidx(&g);
            let want = log.range(since, until).map_or(0, |(a, b)| {
                (a..=b)
                    .filter(|&l| {
                        let line = log.bytes(l, l);
                        line.windows(6).any(|w| w == b"worker")
                    })
                    .count()
            });
            if want == 0 {
                assert_eq!(o.code, 1, "{ctx}: {g:?}: {}", o.stderr);
            } else {
                assert_eq!(o.code, 0, "{ctx}: {g:?}: {}", o.stderr);
                assert_eq!(o.stdout_str(), format!("{want}\n"), "{ctx}: {g:?}");
            }
        }
    }
}

/// `lidx index --time` with the format's options, a small spacing so that
/// the file has many spans.
fn index(file: &Path, fmt: Fmt, spacing: &str) {
    let mut args = vec!["index", "-q", "--time", "--spacing", spacing];
    args.extend(fmt.index_args());
    args.push(file.to_str().unwrap());
    let o = lidx(&args);
    assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
}

/// `info --json`'s time object says what the oracle expects.
fn check_info(file: &Path, fmt: Fmt, log: &Log) {
    let o = lidx(&["info", "--json", file.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = o.stdout_str();
    let (name, detected) = fmt.info_name();
    let name = name.replace('\\', "\\\\");
    assert!(
        out.contains(&format!("\"format\":\"{name}\",\"detected\":{detected}")),
        "{fmt:?}: {out}"
    );
    let (lo, hi) = log.extremes().unwrap();
    assert!(
        out.contains(&format!(
            "\"first\":\"{}\",\"last\":\"{}\"",
            rfc3339(lo),
            rfc3339(hi)
        )),
        "{fmt:?}: {out}"
    );
}

/// 2026-11-30T08:00:00Z.
fn t0() -> i64 {
    utc(2026, 11, 30, 8, 0, 0) * NS
}

#[test]
fn every_format_against_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    for (i, fmt) in [
        Fmt::IsoZ,
        Fmt::IsoOffset,
        Fmt::IsoZoneless,
        Fmt::Log4j,
        Fmt::Clf,
        Fmt::Syslog,
        Fmt::EpochS,
        Fmt::EpochMs,
        Fmt::Strftime,
        Fmt::YmdSlash,
        Fmt::YySlash,
        Fmt::Yymmdd,
        Fmt::Ctime,
        Fmt::Keyed,
        Fmt::EpochField,
        Fmt::YearLess,
        Fmt::Millis,
    ]
    .into_iter()
    .enumerate()
    {
        let mut rng = Rng::new(1000 + i as u64);
        let mut log = Log::default();
        // Lines before the first stamp have no time.
        log.push("# log opened by the generator", None);
        generate(&mut log, &mut rng, fmt, IN_ORDER, t0(), 2500);
        let file = write(dir.path(), &format!("{fmt:?}.log"), &log.text);
        // Syslog years come from the modification time.
        let f = std::fs::File::options().write(true).open(&file).unwrap();
        f.set_modified(
            std::time::UNIX_EPOCH
                + std::time::Duration::from_secs(utc(2026, 12, 1, 0, 0, 0) as u64),
        )
        .unwrap();
        drop(f);
        index(&file, fmt, "1024");
        check_info(&file, fmt, &log);
        check_queries(&file, &log, &mut rng, &format!("{fmt:?}"));
        let o = lidx(&["verify", "--full", file.to_str().unwrap()]);
        assert_eq!(o.code, 0, "{fmt:?}: {}", o.stderr);
    }
}

#[test]
fn out_of_order_and_equal_times_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, shape) in [
        // Several writers a few seconds apart.
        (
            1,
            Shape {
                jitter_ms: 20_000,
                ..IN_ORDER
            },
        ),
        // A clock that steps back now and then.
        (
            2,
            Shape {
                step_back: 8,
                ..IN_ORDER
            },
        ),
        // Runs of equal times, both.
        (
            3,
            Shape {
                equal: 700,
                jitter_ms: 5000,
                step_back: 4,
                ..IN_ORDER
            },
        ),
        // Mostly lines without stamps.
        (
            4,
            Shape {
                unstamped: 800,
                step_back: 3,
                ..IN_ORDER
            },
        ),
    ] {
        let mut rng = Rng::new(seed);
        let mut log = Log::default();
        generate(&mut log, &mut rng, Fmt::IsoZ, shape, t0(), 3000);
        let file = write(dir.path(), &format!("shape{seed}.log"), &log.text);
        index(&file, Fmt::IsoZ, "700");
        check_queries(&file, &log, &mut rng, &format!("shape {seed}"));
        let o = lidx(&["verify", "--full", file.to_str().unwrap()]);
        assert_eq!(o.code, 0, "shape {seed}: {}", o.stderr);
    }
}

#[test]
fn daylight_saving_transitions_in_a_named_zone() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(7);
    let mut log = Log::default();
    let shape = Shape {
        step_ms: 14_000,
        unstamped: 50,
        equal: 50,
        ..IN_ORDER
    };
    // Across the spring gap and the autumn fold of 2026 in Paris.
    generate(
        &mut log,
        &mut rng,
        Fmt::Log4jParis,
        shape,
        utc(2026, 3, 28, 23, 0, 0) * NS,
        900,
    );
    // A writer whose clock shows a time the spring gap skipped.
    for (i, s) in ["2026-03-29 02:30:00,000", "2026-03-29 02:59:59,999"]
        .iter()
        .enumerate()
    {
        let wall = utc(2026, 3, 29, 2, 30 + 29 * i as i64, 59 * i as i64);
        log.push(
            &format!("{s} WARN worker skew"),
            Some(paris_reading(wall) * NS + 999_000_000 * i as i64),
        );
    }
    generate(
        &mut log,
        &mut rng,
        Fmt::Log4jParis,
        shape,
        utc(2026, 10, 24, 23, 0, 0) * NS,
        900,
    );
    let file = write(dir.path(), "paris.log", &log.text);
    index(&file, Fmt::Log4jParis, "1024");
    check_info(&file, Fmt::Log4jParis, &log);
    check_queries(&file, &log, &mut rng, "Europe/Paris");
    // Queries without a zone are read in the index's zone: 02:30 on the
    // autumn night is its first occurrence, 00:30 UTC.
    let t = utc(2026, 10, 25, 0, 30, 0) * NS;
    let o = lidx(&["line-at-time", file.to_str().unwrap(), "2026-10-25 02:30"]);
    let want = log.first_at_or_after(t).unwrap() + 1;
    assert_eq!(o.stdout_str(), format!("{want}\n"), "{}", o.stderr);
}

#[test]
fn syslog_years_are_inferred_across_new_year() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(11);
    let mut log = Log::default();
    let shape = Shape {
        step_ms: 25_000,
        ..IN_ORDER
    };
    let end = generate(
        &mut log,
        &mut rng,
        Fmt::Syslog,
        shape,
        utc(2025, 12, 31, 22, 30, 0) * NS,
        1200,
    );
    assert!(
        end > utc(2026, 1, 1, 0, 30, 0) * NS,
        "the log crosses new year"
    );
    for (name, mtime) in [
        // Written until just after its last line, or months later.
        ("fresh", end / NS + 60),
        ("later", utc(2026, 5, 1, 0, 0, 0)),
    ] {
        let file = write(dir.path(), &format!("{name}.log"), &log.text);
        let f = std::fs::File::options().write(true).open(&file).unwrap();
        f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime as u64))
            .unwrap();
        drop(f);
        index(&file, Fmt::Syslog, "1024");
        check_info(&file, Fmt::Syslog, &log);
        check_queries(&file, &log, &mut rng, &format!("syslog {name}"));
    }
}

#[test]
fn a_format_change_mid_file_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(13);
    let mut log = Log::default();
    let mut clock = t0();
    for fmt in [Fmt::IsoZ, Fmt::Clf, Fmt::Log4j, Fmt::IsoOffset] {
        clock = generate(&mut log, &mut rng, fmt, IN_ORDER, clock, 700);
    }
    let file = write(dir.path(), "mixed.log", &log.text);
    index(&file, Fmt::IsoZ, "1024");
    check_queries(&file, &log, &mut rng, "mixed formats");
}

fn append(file: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    std::io::Write::write_all(&mut f, bytes).unwrap();
}

/// `file`'s sidecar is byte for byte what a fresh `--time` build of a copy
/// of `file` (with its modification time) writes with `spacing`.
fn assert_fresh_build(file: &Path, spacing: &str) {
    let other = tempfile::tempdir().unwrap();
    let name = file.file_name().unwrap();
    let copy = other.path().join(name);
    std::fs::copy(file, &copy).unwrap();
    let mtime = std::fs::metadata(file).unwrap().modified().unwrap();
    let f = std::fs::File::options().write(true).open(&copy).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    index(&copy, Fmt::IsoZ, spacing);
    let sidecar = |p: &Path| {
        let mut s = p.as_os_str().to_owned();
        s.push(".lidx");
        std::fs::read(s).unwrap()
    };
    assert!(
        sidecar(file) == sidecar(&copy),
        "extended sidecar differs from a fresh build"
    );
}

#[test]
fn appends_extend_the_time_index_as_a_fresh_build_would() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(17);
    let mut log = Log::default();
    let shape = Shape {
        jitter_ms: 3000,
        ..IN_ORDER
    };
    let mut clock = generate(&mut log, &mut rng, Fmt::IsoZ, shape, t0(), 1500);
    let file = write(dir.path(), "grow.log", &log.text);
    index(&file, Fmt::IsoZ, "900");
    for round in 0..4 {
        let before = log.text.len();
        clock = generate(
            &mut log,
            &mut rng,
            Fmt::IsoZ,
            shape,
            clock,
            300 + 200 * round,
        );
        append(&file, &log.text[before..]);
        // The next query extends the sidecar, time index included.
        check_queries(&file, &log, &mut rng, &format!("append {round}"));
    }
    let o = lidx(&["verify", "--full", file.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Byte for byte what a fresh build of the same file writes.
    assert_fresh_build(&file, "900");
}

#[test]
fn gzip_sources_answer_as_their_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(19);
    let mut log = Log::default();
    let shape = Shape {
        jitter_ms: 8000,
        step_back: 2,
        ..IN_ORDER
    };
    generate(&mut log, &mut rng, Fmt::IsoZ, shape, t0(), 4000);
    // Two members, split mid-line.
    let mid = log.text.len() / 2 + 17;
    let mut gz = Vec::new();
    for part in [&log.text[..mid], &log.text[mid..]] {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        std::io::Write::write_all(&mut e, part).unwrap();
        gz.extend(e.finish().unwrap());
    }
    let file = write(dir.path(), "app.log.gz", &gz);
    let o = lidx(&[
        "index",
        "-q",
        "--time",
        "--tz",
        "UTC",
        "--spacing",
        "2048",
        "--span",
        "32768",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    check_info(&file, Fmt::IsoZ, &log);
    check_queries(&file, &log, &mut rng, "gzip");
    let o = lidx(&["verify", "--full", file.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// A sidecar built without a time index gets one on the first time query.
#[test]
fn a_time_query_adds_the_time_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(23);
    let mut log = Log::default();
    generate(&mut log, &mut rng, Fmt::IsoZ, IN_ORDER, t0(), 1500);
    let file = write(dir.path(), "late.log", &log.text);
    let f = file.to_str().unwrap();
    assert_eq!(lidx(&["index", "-q", "--spacing", "1024", f]).code, 0);
    let o = lidx(&["info", "--json", f]);
    assert!(
        o.stdout_str().contains("\"time\":null"),
        "{}",
        o.stdout_str()
    );
    check_queries(&file, &log, &mut rng, "added");
    check_info(&file, Fmt::IsoZ, &log);
}

#[test]
fn bit_flips_in_the_time_pages_are_errors_never_wrong_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(29);
    let mut log = Log::default();
    generate(
        &mut log,
        &mut rng,
        Fmt::IsoZ,
        Shape {
            jitter_ms: 4000,
            ..IN_ORDER
        },
        t0(),
        2000,
    );
    let file = write(dir.path(), "flip.log", &log.text);
    let f = file.to_str().unwrap();
    index(&file, Fmt::IsoZ, "512");
    let side = dir.path().join("flip.log.lidx");
    let good = std::fs::read(&side).unwrap();
    // The superblock's time_page field (Table 1, offset 120) and the page
    // size (offset 12): the time pages run from there to the end.
    let time_page = u32::from_le_bytes(good[120..124].try_into().unwrap()) as usize;
    let page = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    assert!(
        time_page > 0 && time_page * page < good.len(),
        "time page {time_page}"
    );
    let (lo, hi) = log.extremes().unwrap();
    let probe = lo + (hi - lo) / 3;
    let until = lo + (hi - lo) * 2 / 3;
    let want_line = format!("{}\n", log.first_at_or_after(probe).unwrap() + 1);
    let (a, b) = log.range(Some(probe), Some(until)).unwrap();
    let want_lines = log.bytes(a, b).to_vec();
    let mut flips = 0;
    let mut at = time_page * page;
    while at < good.len() {
        let mut bad = good.clone();
        bad[at] ^= 1 << (at % 8);
        std::fs::write(&side, &bad).unwrap();
        let o = lidx(&["verify", f]);
        assert_eq!(o.code, 2, "flip at {at} not detected by verify");
        let o = lidx(&["line-at-time", "--no-build", f, &rfc3339(probe)]);
        assert!(
            o.code == 2 || (o.code == 0 && o.stdout_str() == want_line),
            "flip at {at}: line-at-time gave {:?} ({})",
            o.stdout_str(),
            o.stderr
        );
        let o = lidx(&[
            "lines",
            "--no-build",
            f,
            "--since",
            &rfc3339(probe),
            "--until",
            &rfc3339(until),
        ]);
        assert!(
            o.code == 2 || (o.code == 0 && o.stdout == want_lines),
            "flip at {at}: lines gave {} bytes ({})",
            o.stdout.len(),
            o.stderr
        );
        flips += 1;
        at += 61 + rng.below(40) as usize;
    }
    assert!(flips > 50, "{flips} flips");
    std::fs::write(&side, &good).unwrap();
    assert_eq!(lidx(&["verify", f]).code, 0);
}

/// A sorted RFC 3339 log: `awk` string comparison on the first field is
/// time order, so awk's window is the oracle.
#[test]
fn awk_windows_on_a_sorted_log() {
    // mawk answers neither --version nor -V: ask it to run a program.
    let awk_runs = std::process::Command::new("awk")
        .arg("BEGIN { exit 0 }")
        .status()
        .is_ok_and(|s| s.success());
    if !awk_runs {
        crate::run::missing_tool("awk not found: awk windows of the time index");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(31);
    let mut log = Log::default();
    generate(
        &mut log,
        &mut rng,
        Fmt::IsoZ,
        Shape {
            unstamped: 0,
            ..IN_ORDER
        },
        t0(),
        3000,
    );
    let file = write(dir.path(), "sorted.log", &log.text);
    let f = file.to_str().unwrap();
    index(&file, Fmt::IsoZ, "1024");
    let (lo, hi) = log.extremes().unwrap();
    for _ in 0..12 {
        let s = lo + rng.below((hi - lo) as u64) as i64;
        let u = s + rng.below(((hi - lo) / 4) as u64) as i64;
        // Stamps and bounds with the same width: microseconds.
        let (ss, us) = (s - s % 1000, u - u % 1000);
        let fixed = |t: i64| {
            let r = rfc3339(t - t % NS);
            format!("{}.{:06}Z", &r[..r.len() - 1], t.rem_euclid(NS) / 1000)
        };
        let awk = std::process::Command::new("awk")
            .args([
                "-v",
                &format!("s={}", fixed(ss)),
                "-v",
                &format!("u={}", fixed(us)),
            ])
            .arg("$1 >= s && $1 < u")
            .arg(f)
            .output()
            .unwrap();
        let o = lidx(&["lines", f, "--since", &fixed(ss), "--until", &fixed(us)]);
        assert_eq!(o.stdout, awk.stdout, "{} .. {}", fixed(ss), fixed(us));
        let first = std::process::Command::new("awk")
            .args(["-v", &format!("s={}", fixed(ss))])
            .arg("$1 >= s { print NR; exit }")
            .arg(f)
            .output()
            .unwrap();
        let o = lidx(&["line-at-time", f, &fixed(ss)]);
        assert_eq!(o.stdout, first.stdout, "{}", fixed(ss));
    }
}

/// lnav's own time filter on a sorted log (its `:hide-lines-after` keeps
/// lines at the bound, so it is given the second before `--until`).
#[test]
fn lnav_hides_what_since_and_until_leave_out() {
    if !have_tool("lnav", "lnav's time filter against --since/--until") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(37);
    let mut log = Log::default();
    let mut clock = t0();
    for i in 0..1500 {
        clock += (1 + rng.below(20) as i64) * NS;
        let (y, mo, d, h, mi, s) = civil(clock / NS);
        log.push(
            &format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z INFO worker {i} done"),
            Some(clock),
        );
    }
    let file = write(dir.path(), "lnav.log", &log.text);
    let f = file.to_str().unwrap();
    index(&file, Fmt::IsoZ, "4096");
    let (lo, hi) = log.extremes().unwrap();
    for _ in 0..4 {
        let s = lo + rng.below((hi - lo) as u64) as i64 / NS * NS;
        let u = s + (60 + rng.below(3600) as i64) * NS;
        let plain = |t: i64| rfc3339(t).trim_end_matches('Z').to_string();
        let out = std::process::Command::new("lnav")
            .env("TZ", "UTC")
            .env("HOME", dir.path())
            .args(["-n", "-c"])
            .arg(format!(":hide-lines-before {}", plain(s)))
            .arg("-c")
            .arg(format!(":hide-lines-after {}", plain(u - NS)))
            .arg(f)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "lnav: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let o = lidx(&["lines", f, "--since", &rfc3339(s), "--until", &rfc3339(u)]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&out.stdout),
            "{} .. {}",
            rfc3339(s),
            rfc3339(u)
        );
    }
}

/// A damaged archive keeps the lines of the members before the damage
/// (spec §7): the time index built in memory covers exactly those (the
/// time pass goes back to the last member that checked), and time
/// queries answer as the oracle does on them.
#[test]
fn a_damaged_archive_answers_time_queries_on_the_lines_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(41);
    let mut log = Log::default();
    let shape = Shape {
        jitter_ms: 2000,
        ..IN_ORDER
    };
    generate(&mut log, &mut rng, Fmt::IsoZ, shape, t0(), 3000);
    let cut = log.starts[1500];
    let mut gz = Vec::new();
    for part in [&log.text[..cut], &log.text[cut..]] {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        std::io::Write::write_all(&mut e, part).unwrap();
        gz.extend(e.finish().unwrap());
    }
    // The second member's CRC-32 no longer matches its text.
    let n = gz.len();
    gz[n - 8] ^= 0xff;
    let file = write(dir.path(), "damaged.log.gz", &gz);
    let f = file.to_str().unwrap();
    let kept = Log {
        text: log.text[..cut].to_vec(),
        starts: log.starts[..=1500].to_vec(),
        times: log.times[..1500].to_vec(),
    };
    let (lo, hi) = kept.extremes().unwrap();
    for k in 0..12 {
        let t = lo + (hi - lo) / 12 * k;
        let o = lidx(&["line-at-time", f, "--tz", "UTC", &rfc3339(t)]);
        let want = kept.first_at_or_after(t).unwrap() + 1;
        assert_eq!(o.stdout_str(), format!("{want}\n"), "{}", o.stderr);
        let u = t + (hi - lo) / 20;
        let o = lidx(&["lines", f, "--since", &rfc3339(t), "--until", &rfc3339(u)]);
        let (a, b) = kept.range(Some(t), Some(u)).unwrap();
        assert!(o.stdout == kept.bytes(a, b), "{}", o.stderr);
    }
}

/// A seekable zstd archive of `lidx pack`: time queries answer as for its
/// text, and archives appended to it extend the sidecar, time index
/// included, to what a fresh build writes.
#[test]
fn zstd_seekable_sources_answer_and_extend() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(23);
    let mut log = Log::default();
    let shape = Shape {
        jitter_ms: 5000,
        step_back: 2,
        ..IN_ORDER
    };
    let mut clock = generate(&mut log, &mut rng, Fmt::IsoZ, shape, t0(), 3000);
    let pack = |text: &[u8], name: &str| -> Vec<u8> {
        let plain = write(dir.path(), &format!("{name}.txt"), text);
        let out = dir.path().join(format!("{name}.zst"));
        let o = lidx(&[
            "pack",
            "-q",
            "--frame",
            "6000",
            "--spacing",
            "2000",
            "-o",
            out.to_str().unwrap(),
            plain.to_str().unwrap(),
        ]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        std::fs::read(&out).unwrap()
    };
    let file = write(dir.path(), "app.log.zst", &pack(&log.text, "first"));
    index(&file, Fmt::IsoZ, "2000");
    check_info(&file, Fmt::IsoZ, &log);
    check_queries(&file, &log, &mut rng, "zstd");
    for round in 0..3 {
        let before = log.text.len();
        clock = generate(
            &mut log,
            &mut rng,
            Fmt::IsoZ,
            shape,
            clock,
            500 + 300 * round,
        );
        let more = pack(&log.text[before..], &format!("more{round}"));
        append(&file, &more);
        let opened = lidx::OpenOptions::new().open(&file).unwrap();
        assert_eq!(opened.action, lidx::Action::Extended, "append {round}");
        drop(opened);
        check_queries(&file, &log, &mut rng, &format!("zstd append {round}"));
    }
    let o = lidx(&["verify", "--full", file.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_fresh_build(&file, "2000");
}

/// `lidx index --time ARGS FILE` on `text`: its exit code and stderr.
fn index_text(dir: &Path, name: &str, text: &str, args: &[&str]) -> (PathBuf, Out) {
    let file = write(dir, name, text.as_bytes());
    let f = std::fs::File::options().write(true).open(&file).unwrap();
    f.set_modified(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(utc(2026, 12, 1, 0, 0, 0) as u64),
    )
    .unwrap();
    drop(f);
    let mut a = vec!["index", "--time", "--spacing", "1024"];
    a.extend_from_slice(args);
    a.push(file.to_str().unwrap());
    let o = lidx_with(&a, Rules::SILENT_ERROR);
    (file, o)
}

/// Issue 21, item 2: a format that reads something other than the stamps
/// (a sequence number as epoch seconds, random numbers) is refused with
/// the reason, never used; unplaced, `%s` finds the field where the
/// stamps are, and a value starting with `-` is a format, not an option.
#[test]
fn implausible_times_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut seq = String::new();
    let mut random = String::new();
    let mut rng = Rng::new(21);
    for i in 0..400u64 {
        seq.push_str(&format!(
            "{} node-{} action start {} 1 x\n",
            134_681 + i,
            i % 300,
            1_077_804_742 + i
        ));
        random.push_str(&format!(
            "{} worker {i}\n",
            1_000_000_000 + rng.below(900_000_000)
        ));
    }
    let (_, o) = index_text(
        dir.path(),
        "seq.log",
        &seq,
        &["--time-format", "strptime:%s"],
    );
    assert_eq!(o.code, 2, "{}", o.stdout_str());
    assert!(
        o.stderr.contains("seq.log")
            && o.stderr.contains("implausible")
            && o.stderr.contains("before 1980"),
        "{}",
        o.stderr
    );
    let (file, o) = index_text(dir.path(), "seq2.log", &seq, &["--time-format", "%s"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let f = file.to_str().unwrap();
    let o = lidx(&["line-at-time", f, "@1077804800"]);
    assert_eq!(o.stdout_str(), "59\n", "{}", o.stderr);
    let o = lidx(&["info", "--json", f]);
    assert!(
        o.stdout_str().contains("\"format\":\"strptime@4:%s\""),
        "{}",
        o.stdout_str()
    );
    let (_, o) = index_text(
        dir.path(),
        "random.log",
        &random,
        &["--time-format", "epoch-s"],
    );
    assert_eq!(o.code, 2, "{}", o.stdout_str());
    assert!(o.stderr.contains("jump by more than a day"), "{}", o.stderr);
    // A format that no line has: refused, not an index that matches nothing.
    let (_, o) = index_text(dir.path(), "none.log", &seq, &["--time-format", "%d.%m.%Y"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("none of the first"), "{}", o.stderr);
    // `- %s` (BGL) is the format's value, not an option.
    let bgl: String = (0..50)
        .map(|i| {
            format!(
                "- {} 2005.06.03 R02-M1 RAS KERNEL INFO {i}\n",
                1_117_838_570 + 60 * i
            )
        })
        .collect();
    let (file, o) = index_text(dir.path(), "bgl.log", &bgl, &["--time-format", "- %s"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = lidx(&["line-at-time", file.to_str().unwrap(), "@1117838631"]);
    assert_eq!(o.stdout_str(), "3\n", "{}", o.stderr);
}

/// Issue 21, item 10: a stamp followed by a zone abbreviation that the
/// index's zone contradicts is refused (it would be hours off); one the
/// zone agrees with is read.
#[test]
fn zone_abbreviations_must_agree_with_the_zone() {
    let dir = tempfile::tempdir().unwrap();
    let pst: String = (0..100)
        .map(|i| {
            format!(
                "2026-11-30 08:{:02}:{:02}.123 PST [123] LOG: worker {i}\n",
                i / 60,
                i % 60
            )
        })
        .collect();
    let (_, o) = index_text(dir.path(), "utc.log", &pst, &["--tz", "UTC"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("line 1:")
            && o.stderr.contains("PST (-08:00)")
            && o.stderr.contains("--tz"),
        "{}",
        o.stderr
    );
    let (file, o) = index_text(dir.path(), "la.log", &pst, &["--tz", "America/Los_Angeles"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // 08:00:30 PST is 16:00:30Z.
    let o = lidx(&[
        "line-at-time",
        file.to_str().unwrap(),
        "2026-11-30T16:00:30Z",
    ]);
    assert_eq!(o.stdout_str(), "31\n", "{}", o.stderr);
    // PDT in November is not Los Angeles' time then: an hour off.
    let pdt = pst.replace(" PST ", " PDT ");
    let (_, o) = index_text(
        dir.path(),
        "pdt.log",
        &pdt,
        &["--tz", "America/Los_Angeles"],
    );
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("PDT") && o.stderr.contains("PST"),
        "{}",
        o.stderr
    );
    // A level word after a stamp is not a zone.
    let info = pst.replace(" PST ", " INFO ");
    let (_, o) = index_text(dir.path(), "info.log", &info, &["--tz", "UTC"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// Issue 21, item 8: a log that is mostly stack trace is detected by the
/// lines that begin its records.
#[test]
fn logs_of_stack_traces_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..60 {
        text.push_str(&format!(
            "[2026-11-30 08:{:02}:00] local.ERROR: boom {{\"exception\":\"x\"}}\n[stacktrace]\n",
            i % 60
        ));
        for k in 0..40 {
            text.push_str(&format!(
                "#{k} /var/www/vendor/laravel/framework/src/Foo.php({k}): x\n"
            ));
        }
        text.push_str("\"}\n");
    }
    let (file, o) = index_text(dir.path(), "laravel.log", &text, &["--tz", "UTC"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = lidx(&[
        "line-at-time",
        file.to_str().unwrap(),
        "2026-11-30T08:01:00Z",
    ]);
    assert_eq!(o.stdout_str(), "44\n", "{}", o.stderr);
}
