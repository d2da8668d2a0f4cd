//! Several logs merged by time (`lidx lines --merge`, `--since/--until`
//! over several files, `lidx grep` the same) against an independent
//! oracle: a Python k-way merge (`heapq.merge`, stable: ties keep the
//! order of the files) of each line's time as Python reads the stamps —
//! a line without a stamp takes the last stamp's time before it, lines
//! before the first stamp come first.

use crate::run::{BIN, Out, Rules, checked, have_tool};
use std::path::Path;
use std::process::{Command, Stdio};

/// The oracle: argv = since until regex numbered files...; prints the
/// merged lines as lidx should (`path:` prefix, `N:` when numbered).
const ORACLE: &str = r#"
import heapq, re, sys
from datetime import datetime
since, until, pattern, numbered = sys.argv[1:5]
files = sys.argv[5:]
stamp = re.compile(rb'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)')
def ts(b):
    return datetime.fromisoformat(b.decode().replace('Z', '+00:00')).timestamp()
def read(path, k):
    lines = open(path, 'rb').read().split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    t = None
    rows = []
    for n, l in enumerate(lines):
        m = stamp.match(l)
        if m:
            t = ts(m.group(1))
        rows.append((float('-inf') if t is None else t, k, n, l))
    # The time window is a line range of the file: from the first line at
    # or after since, to the last before until.
    lo, hi = 0, len(rows)
    if since:
        s = ts(since.encode())
        lo = next((i for i, r in enumerate(rows) if r[0] >= s), len(rows))
    if until:
        u = ts(until.encode())
        before = [i for i, r in enumerate(rows) if r[0] < u]
        hi = before[-1] + 1 if before else 0
    return rows[lo:max(hi, lo)]
inputs = [read(p, k) for k, p in enumerate(files)]
out = sys.stdout.buffer
want = re.compile(pattern.encode()) if pattern else None
for t, k, n, l in heapq.merge(*inputs, key=lambda r: r[0]):
    if want and not want.search(l):
        continue
    out.write(files[k].encode() + b':')
    if numbered == '1':
        out.write(b'%d:' % (n + 1))
    out.write(l + b'\n')
"#;

fn oracle(
    d: &Path,
    since: &str,
    until: &str,
    pattern: &str,
    numbered: bool,
    files: &[&str],
) -> String {
    let o = Command::new("python3")
        .current_dir(d)
        .arg("-c")
        .arg(ORACLE)
        .args([since, until, pattern, if numbered { "1" } else { "0" }])
        .args(files)
        .output()
        .expect("run python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn lidx(d: &Path, args: &[&str]) -> Out {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(d).args(args).stdin(Stdio::null());
    checked(cmd, Rules::SILENT_ERROR)
}

/// Three logs: stamps at random steps (equal times across files and
/// within one), continuation lines, a preamble without stamps, one file
/// gzipped; deterministic.
fn logs(d: &Path) -> Vec<&'static str> {
    let mut seed = 0x5eed_u64;
    let mut rand = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let names = ["web.log", "db.log", "queue.log"];
    for (k, name) in names.iter().enumerate() {
        let mut text = String::new();
        if k == 1 {
            text.push_str("preamble without a stamp\n");
        }
        let mut t = 1_764_496_800u64 + rand(30); // 2025-11-30T10:00:00Z
        for i in 0..400 {
            t += rand(4); // steps of 0..3 s: many ties
            text.push_str(&format!(
                "{}Z {name} event {i} {}\n",
                iso(t),
                if rand(5) == 0 { "ERROR" } else { "info" }
            ));
            if rand(7) == 0 {
                text.push_str(&format!("    at frame {i}\n"));
            }
        }
        std::fs::write(d.join(name), text).unwrap();
    }
    // queue.log as a gzip archive, read as its text.
    let o = Command::new("gzip")
        .arg("-k")
        .arg(d.join("queue.log"))
        .status();
    assert!(o.is_ok_and(|s| s.success()));
    vec!["web.log", "db.log", "queue.log.gz"]
}

/// `t` seconds since the epoch as `YYYY-MM-DDTHH:MM:SS` (UTC), by the
/// days-to-civil algorithm.
fn iso(t: u64) -> String {
    let (days, secs) = ((t / 86_400) as i64, t % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[test]
fn merged_lines_and_grep_match_a_python_k_way_merge() {
    if !have_tool("python3", "the merge oracle") || !have_tool("gzip", "the merge tests") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = logs(d);
    // The oracle reads the archive's text under the archive's name.
    let plain_names = ["web.log", "db.log", "queue.log"];
    let rename = |s: String| s.replace("queue.log:", "queue.log.gz:");

    // The whole logs, merged, numbered.
    let mut args = vec!["lines", "-q", "-n", "--merge"];
    args.extend(&files);
    let o = lidx(d, &args);
    let want = rename(oracle(d, "", "", "", true, &plain_names));
    assert_eq!((o.code, o.stdout_str()), (0, want), "{}", o.stderr);

    // Windows by time, with and without numbers.
    for (since, until) in [
        ("2025-11-30T10:05:00Z", "2025-11-30T10:09:30Z"),
        ("2025-11-30T10:00:00Z", "2025-11-30T10:00:31Z"),
        ("2025-11-30T10:12:00Z", ""),
        ("", "2025-11-30T10:03:00Z"),
    ] {
        let mut args = vec!["lines", "-q"];
        if !since.is_empty() {
            args.extend(["--since", since]);
        }
        if !until.is_empty() {
            args.extend(["--until", until]);
        }
        args.extend(&files);
        let o = lidx(d, &args);
        let want = rename(oracle(d, since, until, "", false, &plain_names));
        let code = if want.is_empty() { 1 } else { 0 };
        assert_eq!(
            (o.code, o.stdout_str()),
            (code, want),
            "{since}..{until}: {}",
            o.stderr
        );

        // grep over the same window: the matching lines, merged.
        let mut args = vec!["grep", "-n"];
        if !since.is_empty() {
            args.extend(["--since", since]);
        }
        if !until.is_empty() {
            args.extend(["--until", until]);
        }
        args.push("ERROR|frame 1");
        args.extend(&files);
        let o = lidx(d, &args);
        let want = rename(oracle(d, since, until, "ERROR|frame 1", true, &plain_names));
        let code = if want.is_empty() { 1 } else { 0 };
        assert_eq!(
            (o.code, o.stdout_str()),
            (code, want),
            "grep {since}..{until}: {}",
            o.stderr
        );
    }

    // line-at-time FILE T FILE...: `path:N` each, as Python finds
    // the first line at or after T (a line's time its stamp's or the
    // last before it).
    let t = "2025-11-30T10:07:00Z";
    let script = r#"
import re, sys
from datetime import datetime
t = datetime.fromisoformat(sys.argv[1].replace('Z', '+00:00')).timestamp()
stamp = re.compile(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z')
for name in sys.argv[2:]:
    cur = None
    for n, l in enumerate(open(name).read().splitlines()):
        m = stamp.match(l)
        if m:
            cur = datetime.fromisoformat(m.group(1) + '+00:00').timestamp()
        if cur is not None and cur >= t:
            print(f'{name}:{n + 1}')
            break
"#;
    let py = Command::new("python3")
        .current_dir(d)
        .args(["-c", script, t])
        .args(plain_names)
        .output()
        .unwrap();
    let mut args = vec!["line-at-time", "-q", files[0], t];
    args.extend(&files[1..]);
    let o = lidx(d, &args);
    assert_eq!(
        o.stdout_str(),
        rename(String::from_utf8(py.stdout).unwrap()),
        "{}",
        o.stderr
    );

    // -I drops the names; in turn (no merge), each file's range.
    let o = lidx(d, &["lines", "-q", "-I", "web.log", "db.log", "2:3"]);
    let web = std::fs::read_to_string(d.join("web.log")).unwrap();
    let web: Vec<&str> = web.lines().collect();
    let db = std::fs::read_to_string(d.join("db.log")).unwrap();
    let db: Vec<&str> = db.lines().collect();
    assert_eq!(
        o.stdout_str(),
        format!("{}\n{}\n{}\n{}\n", web[1], web[2], db[1], db[2])
    );
    // A RANGE with a merge is refused; so is context.
    let o = lidx(d, &["lines", "--merge", "web.log", "db.log", "1:5"]);
    assert_eq!(o.code, 2, "{o:?}");
    let o = lidx(d, &["grep", "-C1", "--merge", "x", "web.log", "db.log"]);
    assert_eq!(o.code, 2, "{o:?}");
}

/// Rows as the viewer shows lines of several logs: each one's file name
/// (padded to the longest) and its number there (padded to the digits of
/// the longest log), then the text; `rows` of them, padded.
fn named_rows(lines: &[(String, u64, String)], widths: (usize, usize), rows: usize) -> Vec<String> {
    let (tw, nw) = widths;
    let mut out: Vec<String> = lines
        .iter()
        .take(rows)
        .map(|(f, n, t)| format!("{f:<tw$} {n:>nw$} {t}").trim_end().to_string())
        .collect();
    out.resize(rows, String::new());
    out
}

/// `lidx view` over several logs: merged by time (`--merge`), the rows are
/// the Python k-way merge's, each with its file and its own number; `:FILE:N`
/// goes to that file's line, `:@T` to the first line at or after T (the
/// first row of the oracle stamped at or after it), a search finds a line
/// of any file; without `--merge` the logs follow each other, and `G` is
/// the last log's end.
#[test]
fn the_viewer_merges_logs_and_shows_each_lines_file() {
    use crate::view::{Pane, ROWS, quits};
    if !crate::view::tools()
        || !have_tool("python3", "the merge oracle")
        || !have_tool("gzip", "the merge tests")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = logs(d);
    let plain = ["web.log", "db.log", "queue.log"];
    let merged: Vec<(String, u64, String)> = oracle(d, "", "", "", true, &plain)
        .lines()
        .map(|l| {
            let mut it = l.splitn(3, ':');
            let f = it.next().unwrap().replace("queue.log", "queue.log.gz");
            let n = it.next().unwrap().parse().unwrap();
            (f, n, it.next().unwrap().to_string())
        })
        .collect();
    let longest = plain
        .iter()
        .map(|f| std::fs::read_to_string(d.join(f)).unwrap().lines().count())
        .max()
        .unwrap();
    let widths = ("queue.log.gz".len(), longest.to_string().len());
    let total = merged.len();
    let Some(p) = Pane::start(d, &format!("--merge {}", files.join(" "))) else {
        return;
    };
    p.expect(
        "first screen",
        &named_rows(&merged, widths, ROWS),
        &format!("3 files merged lines 1-{ROWS}/{total}"),
    );
    let at = |f: &str, n: u64| {
        merged
            .iter()
            .position(|(g, m, _)| g == f && *m == n)
            .unwrap()
    };
    p.text(":db.log:200");
    p.keys(&["Enter"]);
    let k = at("db.log", 200);
    p.expect(
        ":db.log:200",
        &named_rows(&merged[k..], widths, ROWS),
        &format!("lines {}-", k + 1),
    );
    let t = "2025-11-30T10:07:00Z";
    p.text(&format!(":@{t}"));
    p.keys(&["Enter"]);
    let k = merged
        .iter()
        .position(|(_, _, text)| text.len() > 20 && text.as_bytes()[4] == b'-' && &text[..20] >= t)
        .unwrap();
    p.expect(
        ":@T",
        &named_rows(&merged[k..], widths, ROWS),
        &format!("lines {}-", k + 1),
    );
    p.text("/queue.log event 300 ");
    p.keys(&["Enter"]);
    let k = merged
        .iter()
        .position(|(_, _, text)| text.contains("queue.log event 300 "))
        .unwrap();
    p.expect(
        "/search",
        &named_rows(&merged[k..], widths, ROWS),
        &format!("lines {}-", k + 1),
    );
    p.keys(&["q"]);
    quits(&p, 0);

    // One after the other: web.log's lines, then db.log's.
    let text = |f: &str| -> Vec<(String, u64, String)> {
        std::fs::read_to_string(d.join(f))
            .unwrap()
            .lines()
            .enumerate()
            .map(|(i, l)| (f.to_string(), i as u64 + 1, l.to_string()))
            .collect()
    };
    let mut both = text("web.log");
    both.extend(text("db.log"));
    let widths = ("web.log".len(), longest.to_string().len());
    let Some(p) = Pane::start(d, "web.log db.log") else {
        return;
    };
    p.expect(
        "first screen, in turn",
        &named_rows(&both, widths, ROWS),
        &format!("2 files lines 1-{ROWS}/{}", both.len()),
    );
    p.text(":db.log:1");
    p.keys(&["Enter"]);
    let k = both.iter().position(|(f, _, _)| f == "db.log").unwrap();
    p.expect(
        ":db.log:1",
        &named_rows(&both[k..], widths, ROWS),
        &format!("lines {}-", k + 1),
    );
    p.keys(&["G"]);
    p.expect(
        "G",
        &named_rows(&both[both.len() - ROWS..], widths, ROWS),
        &format!(
            "lines {}-{}/{}",
            both.len() - ROWS + 1,
            both.len(),
            both.len()
        ),
    );
    p.keys(&["q"]);
    quits(&p, 0);
}
