//! Every way of opening an index × every verdict a sidecar can have: each
//! query either answers exactly as a naive model of the file as it is now
//! (or, for a source that only grew, of the part that was indexed), or
//! fails with the error that says why. Never an answer about bytes the
//! sidecar does not describe (issue 21, item 1: an inspected foreign
//! sidecar used to read another file's bytes at its own offsets).

use lidx::search::{Line, Matcher, MatcherOptions, ScanOptions, Sink};
use lidx::{Action, Error, Index, OpenOptions, Verdict};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How the source relates to its sidecar when it is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Unchanged,
    Appended,
    /// New content of another size.
    Rewritten,
    /// Another file's sidecar copied next to this one.
    Foreign,
    /// Only the modification time differs.
    Touched,
    /// Same size, head and tail; other bytes in the middle; new mtime.
    MiddleChanged,
}

const CASES: [Case; 6] = [
    Case::Unchanged,
    Case::Appended,
    Case::Rewritten,
    Case::Foreign,
    Case::Touched,
    Case::MiddleChanged,
];

/// How the index is opened (the C ABI's policies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    Refresh,
    NoRefresh,
    Force,
    Inspect,
}

const POLICIES: [Policy; 4] = [
    Policy::Refresh,
    Policy::NoRefresh,
    Policy::Force,
    Policy::Inspect,
];

/// `n` lines of about 40 bytes: 300 KiB for 8000, more than the head and
/// tail blocks the fingerprint reads (64 KiB each).
fn text(word: &str, n: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for i in 1..=n {
        v.extend_from_slice(format!("{word} {i:06} {}\n", "x".repeat(i % 23)).as_bytes());
    }
    v
}

fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    if bytes.is_empty() {
        out.clear();
    }
    out
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// Sets up `case` in `dir`; returns the path to open and the bytes it now
/// holds.
fn prepare(dir: &Path, case: Case) -> (PathBuf, Vec<u8>) {
    let path = dir.join("b.log");
    let original = text("bravo-bravo", 8000);
    let past = SystemTime::now() - Duration::from_secs(3600);
    if case == Case::Foreign {
        let a = dir.join("a.log");
        std::fs::write(&a, text("alpha", 6000)).unwrap();
        OpenOptions::new().open(&a).unwrap();
        std::fs::copy(dir.join("a.log.lidx"), dir.join("b.log.lidx")).unwrap();
        std::fs::write(&path, &original).unwrap();
        return (path, original);
    }
    std::fs::write(&path, &original).unwrap();
    set_mtime(&path, past);
    OpenOptions::new().open(&path).unwrap();
    let now = match case {
        Case::Unchanged => original,
        Case::Appended => {
            let mut v = original;
            v.extend_from_slice(b"appended one\nappended two\n");
            v
        }
        Case::Rewritten => text("charlie", 7000),
        Case::Touched => original,
        Case::MiddleChanged => {
            let mut v = original;
            let mid = v.len() / 2;
            // Same length, one more line: a digit of a line number in the
            // middle becomes a newline. (Bytes changed without moving a
            // line start leave every answer of the line index exact: the
            // content check accepts them, see `Touched`.)
            let at = mid + v[mid..].iter().position(|&b| b == b'0').unwrap();
            v[at] = b'\n';
            v
        }
        Case::Foreign => unreachable!(),
    };
    if case != Case::Unchanged {
        std::fs::write(&path, &now).unwrap();
        set_mtime(&path, past + Duration::from_secs(60));
    }
    (path, now)
}

/// What opening should give.
#[derive(Debug, PartialEq, Eq)]
enum Opens {
    /// An index that answers about all of the file as it is now.
    Current,
    /// An index that answers about the first lines, as indexed.
    Prefix,
    /// An index whose every query fails with this error kind.
    Refuses(&'static str),
    /// Opening fails with this error kind.
    Fails(&'static str),
}

fn expected(policy: Policy, case: Case) -> Opens {
    use Case::*;
    use Opens::*;
    match (policy, case) {
        (Policy::Force, _) => Current,
        (_, Unchanged) => Current,
        (Policy::Refresh, Foreign) | (Policy::NoRefresh, Foreign) => Fails("foreign"),
        (Policy::Refresh, _) => Current,
        (Policy::NoRefresh, Touched) => Current,
        (Policy::NoRefresh, _) => Fails("stale"),
        (Policy::Inspect, Appended) => Prefix,
        (Policy::Inspect, Foreign) => Refuses("foreign"),
        (Policy::Inspect, _) => Refuses("stale"),
    }
}

fn kind(e: &Error) -> &'static str {
    match e {
        Error::Foreign { .. } => "foreign",
        Error::Stale { .. } => "stale",
        e => panic!("unexpected error: {e}"),
    }
}

fn open(policy: Policy, path: &Path) -> lidx::Result<Index> {
    let mut oo = OpenOptions::new();
    match policy {
        Policy::Refresh => {}
        Policy::NoRefresh => {
            oo.refresh(false);
        }
        Policy::Force => {
            oo.force(true);
        }
        Policy::Inspect => return oo.inspect(path),
    }
    oo.open(path).map(|o| o.index)
}

struct Collect(Vec<(u64, Vec<u8>)>);

impl Sink for Collect {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.0.push((l.number, l.bytes.to_vec()));
        Ok(true)
    }
}

/// Every kind of query, each returning its answer or its error kind.
fn queries(index: &Index, model: &[&[u8]]) -> Vec<Result<(), String>> {
    let n = index.line_count();
    let picks = [0, 1, n / 3, n / 2, n.saturating_sub(1)];
    // The model as long as the index says (an empty line past its end: a
    // refused query never compares; an answer there is wrong).
    let empty: &[u8] = b"";
    let mut model = model.to_vec();
    model.resize(model.len().max(n as usize), empty);
    let model = &model[..];
    let mut out = Vec::new();
    let offsets: Vec<u64> = {
        let mut at = 0u64;
        model
            .iter()
            .map(|l| {
                let s = at;
                at += l.len() as u64;
                s
            })
            .collect()
    };
    for &line in &picks {
        let i = line as usize;
        out.push(match index.line_span(line) {
            Ok(span) => {
                let want = offsets[i]..offsets[i] + model[i].len() as u64;
                (span == want)
                    .then_some(())
                    .ok_or(format!("line_span({line}) = {span:?}, want {want:?}"))
            }
            Err(e) => Err(kind(&e).to_string()),
        });
        let mut buf = lidx::LineBuf::new();
        out.push(match index.read_lines(line..(line + 3).min(n), &mut buf) {
            Ok(_) => {
                let got: Vec<&[u8]> = (0..buf.len())
                    .map(|k| buf.line_with_terminator(k))
                    .collect();
                let want = &model[i..(i + 3).min(n as usize)];
                (got == want).then_some(()).ok_or(format!(
                    "read_lines({line}) = {:?}, want {:?}",
                    got.iter()
                        .map(|l| String::from_utf8_lossy(l))
                        .collect::<Vec<_>>(),
                    want.iter()
                        .map(|l| String::from_utf8_lossy(l))
                        .collect::<Vec<_>>()
                ))
            }
            Err(e) => Err(kind(&e).to_string()),
        });
        let off = offsets[i] + model[i].len() as u64 / 2;
        out.push(match index.line_at(off) {
            Ok(got) => (got == line)
                .then_some(())
                .ok_or(format!("line_at({off}) = {got}, want {line}")),
            Err(e) => Err(kind(&e).to_string()),
        });
    }
    let m = Matcher::new(&["0042".to_string()], &MatcherOptions::default()).unwrap();
    let mut hits = Collect(Vec::new());
    out.push(
        match index.search(0..n, &m, &ScanOptions::default(), &mut hits) {
            Ok(_) => {
                let want: Vec<(u64, Vec<u8>)> = model
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.windows(4).any(|w| w == b"0042"))
                    .map(|(k, l)| (k as u64, l.to_vec()))
                    .collect();
                (hits.0 == want).then_some(()).ok_or(format!(
                    "search: {} hits, want {}",
                    hits.0.len(),
                    want.len()
                ))
            }
            Err(e) => Err(kind(&e).to_string()),
        },
    );
    let mut bytes = vec![0u8; 100];
    out.push(match index.source().read_exact_at(&mut bytes, 1000) {
        Ok(()) => Ok(()),
        Err(e) => Err(kind(&e).to_string()),
    });
    out
}

#[test]
fn every_policy_and_verdict_answers_exactly_or_refuses() {
    let mut failures = Vec::new();
    for policy in POLICIES {
        for case in CASES {
            let dir = tempfile::tempdir().unwrap();
            let (path, now) = prepare(dir.path(), case);
            let model = lines_of(&now);
            let want = expected(policy, case);
            let what = format!("{policy:?} × {case:?}");
            match (open(policy, &path), &want) {
                (Err(e), Opens::Fails(k)) if kind(&e) == *k => {}
                (Err(e), _) => failures.push(format!("{what}: open failed: {e}; want {want:?}")),
                (Ok(_), Opens::Fails(k)) => {
                    failures.push(format!("{what}: opened; want a {k} error"))
                }
                (Ok(index), Opens::Current | Opens::Prefix) => {
                    let n = index.line_count() as usize;
                    let expect_n = if want == Opens::Current {
                        model.len()
                    } else {
                        8000
                    };
                    if n != expect_n {
                        failures.push(format!("{what}: {n} lines, want {expect_n}"));
                        continue;
                    }
                    for r in queries(&index, &model[..n]) {
                        if let Err(e) = r {
                            failures.push(format!("{what}: {e}"));
                        }
                    }
                }
                (Ok(index), Opens::Refuses(k)) => {
                    for r in queries(&index, &model) {
                        match r {
                            Err(e) if e == *k => {}
                            Err(e) => failures.push(format!("{what}: {e}; want a {k} error")),
                            Ok(()) => failures.push(format!("{what}: answered; want a {k} error")),
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_content_check_lifts_or_confirms_the_refusal() {
    for (case, after) in [
        (Case::Touched, Verdict::Unchanged),
        (Case::MiddleChanged, Verdict::Rewritten),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (path, now) = prepare(dir.path(), case);
        let model = lines_of(&now);
        let mut index = OpenOptions::new().inspect(&path).unwrap();
        assert_eq!(index.verdict(), Verdict::Unverified, "{case:?}");
        assert!(matches!(index.line_span(5), Err(Error::Stale { .. })));
        assert_eq!(index.verify_content(&mut |_, _| true).unwrap(), after);
        let results = queries(&index, &model);
        match after {
            Verdict::Unchanged => assert!(results.iter().all(|r| r.is_ok()), "{results:?}"),
            _ => assert!(
                results
                    .iter()
                    .all(|r| r.as_ref().err().map(String::as_str) == Some("stale")),
                "{results:?}"
            ),
        }
    }
}

#[test]
fn refresh_reports_what_it_did() {
    for (case, action) in [
        (Case::Unchanged, Action::Opened),
        (Case::Appended, Action::Extended),
        (Case::Touched, Action::Verified),
        (Case::Rewritten, Action::Rebuilt(Verdict::Rewritten)),
        (Case::MiddleChanged, Action::Rebuilt(Verdict::Rewritten)),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = prepare(dir.path(), case);
        let got = OpenOptions::new().open(&path).unwrap().action;
        assert_eq!(got, action, "{case:?}");
    }
}

#[test]
fn a_changed_stamp_under_the_same_lines_is_a_changed_file() {
    // Same size, head, tail and line starts; one stamp in the middle is
    // an hour later; only the modification time tells. The line index
    // alone would answer exactly; the time index would not.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.log");
    let mut v = Vec::new();
    for i in 0..8000u32 {
        let (h, m, s) = (i / 3600, i / 60 % 60, i % 60);
        v.extend_from_slice(format!("2026-01-01T{h:02}:{m:02}:{s:02}Z event {i:05}\n").as_bytes());
    }
    std::fs::write(&path, &v).unwrap();
    let past = SystemTime::now() - Duration::from_secs(3600);
    set_mtime(&path, past);
    let time = lidx::TimeOptions {
        format: None,
        tz: Some("UTC".into()),
    };
    OpenOptions::new().time(time.clone()).open(&path).unwrap();
    let line = 4000usize;
    let start = v
        .split_inclusive(|&b| b == b'\n')
        .take(line)
        .map(|l| l.len())
        .sum::<usize>();
    // 01:06:40 -> 03:06:40
    assert_eq!(&v[start + 11..start + 13], b"01");
    v[start + 12] = b'3';
    std::fs::write(&path, &v).unwrap();
    set_mtime(&path, past + Duration::from_secs(60));

    let mut index = OpenOptions::new().inspect(&path).unwrap();
    assert_eq!(index.verdict(), Verdict::Unverified);
    assert!(matches!(index.line_at_time(0), Err(Error::Stale { .. })));
    assert_eq!(
        index.verify_content(&mut |_, _| true).unwrap(),
        Verdict::Rewritten
    );
    assert!(matches!(index.line_at_time(0), Err(Error::Stale { .. })));
    // Opened to query, it is rebuilt, and the moved stamp is found.
    let opened = OpenOptions::new().time(time).open(&path).unwrap();
    assert_eq!(opened.action, Action::Rebuilt(Verdict::Rewritten));
    // 2026-01-01T03:06:40Z
    let t = (1_767_225_600 + 3 * 3600 + 6 * 60 + 40) * 1_000_000_000;
    assert_eq!(opened.index.line_at_time(t).unwrap(), line as u64);
}

#[test]
fn asking_for_plain_bytes_never_uses_an_archive_sidecar() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.log.gz");
    let text = text("gz", 3000);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&text).unwrap();
    let gz = enc.finish().unwrap();
    std::fs::write(&path, &gz).unwrap();
    // The archive's text is indexed.
    let opened = OpenOptions::new().open(&path).unwrap();
    assert_eq!(opened.index.line_count(), 3000);
    let sidecar = std::fs::read(dir.path().join("app.log.gz.lidx")).unwrap();
    // Asked for its bytes, every policy but force refuses the sidecar and
    // leaves it as it was.
    for policy in [Policy::Refresh, Policy::NoRefresh, Policy::Inspect] {
        let mut oo = OpenOptions::new();
        oo.plain(true);
        let r = match policy {
            Policy::Inspect => oo.inspect(&path),
            Policy::NoRefresh => oo.refresh(false).open(&path).map(|o| o.index),
            _ => oo.open(&path).map(|o| o.index),
        };
        match r {
            Err(Error::InvalidArgument(m)) => {
                assert!(
                    m.contains("gzip archive") && m.contains("app.log.gz.lidx"),
                    "{m}"
                )
            }
            other => panic!("{policy:?}: {other:?}"),
        }
        assert_eq!(
            std::fs::read(dir.path().join("app.log.gz.lidx")).unwrap(),
            sidecar
        );
    }
    // Forced, it is rebuilt over the bytes: the lines of the compressed
    // data, as `grep -c ''` counts them.
    let opened = OpenOptions::new()
        .plain(true)
        .force(true)
        .open(&path)
        .unwrap();
    let model = lines_of(&gz);
    assert_eq!(opened.index.line_count(), model.len() as u64);
    assert_eq!(opened.index.source_len(), gz.len() as u64);
    let mut buf = lidx::LineBuf::new();
    opened.index.read_lines(0..1, &mut buf).unwrap();
    assert_eq!(buf.line_with_terminator(0), model[0]);
    // Another sidecar for the bytes leaves the archive's alone.
    let bytes_side = dir.path().join("bytes.lidx");
    std::fs::write(dir.path().join("app.log.gz.lidx"), &sidecar).unwrap();
    let opened = OpenOptions::new()
        .plain(true)
        .sidecar(&bytes_side)
        .open(&path)
        .unwrap();
    assert_eq!(opened.index.source_len(), gz.len() as u64);
    let opened = OpenOptions::new().open(&path).unwrap();
    assert_eq!(opened.action, Action::Opened);
    assert_eq!(opened.index.line_count(), 3000);
}
