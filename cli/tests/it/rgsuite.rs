//! ripgrep's own test suites as a table-driven cross-check of `lidx grep`.
//!
//! [`cases`] holds 866 cases, grouped by flag family: each a name tied to
//! its origin (`misc::columns`, `regression::r1163`, `printer::max_columns`,
//! `searcher::context_code1`, `literal::repetition/aZ*b`, ...; `edge::` for
//! this project's own), the arguments and the haystack bytes. Ripgrep
//! 15.2.0's answer to each (`rg --no-heading --no-filename -a --no-config
//! ARGS hay`, run in a directory holding the haystack as `hay`: stdout,
//! stderr, exit status) is stored in `tests/rg/expected.txt` ([`expect`]),
//! so the suite needs no ripgrep to have an oracle (JSON timings are
//! stored zeroed). Every case runs four
//! ways, each compared with that expectation:
//!
//! - **a** whole file: `lidx index -q hay`, then `lidx grep ARGS hay`;
//! - **b** a checkpoint on every line and a work unit per checkpoint:
//!   `lidx index -q --force --spacing 1 hay`, then
//!   `lidx grep -j 4 --chunk-bytes 1 ARGS hay`;
//! - **c** gzip: `gzip -c hay > hay.gz`, `lidx index -q hay.gz`, then
//!   `lidx grep ARGS hay.gz` (a JSON or `-l` path `hay.gz` reads as `hay`);
//! - **d** ranges: for `2:n-1`, the middle line and `1:n` of an n-line
//!   haystack, `lidx grep --lines A:B ARGS hay` against ripgrep run live on
//!   the extract (the bytes `sed -n A,Bp hay` prints, cut in-process), its
//!   line numbers raised by A-1 and its byte offsets (`-b`, JSON
//!   `absolute_offset`) by the offset of line A ([`norm`]; counts, `-l` and
//!   `-q` need no shift; where a shift cannot be sound, the range is
//!   skipped and counted so). The extract is searched as a file, not piped:
//!   ripgrep's stdin searcher and its file searcher disagree on a few
//!   patterns (`-o '\A'` prints whole lines from a file, empty parts from
//!   stdin), and lidx, like way a's expectation, reads a file.
//!
//! Exit status and stdout must equal ripgrep's. When ripgrep exits 2, lidx
//! must exit 2 with one line `lidx: ...` on stderr (the text may differ);
//! otherwise, when ripgrep printed nothing on stderr, lidx must not either.
//! JSON timings are zeroed in both outputs first. A case may carry a
//! deliberate lidx expectation that replaces ripgrep's ([`cases::Override`],
//! with its reason); there are few, and only where decided (UTF-16 files
//! with a byte-order mark are refused with exit 2).
//!
//! When the `rg` on PATH, or `$LIDX_RG`, is ripgrep 15.2.0 exactly, every
//! case is also re-run live and must equal its stored record (so the table
//! cannot go stale), and way d runs; otherwise both say `SKIPPED` on
//! stderr (a failure under `LIDX_REQUIRE_TOOLS=1`, as is a missing gzip:
//! [`crate::run::missing_tool`]). A record whose key (a CRC of arguments and
//! haystack) no longer matches its case is reported as stale.
//!
//! Every disagreement is collected and the test fails once at the end with
//! a work list. It opens with a tally of the failing cases by kind
//! (`unsupported flag -S`, `output [--json]`: the kind of difference and
//! the case's flag family), the cases that fail only some ways (a parallel,
//! gzip or range bug where the whole file is right), and what was skipped;
//! then per failing case its name, arguments, haystack, and per way the
//! command, expected and actual output (escaped), ways that failed alike
//! listed together. The panic message shows the first 150 cases; the whole
//! list is written to `target/tmp/rgsuite-report.txt`, and a one-line
//! summary (cases, and per way passed, failed, skipped) goes to stderr.
//!
//! ```text
//! cargo test -p lidx-cli --test it rgsuite                           # all cases
//! RGSUITE=r1163,json:: cargo test -p lidx-cli --test it rgsuite -- --nocapture
//! LIDX_RG=/opt/rg-current/bin/rg cargo test -p lidx-cli --test it rgsuite   # + live rg, way d
//! tests/rg/regen.sh      # rewrite tests/rg/expected.txt from ripgrep 15.2.0
//! ```
//!
//! `RGSUITE` keeps the cases whose name contains one of its comma-separated
//! parts; `RGSUITE_THREADS` sets the number of cases run at once (default
//! 2); `RGSUITE_REGEN=1` (what `regen.sh` sets, with `LIDX_RG`) rewrites the
//! expectations of the whole table from the live ripgrep instead of
//! checking lidx. About 45 s in a debug build on two cores, 75 s with the
//! live ripgrep (some ten thousand processes).

mod cases;
mod expect;
mod flags;
mod hay;
mod norm;

use cases::{Case, Override};
use expect::{Record, escape, quote_all};
use flags::Flags;
use norm::Field;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The ripgrep release the expectations come from.
const RG_VERSION: &str = "15.2.0";

/// Where the expectations live.
const EXPECTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/rg/expected.txt");

/// The header of the expectations file.
const HEADER: &str = "\
# Expected output of ripgrep 15.2.0 for every case of tests/it/rgsuite/cases.rs:
# `rg --no-heading --no-filename -a --no-config ARGS hay` in a directory holding
# the case's haystack as `hay`. Generated by tests/rg/regen.sh; do not edit.
# Format: tests/it/rgsuite/expect.rs.
";

/// What a process did.
#[derive(Debug, Clone)]
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// How long one process may run before it is killed (and the run counts as
/// a failure): far above any case's need, so a hang cannot stall the suite.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Runs `cmd` with stdin closed; kills it (by its id) after [`TIMEOUT`].
fn run(mut cmd: Command) -> Run {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let o = match rx.recv_timeout(TIMEOUT) {
        Ok(o) => o.expect("wait"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            let mut o = rx.recv().unwrap().expect("wait");
            o.stderr
                .extend_from_slice(format!("(rgsuite: killed after {TIMEOUT:?})\n").as_bytes());
            o
        }
    };
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: o.stderr,
    }
}

/// `lidx ARGS` in `dir`.
fn lidx(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(crate::run::BIN);
    cmd.current_dir(dir)
        .args(args)
        .env("LC_ALL", "C")
        .env("RUST_BACKTRACE", "1")
        .env_remove("NO_COLOR");
    run(cmd)
}

/// `rg --no-heading --no-filename -a --no-config ARGS PATH` in `dir`.
fn rg(rg: &Path, dir: &Path, args: &[&str], path: &str) -> Run {
    let mut cmd = Command::new(rg);
    cmd.current_dir(dir)
        .args(["--no-heading", "--no-filename", "-a", "--no-config"])
        .args(args)
        .arg(path)
        .env_remove("RIPGREP_CONFIG_PATH")
        .env_remove("NO_COLOR");
    run(cmd)
}

/// The ripgrep to run live: `$LIDX_RG` or `rg` on PATH, if it is 15.2.0.
/// `Err` says what was found instead.
fn find_rg() -> Result<PathBuf, String> {
    let path = std::env::var_os("LIDX_RG").map_or_else(|| PathBuf::from("rg"), PathBuf::from);
    let out = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{} not found ({e})", path.display()))?;
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let want = format!("ripgrep {RG_VERSION}");
    if first == want || first.starts_with(&format!("{want} ")) {
        Ok(path)
    } else {
        Err(format!(
            "{} is {first:?}, not ripgrep {RG_VERSION} (set LIDX_RG)",
            path.display()
        ))
    }
}

/// Says `msg` on stderr past the harness's capture.
fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// The four ways, and the check of the stored expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Way {
    /// The live ripgrep against the stored record.
    Stored,
    Whole,
    Spacing1,
    Gzip,
    Lines,
}

impl Way {
    const ALL: [Way; 5] = [
        Way::Stored,
        Way::Whole,
        Way::Spacing1,
        Way::Gzip,
        Way::Lines,
    ];

    fn label(self) -> &'static str {
        match self {
            Way::Stored => "stored expectation",
            Way::Whole => "a whole file",
            Way::Spacing1 => "b spacing 1, -j 4",
            Way::Gzip => "c gzip",
            Way::Lines => "d --lines",
        }
    }
}

/// One disagreement.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    /// The command (and where its expectation comes from).
    cmd: String,
    /// What differed, with both outputs.
    diff: String,
    /// A short name of the kind of difference, for the tally.
    class: String,
}

/// What a way came to for one case.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Pass,
    Skip(String),
    Fail(Vec<Failure>),
}

/// The expectation a run is checked against.
struct Want<'a> {
    code: i32,
    stdout: Vec<u8>,
    /// ripgrep printed nothing on stderr.
    quiet: bool,
    /// Where it comes from, for the report.
    from: &'a str,
}

/// The result of one case.
struct Outcome {
    case_index: usize,
    verdicts: BTreeMap<Way, Verdict>,
}

/// What every case run shares.
struct Ctx {
    cases: Vec<Case>,
    stored: BTreeMap<String, Record>,
    rg: Option<PathBuf>,
    gzip: bool,
}

/// Lines of `hay` (a final line without `\n` counts).
fn line_count(hay: &[u8]) -> u64 {
    let nl = hay.iter().filter(|&&b| b == b'\n').count() as u64;
    nl + u64::from(!hay.is_empty() && !hay.ends_with(b"\n"))
}

/// Byte offset of 1-based line `line` (the length past the end).
fn offset_of(hay: &[u8], line: u64) -> usize {
    if line <= 1 {
        return 0;
    }
    let mut seen = 0;
    for (i, &b) in hay.iter().enumerate() {
        if b == b'\n' {
            seen += 1;
            if seen == line - 1 {
                return i + 1;
            }
        }
    }
    hay.len()
}

/// The ranges way d checks: `2:n-1`, the middle line (the second of two),
/// `1:n` (distinct).
fn ranges(n: u64) -> Vec<(u64, u64)> {
    let mut v = Vec::new();
    if n >= 3 {
        v.push((2, n - 1));
    }
    if n >= 1 {
        let m = (n / 2 + 1).min(n);
        v.push((m, m));
        v.push((1, n));
    }
    v.dedup();
    v
}

/// Escaped output lines for the report, at most 40 of them.
fn show_output(out: &[u8]) -> String {
    if out.is_empty() {
        return "(nothing)".into();
    }
    let lines: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
    let mut s = String::new();
    for (i, l) in lines.iter().take(40).enumerate() {
        if i > 0 {
            s.push_str("\n             ");
        }
        let mut e = escape(l);
        if e.len() > 300 {
            let cut = (0..=300).rev().find(|&c| e.is_char_boundary(c)).unwrap();
            e.truncate(cut);
            e.push_str("...");
        }
        s.push_str(&e);
    }
    if lines.len() > 40 {
        s.push_str(&format!(
            "\n             ... {} more lines",
            lines.len() - 40
        ));
    }
    s
}

/// The kind of a difference: an unsupported flag, a refusal, a crash, or
/// different output (the caller adds the case's flag family).
fn classify(want: &Want, got: &Run, stderr: &str, crashed: bool) -> String {
    if crashed {
        return "lidx panicked".into();
    }
    if got.code == -1 {
        return "lidx killed (timeout or signal)".into();
    }
    if got.code == 2 && want.code != 2 {
        if let Some(rest) = stderr.split("unexpected argument '").nth(1) {
            let flag = rest.split('\'').next().unwrap_or(rest);
            return format!("unsupported flag {flag}");
        }
        let msg = stderr.trim().trim_start_matches("lidx: ");
        let short: String = msg.chars().take(70).collect();
        return format!("lidx refuses: {short}");
    }
    if want.code == 2 && got.code != 2 {
        return "lidx accepts what it must refuse".into();
    }
    if got.code != want.code {
        return "exit status".into();
    }
    "output".into()
}

/// Compares a lidx run with what it should have done; `None` when it did,
/// else the kind of difference and a description.
fn compare(want: &Want, got: &Run, got_stdout: &[u8]) -> Option<(String, String)> {
    let stderr = String::from_utf8_lossy(&got.stderr);
    let mut problems = Vec::new();
    let mut crashed = false;
    for bad in ["panicked", "RUST_BACKTRACE", "backtrace", "internal error"] {
        if stderr.contains(bad) {
            problems.push(format!("stderr contains {bad:?}"));
            crashed = true;
        }
    }
    if got.code != want.code {
        problems.push(format!("exit {} (want {})", got.code, want.code));
    }
    if got_stdout != want.stdout.as_slice() {
        problems.push("stdout differs".into());
    }
    if want.code == 2 && got.code == 2 {
        let lines = stderr.lines().count();
        if lines != 1 || !stderr.ends_with('\n') || !stderr.starts_with("lidx: ") {
            problems.push(format!(
                "on exit 2, stderr must be one line `lidx: ...` (got {lines} lines)"
            ));
        }
    } else if want.quiet && got.code != 2 && !got.stderr.is_empty() {
        problems.push("stderr not empty (ripgrep's is)".into());
    }
    if problems.is_empty() {
        return None;
    }
    let class = classify(want, got, &stderr, crashed);
    let mut s = format!("      differs: {}\n", problems.join("; "));
    if !got.stderr.is_empty() {
        s.push_str(&format!("      stderr:  {}\n", show_output(&got.stderr)));
    }
    s.push_str(&format!(
        "      want:    {}  [exit {}]\n",
        show_output(&want.stdout),
        want.code
    ));
    s.push_str(&format!(
        "      got:     {}  [exit {}]\n",
        show_output(got_stdout),
        got.code
    ));
    Some((class, s))
}

/// The stdout of a run made comparable (JSON timings; `path` read as
/// `hay`, `bytes_printed` re-derived).
fn normalized(out: &[u8], f: &Flags, path: Option<&str>) -> Vec<u8> {
    let mut v = out.to_vec();
    if let Some(p) = path {
        let renamed = norm::path(&v, p);
        v = if f.json {
            norm::fix_bytes_printed(&v, &renamed)
        } else {
            renamed
        };
    }
    if f.json {
        v = norm::json_elapsed(&v);
    }
    v
}

/// The prefix fields ripgrep prints for `f`.
fn fields(f: &Flags) -> Vec<Field> {
    let mut v = Vec::new();
    if f.line_number {
        v.push(Field::Line);
    }
    if f.column {
        v.push(Field::Column);
    }
    if f.byte_offset {
        v.push(Field::Offset);
    }
    v
}

/// Starts with a byte-order mark ripgrep would sniff.
fn starts_with_bom(b: &[u8]) -> bool {
    b.starts_with(b"\xef\xbb\xbf") || b.starts_with(b"\xff\xfe") || b.starts_with(b"\xfe\xff")
}

/// Runs one case all ways.
fn check_case(ctx: &Ctx, index: usize) -> Outcome {
    let case = &ctx.cases[index];
    let args: Vec<&str> = case.args.clone();
    let f = Flags::parse(&args);
    let mut verdicts = BTreeMap::new();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("hay"), &case.hay).unwrap();
    let key = expect::key(&args, &case.hay);

    // The expectation: the stored record, checked against the live rg.
    let live = ctx.rg.as_ref().map(|p| {
        let r = rg(p, d, &args, "hay");
        Record {
            key,
            code: r.code,
            stdout: r.stdout,
            stderr: r.stderr,
        }
    });
    let stored = ctx.stored.get(case.name).filter(|r| r.key == key);
    let record = match (stored, &live) {
        (Some(s), Some(l)) => {
            let same = s.code == l.code
                && normalized(&s.stdout, &f, None) == normalized(&l.stdout, &f, None)
                && s.stderr == l.stderr;
            if same {
                verdicts.insert(Way::Stored, Verdict::Pass);
            } else {
                let msg = format!(
                    "      stored:  {}  [exit {}]\n      live rg: {}  [exit {}]\n",
                    show_output(&s.stdout),
                    s.code,
                    show_output(&l.stdout),
                    l.code
                );
                verdicts.insert(
                    Way::Stored,
                    Verdict::Fail(vec![Failure {
                        cmd:
                            "live ripgrep differs from tests/rg/expected.txt: run tests/rg/regen.sh"
                                .into(),
                        diff: msg,
                        class: "stale expectation".into(),
                    }]),
                );
            }
            Some(s.clone())
        }
        (Some(s), None) => {
            verdicts.insert(Way::Stored, Verdict::Skip("no live rg".into()));
            Some(s.clone())
        }
        (None, l) => {
            let why = if ctx.stored.contains_key(case.name) {
                "stale: the case changed since tests/rg/expected.txt was generated"
            } else {
                "missing from tests/rg/expected.txt"
            };
            verdicts.insert(
                Way::Stored,
                Verdict::Fail(vec![Failure {
                    cmd: format!("{why}: run tests/rg/regen.sh"),
                    diff: String::new(),
                    class: "stale expectation".into(),
                }]),
            );
            l.clone()
        }
    };
    let Some(record) = record else {
        for w in [Way::Whole, Way::Spacing1, Way::Gzip, Way::Lines] {
            verdicts.insert(w, Verdict::Skip("no expectation".into()));
        }
        return Outcome {
            case_index: index,
            verdicts,
        };
    };
    let from_rg = format!("rg {RG_VERSION}");
    let want = match &case.lidx {
        Some(Override { code, stdout, .. }) => Want {
            code: *code,
            stdout: stdout.to_vec(),
            quiet: true,
            from: "lidx override",
        },
        None => Want {
            code: record.code,
            stdout: normalized(&record.stdout, &f, None),
            quiet: record.stderr.is_empty(),
            from: &from_rg,
        },
    };

    let grep = |prefix: &[&str], file: &str| -> (String, Run) {
        let mut a: Vec<&str> = vec!["grep"];
        a.extend_from_slice(prefix);
        a.extend_from_slice(&args);
        a.push(file);
        (format!("lidx {}", quote_all(&a)), lidx(d, &a))
    };
    let index_note = |r: &Run, what: &str| -> Option<String> {
        (r.code != 0 || !r.stderr.is_empty()).then(|| {
            format!(
                "      ({what} exited {}: {})\n",
                r.code,
                String::from_utf8_lossy(&r.stderr).trim_end()
            )
        })
    };
    let judge = |cmd: String, note: Option<String>, got: Run, path: Option<&str>| {
        let got_out = normalized(&got.stdout, &f, path);
        match compare(&want, &got, &got_out) {
            None => Verdict::Pass,
            Some((class, diff)) => Verdict::Fail(vec![Failure {
                cmd: format!("{cmd}   (want: {})", want.from),
                diff: note.unwrap_or_default() + &diff,
                class,
            }]),
        }
    };

    // a: the whole file.
    let ix = lidx(d, &["index", "-q", "hay"]);
    let note = index_note(&ix, "lidx index -q hay");
    let (cmd, got) = grep(&[], "hay");
    verdicts.insert(Way::Whole, judge(cmd, note, got, None));

    // b: a checkpoint on every line, a work unit per checkpoint.
    let ix = lidx(d, &["index", "-q", "--force", "--spacing", "1", "hay"]);
    let note = index_note(&ix, "lidx index -q --force --spacing 1 hay");
    let (cmd, got) = grep(&["-j", "4", "--chunk-bytes", "1"], "hay");
    verdicts.insert(Way::Spacing1, judge(cmd, note, got, None));

    // c: gzip.
    if ctx.gzip {
        let mut gz = Command::new("gzip");
        gz.args(["-c", "-n", "hay"]).current_dir(d);
        let z = run(gz);
        assert_eq!(z.code, 0, "gzip -c hay failed");
        std::fs::write(d.join("hay.gz"), &z.stdout).unwrap();
        let ix = lidx(d, &["index", "-q", "hay.gz"]);
        let note = index_note(&ix, "lidx index -q hay.gz");
        let (cmd, got) = grep(&[], "hay.gz");
        verdicts.insert(Way::Gzip, judge(cmd, note, got, Some("hay.gz")));
    } else {
        verdicts.insert(Way::Gzip, Verdict::Skip("no gzip".into()));
    }

    // d: line ranges against ripgrep on the extract (the sidecar now has a
    // checkpoint on every line).
    verdicts.insert(Way::Lines, lines_way(ctx, case, &f, d, &want));
    Outcome {
        case_index: index,
        verdicts,
    }
}

/// Way d for one case: each range against ripgrep on the extract.
///
/// What the shift of ripgrep's output needs, per kind of output:
/// - text lines: the line-number field rises by A-1, the byte-offset field
///   (`-b`, the line's or with `-o` the part's) by line A's offset; the
///   column field (`--column`, `--vimgrep`) counts from the line's start
///   and stays; a `--` separator has no fields; colour escapes around a
///   field are kept;
/// - JSON: `line_number` and `absolute_offset` of match and context
///   messages likewise; `bytes_searched` is the extract's length either
///   way; `bytes_printed` is re-derived from the shifted messages;
/// - counts (`-c`, `--count-matches`), paths (`-l`) and `-q` need no shift;
/// - a UTF-8 byte-order mark at the start of the file is stripped by
///   ripgrep, which counts offsets after it: for A > 1 the shift is line
///   A's offset less the mark;
/// - not sound, so skipped: offsets of a transcoded file (`-E` other than
///   `none`/`utf-8`: ripgrep counts decoded bytes), and a range whose first
///   line starts with bytes ripgrep would sniff as a byte-order mark (content
///   in the file, a mark in the extract).
fn lines_way(ctx: &Ctx, case: &Case, f: &Flags, d: &Path, want_all: &Want) -> Verdict {
    let Some(rg_path) = &ctx.rg else {
        return Verdict::Skip("no live rg".into());
    };
    // `--lines` on an empty file is a range past the end: lidx's own
    // convention (exit 1 with a note), not a search.
    if case.hay.is_empty() {
        return Verdict::Skip("empty haystack, no line to take".into());
    }
    // ripgrep counts offsets in decoded bytes when it transcodes: they
    // cannot be mapped back to the file's.
    if f.transcodes() && (f.byte_offset || f.json) {
        return Verdict::Skip("offsets of a transcoded file".into());
    }
    let hay = &case.hay;
    let bom = if f.sniffs_bom() && hay.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let args: Vec<&str> = case.args.clone();
    let part = d.join("part");
    std::fs::create_dir_all(&part).unwrap();
    let mut fails = Vec::new();
    let mut checked = 0;
    for (a, b) in ranges(line_count(hay)) {
        let (start, end) = (offset_of(hay, a), offset_of(hay, b + 1));
        let extract = &hay[start..end];
        // A mark that is content in the file would be sniffed at the start
        // of the extract.
        if a > 1 && f.sniffs_bom() && starts_with_bom(extract) {
            continue;
        }
        checked += 1;
        let range = format!("{a}:{b}");
        let mut la: Vec<&str> = vec!["grep", "--lines", &range];
        la.extend_from_slice(&args);
        la.push("hay");
        let got = lidx(d, &la);
        let want = match &case.lidx {
            Some(_) => Want {
                code: want_all.code,
                stdout: want_all.stdout.clone(),
                quiet: true,
                from: want_all.from,
            },
            None => {
                std::fs::write(part.join("hay"), extract).unwrap();
                let r = rg(rg_path, &part, &args, "hay");
                // Offsets ripgrep reports are past a stripped mark: line A's
                // is its offset in the file less the mark's length.
                let bytes_by = (start - if a > 1 { bom } else { 0 }) as u64;
                let shifted = if f.summary {
                    r.stdout.clone()
                } else if f.json {
                    norm::shift_json(&r.stdout, a - 1, bytes_by)
                } else {
                    norm::shift_text(&r.stdout, &fields(f), a - 1, bytes_by)
                };
                let mut out = if f.json {
                    norm::fix_bytes_printed(&r.stdout, &shifted)
                } else {
                    shifted
                };
                if f.json {
                    out = norm::json_elapsed(&out);
                }
                Want {
                    code: r.code,
                    stdout: out,
                    quiet: r.stderr.is_empty(),
                    from: "rg on the extract, shifted",
                }
            }
        };
        let got_out = normalized(&got.stdout, f, None);
        if let Some((class, diff)) = compare(&want, &got, &got_out) {
            fails.push(Failure {
                cmd: format!("lidx {}   (want: {})", quote_all(&la), want.from),
                diff,
                class,
            });
        }
    }
    if !fails.is_empty() {
        Verdict::Fail(fails)
    } else if checked == 0 {
        Verdict::Skip("no range can be shifted soundly".into())
    } else {
        Verdict::Pass
    }
}

/// The report of one failing case, or `None` when it passed.
fn report(case: &Case, o: &Outcome) -> Option<String> {
    let failing: Vec<(&Way, &Vec<Failure>)> = o
        .verdicts
        .iter()
        .filter_map(|(w, v)| match v {
            Verdict::Fail(f) => Some((w, f)),
            _ => None,
        })
        .collect();
    if failing.is_empty() {
        return None;
    }
    let args: Vec<&str> = case.args.clone();
    let mut s = format!("=== {}\n", case.name);
    s.push_str(&format!("    args: {}\n", quote_all(&args)));
    let mut hay = escape(&case.hay);
    if hay.len() > 400 {
        let cut = (0..=400).rev().find(|&c| hay.is_char_boundary(c)).unwrap();
        hay.truncate(cut);
        hay.push_str("...");
    }
    s.push_str(&format!(
        "    hay ({} bytes, {} lines): {hay}\n",
        case.hay.len(),
        line_count(&case.hay)
    ));
    if let Some(o) = &case.lidx {
        s.push_str(&format!("    deliberate difference: {}\n", o.why));
    }
    // Ways that failed with the same difference are shown once.
    let mut shown: Vec<(&str, &str)> = Vec::new();
    for (way, fails) in failing {
        for Failure { cmd, diff, .. } in fails {
            if let Some((first, _)) = shown.iter().find(|(_, d)| *d == diff.as_str()) {
                s.push_str(&format!(
                    "  - {}: {cmd}\n      (same as {first})\n",
                    way.label()
                ));
                continue;
            }
            s.push_str(&format!("  - {}: {cmd}\n{diff}", way.label()));
            shown.push((way.label(), diff));
        }
    }
    Some(s)
}

/// Rewrites tests/rg/expected.txt from the live ripgrep (the whole table).
fn regenerate(cases: &[Case], rg_path: &Path) {
    let records: Vec<Record> = cases
        .iter()
        .map(|c| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("hay"), &c.hay).unwrap();
            let r = rg(rg_path, dir.path(), &c.args, "hay");
            // JSON timings are stored zeroed, so that a regeneration
            // changes only what ripgrep's answers change.
            let f = Flags::parse(&c.args);
            Record {
                key: expect::key(&c.args, &c.hay),
                code: r.code,
                stdout: normalized(&r.stdout, &f, None),
                stderr: r.stderr,
            }
        })
        .collect();
    let rows: Vec<(&str, &[&str], &Record)> = cases
        .iter()
        .zip(&records)
        .map(|(c, r)| (c.name, c.args.as_slice(), r))
        .collect();
    std::fs::write(EXPECTED, expect::render(&rows, HEADER)).unwrap();
    say(&format!(
        "rgsuite: wrote {} records to tests/rg/expected.txt",
        rows.len()
    ));
}

#[test]
fn rgsuite_cases_match_rg_four_ways() {
    let all = cases::table();
    cases::check_table(&all);
    let rg_live = find_rg();
    if std::env::var_os("RGSUITE_REGEN").is_some_and(|v| v == "1") {
        let p =
            rg_live.unwrap_or_else(|e| panic!("RGSUITE_REGEN=1 needs ripgrep {RG_VERSION}: {e}"));
        regenerate(&all, &p);
        return;
    }
    let filter: Vec<String> = std::env::var("RGSUITE")
        .unwrap_or_default()
        .split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let text = std::fs::read_to_string(EXPECTED).unwrap_or_default();
    let stored = expect::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut unknown: Vec<String> = Vec::new();
    if filter.is_empty() {
        unknown = stored
            .keys()
            .filter(|k| !all.iter().any(|c| c.name == k.as_str()))
            .cloned()
            .collect();
    }
    let cases: Vec<Case> = all
        .into_iter()
        .filter(|c| filter.is_empty() || filter.iter().any(|p| c.name.contains(p.as_str())))
        .collect();
    assert!(!cases.is_empty(), "RGSUITE={filter:?} selects no case");
    let rg = match rg_live {
        Ok(p) => Some(p),
        Err(e) => {
            crate::run::missing_tool(&format!(
                "{e}: rgsuite does not re-check its stored expectations or run way d (--lines)"
            ));
            None
        }
    };
    let gzip = crate::run::have_tool("gzip", "rgsuite way c (gzip)");
    let ctx = Ctx {
        cases,
        stored,
        rg,
        gzip,
    };

    let threads: usize = std::env::var("RGSUITE_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2)
        .max(1);
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= ctx.cases.len() {
                        break;
                    }
                    let o = check_case(&ctx, i);
                    outcomes.lock().unwrap().push(o);
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|o| o.case_index);

    // Per-way tallies, the kinds of failure, and the work list.
    let mut tally: BTreeMap<Way, (usize, usize, usize)> = BTreeMap::new();
    let mut classes: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut only_in: BTreeMap<Way, Vec<String>> = BTreeMap::new();
    let mut skipped: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut reports = Vec::new();
    for o in &outcomes {
        let case = &ctx.cases[o.case_index];
        for (w, v) in &o.verdicts {
            let t = tally.entry(*w).or_default();
            match v {
                Verdict::Pass => t.0 += 1,
                Verdict::Fail(_) => t.1 += 1,
                Verdict::Skip(why) => {
                    t.2 += 1;
                    if *w != Way::Stored && why != "no live rg" && why != "no gzip" {
                        skipped
                            .entry(format!("{}: {why}", w.label()))
                            .or_default()
                            .push(case.name);
                    }
                }
            }
        }
        let whole_passed = o.verdicts.get(&Way::Whole) == Some(&Verdict::Pass);
        let mut first_class = None;
        for (w, v) in &o.verdicts {
            if let Verdict::Fail(f) = v {
                if whole_passed && *w != Way::Stored {
                    only_in
                        .entry(*w)
                        .or_default()
                        .push(format!("{} ({})", case.name, f[0].class));
                }
                // A stale expectation explains everything else; then way
                // a's kind, else the first failing way's.
                let stale = first_class.as_deref() == Some("stale expectation");
                if first_class.is_none() || (*w == Way::Whole && !stale) {
                    first_class = Some(f[0].class.clone());
                }
            }
        }
        if let Some(mut class) = first_class {
            if !class.starts_with("unsupported flag") && !class.starts_with("lidx refuses") {
                class = format!("{class} [{}]", case.group);
            }
            classes.entry(class).or_default().push(case.name);
        }
        if let Some(r) = report(case, o) {
            reports.push(r);
        }
    }
    for name in &unknown {
        reports.push(format!(
            "=== {name}\n    tests/rg/expected.txt has a record for a case not in the table: run tests/rg/regen.sh\n"
        ));
    }
    let mut summary = format!("rgsuite: {} cases", ctx.cases.len());
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for w in Way::ALL {
        let (p, f, s) = tally.get(&w).copied().unwrap_or_default();
        pass += p;
        fail += f;
        skip += s;
        summary.push_str(&format!("; {}: {p} passed, {f} failed", w.label()));
        if s > 0 {
            summary.push_str(&format!(", {s} skipped"));
        }
    }
    summary.push_str(&format!(
        "; total {pass} passed, {fail} failed, {skip} skipped"
    ));
    say(&summary);
    if reports.is_empty() {
        return;
    }

    // The overview: kinds of failure (a case counts once, by its way-a
    // failure), failures only some ways show, skips.
    let mut head = String::from("Failing cases by kind (way a's, or the first failing way's):\n");
    let mut by_size: Vec<(&String, &Vec<&str>)> = classes.iter().collect();
    by_size.sort_by_key(|(k, v)| (std::cmp::Reverse(v.len()), (*k).clone()));
    for (class, names) in by_size {
        let mut list = names.iter().take(6).copied().collect::<Vec<_>>().join(", ");
        if names.len() > 6 {
            list.push_str(", ...");
        }
        head.push_str(&format!("  {:4}  {class}: {list}\n", names.len()));
    }
    head.push_str("Cases that pass way a but fail another way:\n");
    for w in [Way::Spacing1, Way::Gzip, Way::Lines] {
        let names = only_in.get(&w).map(Vec::as_slice).unwrap_or(&[]);
        head.push_str(&format!(
            "  {}: {}\n",
            w.label(),
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        ));
    }
    if !skipped.is_empty() {
        head.push_str("Skipped:\n");
        for (why, names) in &skipped {
            head.push_str(&format!("  {why}: {}\n", names.join(", ")));
        }
    }
    let filtered = if filter.is_empty() {
        String::new()
    } else {
        format!(" (RGSUITE={})", filter.join(","))
    };
    let report_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rgsuite-report.txt");
    let body = format!(
        "{summary}\n{} failing cases{filtered}\n\n{head}\n{}",
        reports.len(),
        reports.join("\n")
    );
    let _ = std::fs::write(&report_path, &body);
    // The panic message holds the first cases; the file holds them all.
    const SHOWN: usize = 150;
    let shown = if reports.len() > SHOWN {
        format!(
            "{}\n... and {} more failing cases in {}\n",
            reports[..SHOWN].join("\n"),
            reports.len() - SHOWN,
            report_path.display()
        )
    } else {
        reports.join("\n")
    };
    panic!(
        "{summary}\n{} failing cases{filtered}\n\n{head}\n{shown}\n{} failing cases; the full list is in {}\n\
         (run one: RGSUITE=NAME cargo test -p lidx-cli --test it rgsuite -- --nocapture)",
        reports.len(),
        reports.len(),
        report_path.display()
    );
}
