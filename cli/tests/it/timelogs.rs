//! The time index on real logs: excerpts of loghub's sixteen `*_2k.log`
//! samples and of lnav's test logs (`cli/tests/timelogs/`, provenance and
//! licences in its `NOTICE.md`), each indexed with the arguments of
//! `cases.tsv`, checked against `expected/NAME.times`: every line's own
//! stamp (UTC nanoseconds, or `-`), computed by `oracle.py` from the
//! formats' descriptions without lidx and cross-checked against loghub's
//! structured CSVs.
//!
//! The oracle here is naive: a line's time is its own stamp, else the
//! stamp of the nearest stamped line before it, else none. Every distinct
//! stamp, each ± 1 ns, and instants before the first and after the last
//! are asked of `lidx line-at-time` (the smallest line whose time is ≥ T,
//! exit 1 when none); a few `lidx lines --since S --until U` windows must
//! print exactly the lines from the first at or after S through the last
//! before U; `lidx info --json` must name the format (when `cases.tsv`
//! says which) and the earliest and latest time. All files run; the test
//! then fails with a summary naming each failing file and its first
//! mismatches.

use crate::oracle;
use crate::run::BIN;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const NS: i64 = 1_000_000_000;
/// Mismatches kept per file for the report (all are counted).
const KEEP: usize = 12;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/timelogs")
}

/// A row of `cases.tsv`.
#[derive(Debug, Clone)]
struct Case {
    file: String,
    args: Vec<String>,
    /// Seconds since the epoch.
    mtime: i64,
    /// `auto:NAME`, another name, or `-` (not checked).
    format: String,
}

/// Splits `s` at spaces, with `'...'` quoting (as the shell would).
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut word = false;
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                word = true;
            }
            ' ' | '\t' if !quoted => {
                if word {
                    out.push(std::mem::take(&mut cur));
                }
                word = false;
            }
            _ => {
                cur.push(c);
                word = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quote in {s:?}");
    if word {
        out.push(cur);
    }
    out
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DDTHH:MM:SS[.F]Z` as nanoseconds since the epoch.
fn parse_utc(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse().ok() };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !s.ends_with('Z') {
        return None;
    }
    let secs = days_from_civil(num(0..4)?, num(5..7)?, num(8..10)?) * 86_400
        + num(11..13)? * 3600
        + num(14..16)? * 60
        + num(17..19)?;
    let frac = &s[19..s.len() - 1];
    let ns = match frac.strip_prefix('.') {
        None if frac.is_empty() => 0,
        Some(d) if (1..=9).contains(&d.len()) && d.bytes().all(|c| c.is_ascii_digit()) => {
            format!("{d:0<9}").parse().ok()?
        }
        _ => return None,
    };
    Some(secs * NS + ns)
}

/// An instant for messages: RFC 3339 UTC with nine fraction digits.
fn show(t: i64) -> String {
    let secs = t.div_euclid(NS);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // civil_from_days (Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:09}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        t.rem_euclid(NS)
    )
}

/// The argument that asks for instant `t`: `@SECONDS.NANOS`.
fn at(t: i64) -> String {
    format!("@{}.{:09}", t.div_euclid(NS), t.rem_euclid(NS))
}

fn read_cases() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus().join("cases.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "cases.tsv: {l:?}");
            Case {
                file: f[0].to_string(),
                args: split_args(f[1]),
                mtime: parse_utc(f[2]).unwrap_or_else(|| panic!("cases.tsv: mtime {:?}", f[2]))
                    / NS,
                format: f[3].to_string(),
            }
        })
        .collect()
}

/// A log and the oracle's view of it.
struct Log {
    text: Vec<u8>,
    /// Line starts, and one past the end.
    starts: Vec<usize>,
    /// Each line's own stamp.
    own: Vec<Option<i64>>,
    /// Each line's time: its own stamp, else the last one before it.
    time: Vec<Option<i64>>,
}

impl Log {
    fn load(case: &Case) -> Log {
        let text = std::fs::read(corpus().join(&case.file)).unwrap();
        let mut starts = vec![0];
        for (i, &b) in text.iter().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        if *starts.last().unwrap() != text.len() {
            starts.push(text.len());
        }
        let times = std::fs::read_to_string(
            corpus()
                .join("expected")
                .join(format!("{}.times", case.file)),
        )
        .unwrap();
        let own: Vec<Option<i64>> = times
            .lines()
            .map(|l| match l {
                "-" => None,
                n => Some(n.parse().unwrap_or_else(|_| panic!("{}: {l:?}", case.file))),
            })
            .collect();
        assert_eq!(
            own.len(),
            starts.len() - 1,
            "{}: expected times for every line",
            case.file
        );
        let mut last = None;
        let time = own
            .iter()
            .map(|&t| {
                last = t.or(last);
                last
            })
            .collect();
        Log {
            text,
            starts,
            own,
            time,
        }
    }

    fn first_at_or_after(&self, t: i64) -> Option<usize> {
        oracle::first_at_or_after(&self.time, t)
    }

    fn range(&self, since: Option<i64>, until: Option<i64>) -> Option<(usize, usize)> {
        oracle::time_range(&self.time, since, until)
    }

    fn bytes(&self, a: usize, b: usize) -> &[u8] {
        &self.text[self.starts[a]..self.starts[b + 1]]
    }

    /// Line `i` (0-based) for a message: its number, the oracle's time
    /// for it, its start.
    fn describe(&self, i: usize) -> String {
        let line = String::from_utf8_lossy(self.bytes(i, i));
        let line = line.trim_end();
        let cut: String = line.chars().take(72).collect();
        let time = match (self.own[i], self.time[i]) {
            (Some(t), _) => format!("oracle: stamp {}", show(t)),
            (None, Some(t)) => format!("oracle: no stamp, time {} from above", show(t)),
            (None, None) => "oracle: no time".to_string(),
        };
        format!("line {} ({time}): {cut:?}", i + 1)
    }

    /// Sorted distinct stamps.
    fn stamps(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.own.iter().flatten().copied().collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// What a run printed.
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

fn lidx(args: &[String]) -> Run {
    let o = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .env("RUST_BACKTRACE", "1")
        .env("LC_ALL", "C")
        .output()
        .expect("run lidx");
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A message for a run that broke a rule of every run (a panic, a status
/// other than 0, 1 or 2), if it did.
fn broken(r: &Run) -> Option<String> {
    let bad = ["panicked", "RUST_BACKTRACE", "backtrace", "internal error"];
    if !(0..=2).contains(&r.code) || bad.iter().any(|b| r.stderr.contains(b)) {
        return Some(format!("exit {}, stderr {:?}", r.code, r.stderr.trim_end()));
    }
    None
}

enum Query {
    At(i64),
    Lines(Option<i64>, Option<i64>),
}

impl Query {
    fn args(&self, file: &str) -> Vec<String> {
        let mut v: Vec<String> = match self {
            Query::At(t) => vec!["line-at-time".into(), file.into(), at(*t)],
            Query::Lines(s, u) => {
                let mut v = vec!["lines".to_string(), file.to_string()];
                if let Some(s) = s {
                    v.extend(["--since".to_string(), at(*s)]);
                }
                if let Some(u) = u {
                    v.extend(["--until".to_string(), at(*u)]);
                }
                v
            }
        };
        v.push("--no-build".into());
        v
    }

    /// A mismatch between `r` and the oracle, if any.
    fn check(&self, log: &Log, r: &Run) -> Option<String> {
        let what = match self {
            Query::At(t) => format!("line-at-time {} ({})", at(*t), show(*t)),
            Query::Lines(s, u) => format!(
                "lines{}{}",
                s.map_or(String::new(), |s| format!(
                    " --since {} ({})",
                    at(s),
                    show(s)
                )),
                u.map_or(String::new(), |u| format!(
                    " --until {} ({})",
                    at(u),
                    show(u)
                ))
            ),
        };
        if let Some(b) = broken(r) {
            return Some(format!("{what}: {b}"));
        }
        let got_line = |r: &Run| -> Option<usize> {
            std::str::from_utf8(&r.stdout)
                .ok()?
                .strip_suffix('\n')?
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1 && n <= log.own.len())
        };
        match self {
            Query::At(t) => match log.first_at_or_after(*t) {
                Some(l) => {
                    if r.code == 0 && r.stdout == format!("{}\n", l + 1).as_bytes() {
                        return None;
                    }
                    let got = match got_line(r) {
                        Some(g) if r.code == 0 => format!("got {}", log.describe(g - 1)),
                        _ => format!(
                            "got exit {} {:?} {:?}",
                            r.code,
                            String::from_utf8_lossy(&r.stdout),
                            r.stderr.trim_end()
                        ),
                    };
                    Some(format!("{what}: want {}; {got}", log.describe(l)))
                }
                None => {
                    if r.code == 1 && r.stdout.is_empty() {
                        return None;
                    }
                    let got = match got_line(r) {
                        Some(g) if r.code == 0 => log.describe(g - 1),
                        _ => format!("exit {} {:?}", r.code, String::from_utf8_lossy(&r.stdout)),
                    };
                    Some(format!("{what}: want no line (exit 1); got {got}"))
                }
            },
            Query::Lines(s, u) => match log.range(*s, *u) {
                Some((a, b)) => {
                    if r.code == 0 && r.stdout == log.bytes(a, b) {
                        return None;
                    }
                    // Which lines came out, if they are whole lines of the file.
                    let got = (0..log.own.len())
                        .find(|&i| r.stdout.starts_with(log.bytes(i, i)) && !r.stdout.is_empty())
                        .and_then(|i| {
                            (i..log.own.len())
                                .find(|&j| log.bytes(i, j) == r.stdout.as_slice())
                                .map(|j| format!("lines {}..={}", i + 1, j + 1))
                        })
                        .unwrap_or_else(|| format!("{} bytes", r.stdout.len()));
                    Some(format!(
                        "{what}: want lines {}..={} (from {}, to {}); got exit {}, {got} {:?}",
                        a + 1,
                        b + 1,
                        log.describe(a),
                        log.describe(b),
                        r.code,
                        r.stderr.trim_end()
                    ))
                }
                None => {
                    if r.code == 1 && r.stdout.is_empty() {
                        return None;
                    }
                    Some(format!(
                        "{what}: want no line (exit 1); got exit {}, {} bytes",
                        r.code,
                        r.stdout.len()
                    ))
                }
            },
        }
    }
}

/// The instants asked of `line-at-time`: every distinct stamp and each
/// ± 1 ns, and some before the first and after the last.
fn probes(stamps: &[i64]) -> Vec<i64> {
    let (lo, hi) = (stamps[0], stamps[stamps.len() - 1]);
    let mut v: Vec<i64> = stamps.iter().flat_map(|&s| [s - 1, s, s + 1]).collect();
    v.extend([
        lo - 86_400 * NS,
        lo - 3600 * NS,
        lo - NS,
        hi + NS,
        hi + 3600 * NS,
        hi + 86_400 * NS,
    ]);
    v.sort_unstable();
    v.dedup();
    v
}

/// The `lines` windows: everything, quartiles (at and just after
/// stamps), one end only, around one stamp, reversed, and empty ones.
fn windows(stamps: &[i64]) -> Vec<(Option<i64>, Option<i64>)> {
    let k = stamps.len();
    let q = |f: usize| stamps[(k - 1) * f / 12];
    let (lo, hi) = (stamps[0], stamps[k - 1]);
    vec![
        (Some(lo), Some(hi + 1)),
        (Some(q(3)), Some(q(9))),
        (Some(q(3) + 1), Some(q(9) + 1)),
        (Some(q(4) - 1), Some(q(4) + 1)),
        (Some(q(6)), None),
        (None, Some(q(6))),
        (Some(q(9)), Some(q(3))),
        (Some(hi + 1), None),
        (None, Some(lo)),
    ]
}

/// What became of one file.
struct Outcome {
    file: String,
    queries: usize,
    mismatches: Vec<String>,
    count: usize,
}

impl Outcome {
    fn fail(&mut self, m: String) {
        self.count += 1;
        if self.mismatches.len() < KEEP {
            self.mismatches.push(m);
        }
    }
}

/// Copies, dates and indexes one file, and checks `info --json`; returns
/// the copy's path when it was indexed.
fn prepare(dir: &Path, case: &Case, log: &Log, out: &mut Outcome) -> Option<String> {
    let path = dir.join(&case.file);
    std::fs::copy(corpus().join(&case.file), &path).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(case.mtime as u64))
        .unwrap();
    drop(f);
    let p = path.to_str().unwrap().to_string();
    let mut args: Vec<String> = ["index", "-q", "--time", "--spacing", "1024"]
        .map(String::from)
        .into();
    args.extend(case.args.iter().cloned());
    args.push(p.clone());
    let r = lidx(&args);
    if let Some(b) = broken(&r) {
        out.fail(format!("lidx {}: {b}", args.join(" ")));
        return None;
    }
    if r.code != 0 {
        out.fail(format!(
            "lidx {}: exit {}: {}",
            args.join(" "),
            r.code,
            r.stderr.trim_end()
        ));
        return None;
    }
    let r = lidx(&["info".into(), "--json".into(), p.clone()]);
    let json: Option<serde_json::Value> = serde_json::from_slice(&r.stdout).ok();
    let Some(time) = json.as_ref().map(|j| &j["time"]).filter(|t| t.is_object()) else {
        out.fail(format!(
            "info --json: no time object (exit {}): {} {}",
            r.code,
            String::from_utf8_lossy(&r.stdout).trim_end(),
            r.stderr.trim_end()
        ));
        return Some(p);
    };
    let name = time["format"].as_str().unwrap_or("");
    let detected = time["detected"].as_bool();
    if case.format != "-" {
        // `auto:NAME`, or NAME with "detected": true.
        let ok = match case.format.strip_prefix("auto:") {
            Some(bare) => name == case.format || (name == bare && detected == Some(true)),
            None => name == case.format,
        };
        if !ok {
            out.fail(format!(
                "info --json: format {name:?} (detected {detected:?}), want {:?}",
                case.format
            ));
        }
    }
    let stamps = log.stamps();
    for (key, want) in [("first", stamps.first()), ("last", stamps.last())] {
        let got = time[key].as_str().and_then(parse_utc);
        if got != want.copied() {
            out.fail(format!(
                "info --json: time.{key} {:?}, want {}",
                time[key],
                want.map_or("none".to_string(), |&t| show(t))
            ));
        }
    }
    Some(p)
}

#[test]
fn real_logs_against_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let cases = read_cases();
    assert!(cases.len() >= 16, "cases.tsv lists {} files", cases.len());
    let logs: Vec<Log> = cases.iter().map(Log::load).collect();
    let mut outcomes: Vec<Outcome> = cases
        .iter()
        .map(|c| Outcome {
            file: c.file.clone(),
            queries: 0,
            mismatches: Vec::new(),
            count: 0,
        })
        .collect();
    // Index every file, then run all queries on a few threads.
    let mut jobs: Vec<(usize, String, Query)> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let log = &logs[i];
        let Some(path) = prepare(dir.path(), case, log, &mut outcomes[i]) else {
            continue;
        };
        let stamps = log.stamps();
        assert!(!stamps.is_empty(), "{}: no stamped line", case.file);
        for t in probes(&stamps) {
            jobs.push((i, path.clone(), Query::At(t)));
        }
        for (s, u) in windows(&stamps) {
            jobs.push((i, path.clone(), Query::Lines(s, u)));
        }
    }
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let results: Vec<(usize, Option<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let j = next.fetch_add(1, Ordering::Relaxed);
                        let Some((i, path, q)) = jobs.get(j) else {
                            break;
                        };
                        let r = lidx(&q.args(path));
                        out.push((j, q.check(&logs[*i], &r)));
                    }
                    out
                })
            })
            .collect();
        let mut all: Vec<_> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        all.sort_by_key(|(j, _)| *j);
        all
    });
    for (j, m) in results {
        let i = jobs[j].0;
        outcomes[i].queries += 1;
        if let Some(m) = m {
            outcomes[i].fail(m);
        }
    }
    let mut report = String::new();
    let mut failing = Vec::new();
    for o in &outcomes {
        let status = if o.count == 0 { "ok" } else { "FAIL" };
        report.push_str(&format!(
            "{status:4} {:28} {} queries, {} mismatches\n",
            o.file, o.queries, o.count
        ));
        if o.count > 0 {
            failing.push(o.file.as_str());
            for m in &o.mismatches {
                report.push_str(&format!("       {m}\n"));
            }
            if o.count > o.mismatches.len() {
                report.push_str(&format!(
                    "       ... {} more\n",
                    o.count - o.mismatches.len()
                ));
            }
        }
    }
    eprintln!("{report}");
    assert!(
        failing.is_empty(),
        "{} of {} files fail: {}\n{report}",
        failing.len(),
        outcomes.len(),
        failing.join(", ")
    );
}
