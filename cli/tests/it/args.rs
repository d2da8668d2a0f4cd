//! The command line's grammar through the real binary: every subcommand
//! takes its options before, between and after its positional arguments,
//! `--` ends the options, and ranges count from the end with sed's `$`
//! (`$`, `$-K`), checked against `tail`, `head` and `sed` and the model.

use crate::cli::{corpus, have, tool};
use crate::oracle::Model;
use crate::run::{BIN, Out, Rules, checked};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `lidx ARGS` in `dir` with stdin closed and checks the CLI's rules
/// (exit 0/1/2, one `lidx: ` line on error, nothing printed before it).
fn lidx_in<S: AsRef<OsStr>>(dir: &Path, args: impl IntoIterator<Item = S>) -> Out {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    checked(cmd, Rules::SILENT_ERROR)
}

// ---------------------------------------------------------------------------
// Options anywhere.

/// The command lines to try for one subcommand: its positional arguments
/// in order, and every option group (a flag, or a flag and its value)
/// placed in every slot among them (before the first, between two, after
/// the last) while the other groups sit all in front or all at the end;
/// the groups spread one per slot in every rotation; and all groups
/// followed by `--` before the first, second, ... positional argument.
/// Every line holds every option, so all must give the same answer.
fn arrangements(sub: &str, positionals: &[&str], options: &[&[&str]]) -> Vec<Vec<String>> {
    let slots = positionals.len() + 1;
    let assemble = |slot_of: &[usize], dashdash: Option<usize>| -> Vec<String> {
        let mut args = vec![sub.to_string()];
        for s in 0..slots {
            for (g, _) in slot_of.iter().enumerate().filter(|&(_, &at)| at == s) {
                args.extend(options[g].iter().map(|a| a.to_string()));
            }
            if dashdash == Some(s) {
                args.push("--".into());
            }
            if let Some(p) = positionals.get(s) {
                args.push(p.to_string());
            }
        }
        args
    };
    let mut out = BTreeSet::new();
    for moving in 0..options.len() {
        for at in 0..slots {
            for rest in [0, slots - 1] {
                let slot_of: Vec<usize> = (0..options.len())
                    .map(|g| if g == moving { at } else { rest })
                    .collect();
                out.insert(assemble(&slot_of, None));
            }
        }
    }
    for rotation in 0..slots {
        let slot_of: Vec<usize> = (0..options.len()).map(|g| (g + rotation) % slots).collect();
        out.insert(assemble(&slot_of, None));
    }
    for cut in 0..positionals.len() {
        out.insert(assemble(&vec![cut; options.len()], Some(cut)));
    }
    out.into_iter().collect()
}

/// What a row must print.
enum Want {
    /// Exactly these bytes.
    Exactly(&'static [u8]),
    /// What the first arrangement printed, which must contain these.
    Same(&'static [&'static str]),
}

/// The issue's own example and its class: `lidx lines FILE 2:3 -n`,
/// `--index`, `--no-build`, `--quiet` and `--cache-mb` after, between or
/// before the positional arguments, for every subcommand, and `--` ending
/// the options. The sidecar is only ever the one `--index` names.
#[test]
fn every_subcommand_takes_options_in_every_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("text"), b"a\n-b\nc\n-d\ne\n").unwrap();
    const SIDE: &[&str] = &["--index", "side.lidx"];
    // (subcommand, positional arguments, option groups, output)
    type Row = (
        &'static str,
        Vec<&'static str>,
        Vec<&'static [&'static str]>,
        Want,
    );
    let rows: Vec<Row> = vec![
        (
            "index",
            vec!["text"],
            vec![SIDE, &["--spacing", "4"], &["--force"], &["-q"]],
            Want::Exactly(b""),
        ),
        (
            "lines",
            vec!["text", "2:3", "$"],
            vec![
                &["-n"],
                SIDE,
                &["--no-build"],
                &["--quiet"],
                &["--cache-mb", "4"],
            ],
            Want::Exactly(b"2:-b\n3:c\n5:e\n"),
        ),
        (
            "count",
            vec!["text"],
            vec![SIDE, &["--no-build"], &["-q"], &["--cache-mb", "4"]],
            Want::Exactly(b"5\n"),
        ),
        (
            "line-at",
            vec!["text", "4"],
            vec![SIDE, &["--no-build"], &["--quiet"]],
            Want::Exactly(b"2\n"),
        ),
        (
            "grep",
            vec!["[bd]", "text"],
            vec![
                &["-n"],
                &["--lines", "3:$"],
                SIDE,
                &["--no-build"],
                &["--cache-mb", "4"],
            ],
            Want::Exactly(b"4:-d\n"),
        ),
        (
            // -e takes a value starting with '-'; FILE is the only
            // positional argument.
            "grep",
            vec!["text"],
            vec![
                &["-e", "-b"],
                &["-n"],
                &["--lines", "$-3:$"],
                SIDE,
                &["--no-build"],
                &["--cache-mb", "4"],
            ],
            Want::Exactly(b"2:-b\n"),
        ),
        (
            "info",
            vec!["text"],
            vec![SIDE, &["--json"]],
            Want::Same(&["\"lines\":5,", "\"spacing\":4,", "\"fresh\":true"]),
        ),
        (
            "verify",
            vec!["text"],
            vec![SIDE, &["--full"]],
            Want::Same(&["side.lidx: ok: ", " 5 lines, ", "re-scanned"]),
        ),
    ];
    let mut subs = BTreeSet::new();
    for (sub, positionals, options, want) in &rows {
        subs.insert(*sub);
        let mut first: Option<Vec<u8>> = None;
        for args in arrangements(sub, positionals, options) {
            let o = lidx_in(d, &args);
            assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{args:?}");
            match want {
                Want::Exactly(bytes) => {
                    assert_eq!(o.stdout_str(), String::from_utf8_lossy(bytes), "{args:?}")
                }
                Want::Same(parts) => {
                    let first = first.get_or_insert_with(|| o.stdout.clone());
                    let text = String::from_utf8_lossy(first);
                    for p in *parts {
                        assert!(text.contains(p), "{args:?}: {p:?} not in {text}");
                    }
                    assert_eq!(&o.stdout, first, "{args:?}");
                }
            }
        }
    }
    let all = [
        "index", "lines", "count", "line-at", "info", "verify", "grep",
    ];
    assert_eq!(subs, BTreeSet::from(all), "every subcommand has a row");
    assert!(
        !d.join("text.lidx").exists(),
        "an --index somewhere was not honoured"
    );
}

/// After `--`, an argument that looks like an option is a positional one:
/// a file named `-n`, a pattern `-b`, a range `-n` (which is then invalid).
/// `./-n` names the file too.
#[test]
fn double_dash_ends_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("text"), b"a\n-b\nc\n-d\ne\n").unwrap();
    std::fs::write(d.join("-n"), b"dash\nfile\n").unwrap();
    for (args, code, stdout) in [
        (vec!["index", "-q", "--", "-n"], 0, ""),
        (vec!["lines", "-n", "--", "-n", "2"], 0, "2:file\n"),
        (vec!["lines", "./-n", "1", "-q"], 0, "dash\n"),
        (vec!["lines", "-q", "text", "5", "--", "1"], 0, "e\na\n"),
        (vec!["count", "--", "-n"], 0, "2\n"),
        (vec!["line-at", "--no-build", "--", "-n", "5"], 0, "2\n"),
        (vec!["grep", "-n", "--", "-b", "text"], 0, "2:-b\n"),
        (vec!["grep", "-N", "--", "-", "-n"], 1, ""),
        (vec!["grep", "-N", "--", "sh", "-n"], 0, "dash\n"),
        (vec!["grep", "-c", "-e", "-", "--", "text"], 0, "2\n"),
        // In grep, -q is ripgrep's: nothing printed, the exit status says.
        (vec!["grep", "-q", "--", "-b", "text"], 0, ""),
        (vec!["verify", "--", "-n"], 0, "-n.lidx: ok: "),
        (vec!["info", "--json", "--", "-n"], 0, "{\"file\":\"-n\","),
    ] {
        let o = lidx_in(d, &args);
        assert_eq!((o.code, o.stderr.as_str()), (code, ""), "{args:?}");
        assert!(o.stdout_str().starts_with(stdout), "{args:?}: {o:?}");
        if !matches!(args[0], "verify" | "info") {
            assert_eq!(o.stdout_str(), stdout, "{args:?}");
        }
    }
    // After `--`, `-n` is a RANGE, not the option.
    let o = lidx_in(d, ["lines", "text", "1", "--", "-n"]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(
        o.stderr.starts_with("lidx: invalid range \"-n\""),
        "{}",
        o.stderr
    );
}

/// Errors from the argument parser are one line that says what to do.
#[test]
fn argument_errors_are_one_line_with_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("text"), b"a\nb\n").unwrap();
    let from_end = "count from the end with $: '$' is the last line, '$-K' the K-th before \
                    it, '$-9:$' the last 10";
    let forms = "(use N, $, $-K, A:B, A:, :B or A:+K)";
    for (args, stderr) in [
        (
            vec!["lines", "text", "2:3", "-x"],
            "lidx: unexpected argument '-x' found (tip: to pass '-x' as a value, use '-- -x')\n"
                .to_string(),
        ),
        // A negative number is a value (none of these options is a number),
        // so its own parser says what is wrong with it.
        (
            vec!["lines", "text", "-1"],
            format!(
                "lidx: invalid range \"-1\": \"-1\" is not a line number {forms}; {from_end}\n"
            ),
        ),
        (
            vec!["lines", "text", "--", "-5:3"],
            format!(
                "lidx: invalid range \"-5:3\": \"-5\" is not a line number {forms}; {from_end}\n"
            ),
        ),
        (
            vec!["lines", "text", "-5:3"],
            "lidx: unexpected argument '-5' found (tip: to pass '-5' as a value, use '-- -5')\n"
                .into(),
        ),
        (
            vec!["lines", "text", "-$"],
            "lidx: unexpected argument '-$' found (tip: to pass '-$' as a value, use '-- -$')\n"
                .into(),
        ),
        (
            vec!["line-at", "text", "-1"],
            "lidx: invalid offset \"-1\": expected a byte offset 0, 1, 2, ...\n".into(),
        ),
        (
            vec!["index", "text", "--spacing", "-5"],
            "lidx: invalid value '-5' for '--spacing <BYTES>': invalid digit found in string\n"
                .into(),
        ),
        (
            // GNU grep reads -5 as -C 5: not taken as a pattern.
            vec!["grep", "-5", "a", "text"],
            "lidx: unexpected argument '-5' found (tip: to pass '-5' as a value, use '-- -5')\n"
                .into(),
        ),
        (
            vec!["count"],
            "lidx: the following required arguments were not provided: <PATH>...\n".into(),
        ),
        (
            vec!["lines", "text", "2", "--index"],
            "lidx: a value is required for '--index <PATH>' but none was supplied\n".into(),
        ),
        (
            // bash with flags "hB" turned an unquoted $-9:$ into hB9:$.
            vec!["lines", "text", "hB9:$"],
            format!(
                "lidx: invalid range \"hB9:$\": \"hB9\" is not a line number {forms}; quote \
                 ranges that count from the end: '$-9:$' (unquoted, the shell replaces $-)\n"
            ),
        ),
    ] {
        let o = lidx_in(d, &args);
        assert_eq!(
            (o.code, o.stderr.as_str()),
            (2, stderr.as_str()),
            "{args:?}"
        );
    }
    assert!(!d.join("text.lidx").exists(), "built on a bad command line");
}

// ---------------------------------------------------------------------------
// Ranges counted from the end.

/// A tool and its arguments (the file, or the previous tool's output, is
/// its input).
type Tool = (&'static str, Vec<String>);

/// One range argument counted from the end, with the lines it selects on
/// a file of `n` lines (0-based, half-open; built from the definition,
/// not by parsing) and the `tail`/`head`/`sed` command that prints the
/// same lines where one does.
struct EndCase {
    arg: String,
    /// The first line number it names (for the message when it selects
    /// nothing).
    first: i128,
    lines: std::ops::Range<u64>,
    /// The tool run on the file, and the one its output is piped through.
    oracle: Option<(Tool, Option<Tool>)>,
}

/// The lines numbered `first..=last` (1-based, possibly below 1) that a
/// file of `n` lines has, 0-based half-open.
fn existing(first: i128, last: i128, n: u64) -> std::ops::Range<u64> {
    let a = first.max(1);
    let b = last.min(n as i128);
    if a > b {
        0..0
    } else {
        (a - 1) as u64..b as u64
    }
}

fn end_cases(n: u64, k: u64) -> Vec<EndCase> {
    let (ni, ki) = (n as i128, k as i128);
    let s = |v: &[String]| v.to_vec();
    let tail = vec!["-n".to_string(), (k + 1).to_string()];
    let head_but = vec!["-n".to_string(), format!("-{k}")];
    let mut cases = vec![
        EndCase {
            arg: format!("$-{k}"),
            first: ni - ki,
            lines: existing(ni - ki, ni - ki, n),
            // The (k+1)-th line from the end, when there is one.
            oracle: (k < n).then(|| (("tail", s(&tail)), Some(("head", vec!["-n1".into()])))),
        },
        EndCase {
            arg: format!("$-{k}:$"),
            first: ni - ki,
            lines: existing(ni - ki, ni, n),
            oracle: Some((("tail", s(&tail)), None)),
        },
        EndCase {
            arg: format!("$-{k}:"),
            first: ni - ki,
            lines: existing(ni - ki, ni, n),
            oracle: Some((("tail", s(&tail)), None)),
        },
        EndCase {
            arg: format!(":$-{k}"),
            first: 1,
            lines: existing(1, ni - ki, n),
            oracle: Some((("head", s(&head_but)), None)),
        },
        EndCase {
            arg: format!("$-{k}:+2"),
            first: ni - ki,
            lines: existing(ni - ki, ni - ki + 1, n),
            oracle: (k < n).then(|| (("tail", s(&tail)), Some(("head", vec!["-n2".into()])))),
        },
        EndCase {
            arg: format!("2:$-{k}"),
            first: 2,
            lines: existing(2, ni - ki, n),
            oracle: Some((("head", s(&head_but)), Some(("tail", vec!["-n+2".into()])))),
        },
        EndCase {
            arg: format!("$-{k}:2"),
            first: ni - ki,
            lines: existing(ni - ki, 2, n),
            // sed prints line A alone when B < A: only where A ≤ B.
            oracle: (ni - ki <= 2).then(|| {
                let a = (ni - ki).max(1);
                (("sed", vec!["-n".into(), format!("{a},2p")]), None)
            }),
        },
    ];
    if k == 0 {
        cases.push(EndCase {
            arg: "$".into(),
            first: ni,
            lines: existing(ni, ni, n),
            oracle: Some((("sed", vec!["-n".into(), "$p".into()]), None)),
        });
        cases.push(EndCase {
            arg: "1:$".into(),
            first: 1,
            lines: existing(1, ni, n),
            oracle: Some((("sed", vec!["-n".into(), "1,$p".into()]), None)),
        });
    }
    cases
}

/// `$` and `$-K` at either end of a range, with `:+K`, on files of 0 to
/// 300 lines (CRLF, NUL, no final newline, a long line), K from 0 to past
/// the line count: lines before line 1 are dropped as `tail -n` does, and a
/// range that selects nothing exits 1 saying so.
#[test]
fn ranges_from_the_end_match_tail_head_and_sed() {
    let tools = ["tail", "head", "sed"].iter().all(|t| have(t));
    for (name, data) in corpus() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let p = path.to_str().unwrap();
        let m = Model::new(data);
        let n = m.line_count();
        let o = lidx_in(dir.path(), ["index", "-q", "--spacing", "16", p]);
        assert_eq!(o.code, 0, "{name}: {o:?}");
        let ks: BTreeSet<u64> = [0, 1, 2, n / 2, n.saturating_sub(1), n, n + 3].into();
        let mut all = Vec::new();
        for k in ks {
            all.extend(end_cases(n, k));
        }
        for c in &all {
            let ctx = format!("{name} ({n} lines) {}", c.arg);
            let want = m.render(&c.lines, false);
            if let (true, Some(((tool_name, args), pipe))) = (tools, &c.oracle) {
                let mut a: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
                a.push(path.as_os_str());
                let mut got = tool(tool_name, &a, None);
                if let Some((second, args2)) = pipe {
                    let a2: Vec<&OsStr> = args2.iter().map(OsStr::new).collect();
                    got = tool(second, &a2, Some(&got));
                }
                assert_eq!(got, want, "{ctx}: the model disagrees with {tool_name}");
            }
            for numbered in [false, true] {
                let mut args = vec!["lines", "--no-build", p, &c.arg];
                if numbered {
                    args.push("-n");
                }
                let o = lidx_in(dir.path(), &args);
                assert_eq!(o.stdout, m.render(&c.lines, numbered), "{ctx} {args:?}");
                if c.lines.is_empty() {
                    assert_eq!(o.code, 1, "{ctx}");
                    let why = if c.first > n as i128 {
                        format!("line {} is past the end", c.first)
                    } else {
                        format!("range \"{}\" selects no lines", c.arg)
                    };
                    assert_eq!(
                        o.stderr,
                        format!(
                            "lidx: {p}: {why} (the file has {})\n",
                            lidx::count_of(n, "line", "lines")
                        ),
                        "{ctx}"
                    );
                } else {
                    assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{ctx}");
                }
            }
        }
        // Several at once, in the order given; one selecting nothing is
        // passed over in silence when another prints.
        let mut args = vec!["lines".to_string(), "--no-build".into(), p.into()];
        let mut want = Vec::new();
        for c in all.iter().step_by(3) {
            args.push(c.arg.clone());
            want.extend(m.render(&c.lines, false));
        }
        let o = lidx_in(dir.path(), &args);
        assert_eq!(o.stdout, want, "{name}: {args:?}");
        assert_eq!(o.code, if want.is_empty() { 1 } else { 0 }, "{name}");
    }
}

/// `grep --lines` resolves `$` the same way: matches in the last lines
/// only, against a per-line model (lines holding an `a`).
#[test]
fn grep_lines_from_the_end() {
    for (name, data) in corpus() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let p = path.to_str().unwrap();
        let m = Model::new(data);
        let n = m.line_count();
        for (arg, first, last) in [
            ("$-9:$", n as i128 - 9, n as i128),
            ("$", n as i128, n as i128),
            (":$-5", 1, n as i128 - 5),
            ("$-400:+300", n as i128 - 400, n as i128 - 101),
        ] {
            let lines = existing(first, last, n);
            let mut want = Vec::new();
            for l in lines.clone() {
                let line = m.bytes(m.span(l));
                let text = line.strip_suffix(b"\n").unwrap_or(line);
                if text.contains(&b'a') {
                    want.extend(format!("{}:", l + 1).as_bytes());
                    want.extend(text);
                    want.push(b'\n');
                }
            }
            let o = lidx_in(dir.path(), ["grep", "-n", "a", p, "--lines", arg]);
            let ctx = format!("{name} ({n} lines) --lines {arg}");
            assert_eq!(o.stdout, want, "{ctx}");
            assert_eq!(o.code, if want.is_empty() { 1 } else { 0 }, "{ctx}");
        }
    }
}

/// In an archive that ends early only the lines before the end can be
/// read; the last line is unknown, so `$` is an error (exit 2, nothing
/// printed, the reason and the readable line count on one line) rather
/// than the last readable line. Lines counted from the start still work.
#[test]
fn from_the_end_is_an_error_in_an_archive_that_ends_early() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut text = Vec::new();
    for i in 1..=20_000 {
        text.extend(format!("line {i} of a log that was still being written\n").as_bytes());
    }
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(&text).unwrap();
    let archive = e.finish().unwrap();
    let path = dir.path().join("cut.log.gz");
    std::fs::write(&path, &archive[..archive.len() / 2]).unwrap();
    let p = path.to_str().unwrap();
    let o = lidx_in(dir.path(), ["lines", p, "1"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(
        o.stdout_str(),
        "line 1 of a log that was still being written\n"
    );
    assert!(o.stderr.starts_with("lidx: warning: "), "{}", o.stderr);
    for args in [
        vec!["lines", p, "$"],
        vec!["lines", p, "$-9:$"],
        vec!["lines", p, "1", "$-1:+1"],
        vec!["lines", "-n", p, ":$-3"],
        vec!["grep", "-c", "line", p, "--lines", "$-9:"],
        vec!["grep", "-c", "line", p, "--lines", "1:2", "--lines", "$"],
    ] {
        let o = lidx_in(dir.path(), &args);
        let arg = args.iter().rev().find(|a| a.contains('$')).unwrap();
        assert_eq!(o.code, 2, "{args:?}: {o:?}");
        assert!(
            o.stderr.starts_with(&format!(
                "lidx: range \"{arg}\" counts from the last line, which is unknown: {p}"
            )) && o.stderr.contains("lines before the damage can be read"),
            "{args:?}: {}",
            o.stderr
        );
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "a sidecar was written for a damaged archive");
}

/// `lines -f '$-1:'` starts with the last two lines, then follows, as
/// `tail -n 2 -f`.
#[test]
fn follow_from_the_end() {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::mpsc;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.log");
    std::fs::write(&path, b"one\ntwo\nthree\n").unwrap();
    let mut child = Command::new(BIN)
        .args(["lines", "-q"])
        .arg(&path)
        .args(["$-1:", "-f", "-n"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no line: {what}"))
    };
    assert_eq!(next("2"), "2:two");
    assert_eq!(next("3"), "3:three");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"four\n").unwrap();
    drop(f);
    assert_eq!(next("4"), "4:four");
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Only an open range can be followed.
    let o = crate::run::lidx_with(
        [
            OsStr::new("lines"),
            path.as_os_str(),
            OsStr::new("-f"),
            OsStr::new("$-1:$"),
        ],
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2, "{o:?}");
}

/// `lidx lines --help` documents what `$` means, what happens to lines
/// before line 1, and `$` in an archive that ends early.
#[test]
fn lines_help_documents_ranges_from_the_end() {
    let o = crate::run::lidx_with(["lines", "--help"], Rules::SILENT_ERROR);
    assert_eq!(o.code, 0, "{o:?}");
    let help = o
        .stdout_str()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for part in [
        "$ is the last line and $-K the line K before it (quote them: '$-9:$')",
        "on a 5-line file, '$-9:$' prints lines 1 to 5 (as `tail -n 10`)",
        "'$-9' or 6 prints nothing (exit 1)",
        "a range counting from $ is an error",
    ] {
        assert!(help.contains(part), "lines --help lacks {part:?}:\n{help}");
    }
}
