//! The real `lidx` binary, each test in its own temporary directory, its
//! output compared byte for byte with `sed -n`, `grep -a -c ''`,
//! `grep -a -b -n ''` (when they are on PATH) and always with the model.
//! Every run has `RUST_BACKTRACE=1` and is checked for the CLI's rules: exit
//! status 0, 1 or 2; on 2 exactly one stderr line `lidx: ...`; never a
//! panic or a backtrace.

use crate::oracle::{Model, Rng, checkpoints_of, random_text};
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::run::{BIN, Out, Rules, checked};

/// "1 line", "N lines", as messages say it.
fn n_lines(n: u64) -> String {
    if n == 1 {
        "1 line".to_string()
    } else {
        format!("{n} lines")
    }
}

/// Runs `cmd` and checks the rules every run must follow.
fn finish(cmd: Command) -> Out {
    finish_with(cmd, true)
}

/// As [`finish`]; `one_line` off for the usage text clap prints when no
/// subcommand is given (multi-line by nature).
fn finish_with(cmd: Command, one_line: bool) -> Out {
    checked(
        cmd,
        Rules {
            one_line,
            silent_error: true,
        },
    )
}

fn lidx<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Out {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    finish(cmd)
}

fn os(p: &Path) -> OsString {
    p.as_os_str().to_owned()
}

/// True when `tool --version` runs (GNU sed and grep both answer it);
/// otherwise the missing-tool rule of [`crate::run::missing_tool`] (the
/// comparison falls back to the model only, or fails in CI).
pub fn have(tool: &str) -> bool {
    crate::run::have_tool(tool, "comparing with the model only")
}

pub fn tool(name: &str, args: &[&OsStr], stdin: Option<&[u8]>) -> Vec<u8> {
    let mut child = Command::new(name)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.unwrap_or_default().to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{name} {args:?} failed"
    );
    o.stdout
}

/// Files that exercise the conventions.
pub fn corpus() -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = Rng::new(77);
    let mut with_long = random_text(&mut rng, 300, 40, true);
    with_long.extend(vec![b'L'; 5000]);
    with_long.extend(b"\nend\n");
    vec![
        ("mixed.txt", random_text(&mut rng, 400, 30, false)),
        ("trailing.txt", random_text(&mut rng, 250, 30, true)),
        ("long.txt", with_long),
        ("crlf.txt", b"one\r\ntwo\r\n\r\nthree\r\n".to_vec()),
        ("nul.bin", b"\0\0\n\xff\xfe\n\0\nlast\0".to_vec()),
        ("empty.txt", Vec::new()),
        ("byte.txt", b"x".to_vec()),
        ("newlines.txt", b"\n\n\n\n".to_vec()),
    ]
}

/// One RANGE argument, built structurally (so the expected lines do not
/// depend on parsing it).
#[derive(Debug, Clone, Copy)]
enum Spec {
    One(u64),
    Span(u64, u64),
    From(u64),
    To(u64),
    Count(u64, u64),
}

impl Spec {
    fn arg(self) -> String {
        match self {
            Spec::One(n) => n.to_string(),
            Spec::Span(a, b) => format!("{a}:{b}"),
            Spec::From(a) => format!("{a}:"),
            Spec::To(b) => format!(":{b}"),
            Spec::Count(a, k) => format!("{a}:+{k}"),
        }
    }

    /// The `sed -n` script printing the same lines.
    fn sed(self) -> String {
        match self {
            Spec::One(n) => format!("{n}p"),
            Spec::Span(a, b) => format!("{a},{b}p"),
            Spec::From(a) => format!("{a},$p"),
            Spec::To(b) => format!("1,{b}p"),
            // GNU sed's `A,+N` overflows on huge N: say "to the end".
            Spec::Count(a, k) if k > 1 << 40 => format!("{a},$p"),
            Spec::Count(a, k) => format!("{a},+{}p", k - 1),
        }
    }

    /// 0-based half-open.
    fn range(self) -> std::ops::Range<u64> {
        match self {
            Spec::One(n) => n - 1..n,
            Spec::Span(a, b) => a - 1..b,
            Spec::From(a) => a - 1..u64::MAX,
            Spec::To(b) => 0..b,
            Spec::Count(a, k) => a - 1..(a - 1).saturating_add(k),
        }
    }
}

fn specs_for(n: u64) -> Vec<Vec<Spec>> {
    use Spec::*;
    let mid = (n / 2).max(1);
    vec![
        vec![One(1)],
        vec![One(mid)],
        vec![One(n.max(1))],
        vec![One(n + 1)],
        vec![Span(1, 1)],
        vec![Span(2, mid + 3)],
        vec![Span(mid, n + 10)],
        vec![Span(n + 1, n + 5)],
        vec![From(1)],
        vec![From(mid)],
        vec![From(n + 1)],
        vec![To(1)],
        vec![To(mid)],
        vec![To(n + 100)],
        vec![Count(1, 1)],
        vec![Count(mid, 3)],
        vec![Count(n.max(1), 5)],
        vec![Count(2, u64::MAX)],
        vec![Span(3, 4), One(1), From(n.saturating_sub(1).max(1))],
        vec![One(n + 2), Count(1, 2)],
        vec![One(n + 7), From(n + 3)],
    ]
}

/// `grep -a -n '' FILE | sed -n SCRIPT`, minus the newline grep adds to a
/// final line that has none (lidx prints the bytes as they are).
fn grep_n_sed(path: &Path, m: &Model, spec: Spec) -> Vec<u8> {
    let numbered = tool(
        "grep",
        &[
            OsStr::new("-a"),
            OsStr::new("-n"),
            OsStr::new(""),
            path.as_os_str(),
        ],
        None,
    );
    let mut out = tool(
        "sed",
        &[OsStr::new("-n"), OsStr::new(&spec.sed())],
        Some(&numbered),
    );
    let unterminated = m.data.last().is_some_and(|&b| b != b'\n');
    let r = spec.range();
    if unterminated && r.start < m.line_count() && r.end >= m.line_count() {
        assert_eq!(out.pop(), Some(b'\n'));
    }
    out
}

#[test]
fn lines_every_range_form_matches_sed_and_model() {
    let sed = have("sed");
    let grep = have("grep");
    for (name, data) in corpus() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let m = Model::new(data);
        let n = m.line_count();
        let o = lidx([
            os(Path::new("index")),
            "-q".into(),
            "--spacing".into(),
            "16".into(),
            os(&path),
        ]);
        assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{name}");
        for specs in specs_for(n) {
            let mut want = Vec::new();
            let mut want_n = Vec::new();
            let mut sed_out = Vec::new();
            let mut grep_out = Vec::new();
            for s in &specs {
                want.extend(m.render(&s.range(), false));
                want_n.extend(m.render(&s.range(), true));
                if sed {
                    sed_out.extend(tool(
                        "sed",
                        &[OsStr::new("-n"), OsStr::new(&s.sed()), path.as_os_str()],
                        None,
                    ));
                }
                if sed && grep {
                    grep_out.extend(grep_n_sed(&path, &m, *s));
                }
            }
            let ctx = format!("{name} ({n} lines) {specs:?}");
            if sed {
                assert_eq!(sed_out, want, "{ctx}: the model disagrees with sed");
            }
            if sed && grep {
                assert_eq!(grep_out, want_n, "{ctx}: the model disagrees with grep -n");
            }
            let mut args: Vec<OsString> = vec!["lines".into(), os(&path)];
            args.extend(specs.iter().map(|s| OsString::from(s.arg())));
            let got = lidx(&args);
            assert_eq!(got.stdout, want, "{ctx}: lines");
            args.insert(1, "-n".into());
            let got_n = lidx(&args);
            assert_eq!(got_n.stdout, want_n, "{ctx}: lines -n");
            for g in [&got, &got_n] {
                if want.is_empty() {
                    let first_past = specs
                        .iter()
                        .map(|s| s.range().start)
                        .find(|&a| a >= n)
                        .unwrap();
                    assert_eq!(g.code, 1, "{ctx}");
                    assert_eq!(
                        g.stderr,
                        format!(
                            "lidx: {}: line {} is past the end (the file has {})\n",
                            path.display(),
                            first_past + 1,
                            n_lines(n)
                        ),
                        "{ctx}"
                    );
                } else {
                    assert_eq!((g.code, g.stderr.as_str()), (0, ""), "{ctx}");
                }
            }
        }
    }
}

#[test]
fn count_matches_grep_and_model() {
    let grep = have("grep");
    for (name, data) in corpus() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let n = Model::new(data).line_count();
        if grep {
            let g = tool(
                "grep",
                &[
                    OsStr::new("-a"),
                    OsStr::new("-c"),
                    OsStr::new(""),
                    path.as_os_str(),
                ],
                None,
            );
            assert_eq!(g, format!("{n}\n").as_bytes(), "{name}: model vs grep -c");
        }
        let o = lidx([os(Path::new("count")), os(&path)]);
        assert_eq!(o.code, 0, "{name}");
        assert_eq!(o.stdout_str(), format!("{n}\n"), "{name}");
        // The first run built the sidecar and said so.
        assert!(o.stderr.starts_with("lidx: note: "), "{name}: {}", o.stderr);
        assert!(o.stderr.contains(": built: "), "{name}: {}", o.stderr);
        let again = lidx([os(Path::new("count")), os(&path)]);
        assert_eq!(
            (again.stdout_str(), again.stderr.as_str()),
            (format!("{n}\n"), ""),
            "{name}"
        );
    }
}

/// Line starts as `grep -a -b -n ''` reports them (`LINE:OFFSET:...`).
fn grep_starts(path: &Path) -> Vec<u64> {
    let out = tool(
        "grep",
        &[
            OsStr::new("-a"),
            OsStr::new("-b"),
            OsStr::new("-n"),
            OsStr::new(""),
            path.as_os_str(),
        ],
        None,
    );
    let mut starts = Vec::new();
    for (i, line) in out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let s = String::from_utf8_lossy(line);
        let mut f = s.splitn(3, ':');
        assert_eq!(f.next().unwrap(), (i + 1).to_string());
        starts.push(f.next().unwrap().parse().unwrap());
    }
    starts
}

#[test]
fn line_at_matches_grep_b_and_model() {
    let grep = have("grep");
    for (name, data) in corpus() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let m = Model::new(data);
        if grep {
            assert_eq!(grep_starts(&path), m.starts, "{name}: model vs grep -b");
        }
        let o = lidx([
            os(Path::new("index")),
            "-q".into(),
            "--spacing".into(),
            "8".into(),
            os(&path),
        ]);
        assert_eq!(o.code, 0);
        let len = m.len();
        let mut offsets: Vec<u64> = vec![0, 1, len.saturating_sub(1), len / 2];
        for &s in m.starts.iter().take(8).chain(m.starts.iter().rev().take(4)) {
            offsets.extend([s.saturating_sub(1), s, s + 1]);
        }
        let mut rng = Rng::new(len);
        offsets.extend((0..10).map(|_| rng.below(len.max(1))));
        offsets.sort();
        offsets.dedup();
        for off in offsets.into_iter().filter(|&o| o < len) {
            let o = lidx([os(Path::new("line-at")), os(&path), off.to_string().into()]);
            let want = m.line_at(off).unwrap() + 1;
            assert_eq!(
                (o.code, o.stdout_str()),
                (0, format!("{want}\n")),
                "{name} offset {off}"
            );
        }
        for off in [len, len + 1, u64::MAX] {
            let o = lidx([os(Path::new("line-at")), os(&path), off.to_string().into()]);
            assert_eq!(o.code, 1, "{name} offset {off}");
            assert!(o.stdout.is_empty());
            assert!(
                o.stderr.contains(&path.display().to_string())
                    && o.stderr.contains("past the end")
                    && o.stderr.contains(&n_lines(m.line_count())),
                "{name} offset {off}: {}",
                o.stderr
            );
        }
    }
}

fn small_file(dir: &Path) -> PathBuf {
    let path = dir.join("small.txt");
    std::fs::write(&path, b"a\nb\nc\nd\ne\n").unwrap();
    path
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_file(dir.path());
    let p = os(&path);
    for range in [
        "0",
        "5:3",
        "-1",
        "1:+0",
        "99999999999999999999999",
        "",
        ":",
        "a",
        "1:b",
        "0:5",
        "+3",
        "1::2",
        " 1",
        "$+1",
        "$-",
        "$$",
        "$:$-1",
        "$-2:$-3",
        "$:+0",
    ] {
        let o = lidx([os(Path::new("lines")), p.clone(), range.into()]);
        assert_eq!(o.code, 2, "range {range:?}: {o:?}");
        assert!(o.stderr.contains("range"), "range {range:?}: {}", o.stderr);
    }
    for off in ["-1", "abc", "99999999999999999999999", "", "1e3", "+1"] {
        let o = lidx([os(Path::new("line-at")), p.clone(), off.into()]);
        assert_eq!(o.code, 2, "offset {off:?}: {o:?}");
        assert!(o.stderr.contains("offset"), "offset {off:?}: {}", o.stderr);
    }
    for args in [
        vec!["lines"],
        vec!["lines", path.to_str().unwrap()],
        vec!["frobnicate"],
        vec!["count"],
        vec!["count", path.to_str().unwrap(), "--frobnicate"],
        vec!["lines", path.to_str().unwrap(), "1", "--cache-mb", "lots"],
    ] {
        let o = lidx(&args);
        assert_eq!(o.code, 2, "{args:?}: {o:?}");
    }
    let mut bare = Command::new(BIN);
    bare.current_dir(dir.path());
    let o = finish_with(bare, false);
    assert_eq!(o.code, 2, "no subcommand: {o:?}");
    assert!(o.stderr.contains("Usage"), "{}", o.stderr);
    // Nothing was built by a rejected command line.
    assert!(!dir.path().join("small.txt.lidx").exists());
    assert_eq!(lidx(["--version"]).code, 0);
    assert_eq!(lidx(["--help"]).code, 0);
}

#[test]
fn past_the_end_and_huge_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_file(dir.path());
    let p = path.to_str().unwrap();
    let o = lidx(["lines", "-q", p, "18446744073709551615"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!("lidx: {p}: line 18446744073709551615 is past the end (the file has 5 lines)\n")
    );
    let o = lidx(["lines", p, "4:+18446744073709551615"]);
    assert_eq!((o.code, o.stdout.as_slice()), (0, &b"d\ne\n"[..]));
    let o = lidx(["lines", "-n", p, "6", "5"]);
    assert_eq!(
        (o.code, o.stdout.as_slice(), o.stderr.as_str()),
        (0, &b"5:e\n"[..], "")
    );
    let empty = dir.path().join("empty");
    std::fs::write(&empty, b"").unwrap();
    let e = empty.to_str().unwrap();
    let o = lidx(["lines", "-q", e, "1:"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!("lidx: {e}: line 1 is past the end (the file has 0 lines)\n")
    );
    let o = lidx(["line-at", "-q", e, "0"]);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("0 lines"), "{}", o.stderr);
}

#[test]
fn missing_file_and_directory_exit_2_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.txt");
    let m = missing.to_str().unwrap();
    let d = dir.path().to_str().unwrap();
    for args in [
        vec!["lines", m, "1"],
        vec!["count", m],
        vec!["line-at", m, "0"],
        vec!["index", m],
        vec!["info", m],
        vec!["verify", m],
        vec!["lines", d, "1"],
        vec!["index", d],
        vec!["info", d],
    ] {
        let o = lidx(&args);
        assert_eq!(o.code, 2, "{args:?}");
        assert!(o.stderr.contains(args[1]), "{args:?}: {}", o.stderr);
    }
    // A directory is walked, as by `lidx grep`: empty, it has nothing to
    // count (exit 1, as `rg -c x EMPTYDIR`).
    let o = lidx(["count", d]);
    assert_eq!(
        (o.code, o.stdout_str().as_str(), o.stderr.as_str()),
        (1, "", "")
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
}

/// A FIFO (or any non-regular file) cannot be indexed: exit 2 at once,
/// with no reader or writer on the other end (opening a FIFO for reading
/// blocks until a writer comes, so the check must not need the open).
#[test]
fn fifo_source_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let dev_null = Path::new("/dev/null");
    let mut sources = vec![dev_null.to_path_buf()];
    if made {
        sources.push(fifo.clone());
    } else {
        eprintln!("note: mkfifo unavailable; checking /dev/null only");
    }
    for src in sources {
        for sub in ["count", "index"] {
            let mut child = Command::new(BIN)
                .args([OsStr::new(sub), src.as_os_str()])
                .env("RUST_BACKTRACE", "1")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let start = std::time::Instant::now();
            let status = loop {
                if let Some(st) = child.try_wait().unwrap() {
                    break Some(st);
                }
                if start.elapsed() > std::time::Duration::from_secs(5) {
                    child.kill().unwrap();
                    child.wait().unwrap();
                    break None;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            };
            let Some(status) = status else {
                panic!("lidx {sub} {} still running after 5 s", src.display());
            };
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            assert_eq!(status.code(), Some(2), "{sub} {}: {err}", src.display());
            assert!(err.contains(src.to_str().unwrap()), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
}

fn set_mtime(path: &Path, secs_ahead: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(secs_ahead))
        .unwrap();
}

/// What a case of [`bad_sources_and_sidecars_table`] feeds to stdin.
enum Stdin {
    Null,
    /// A pipe carrying these bytes.
    Pipe(&'static [u8]),
    /// The file, opened for reading (a redirect: `< FILE`).
    File(PathBuf),
}

/// What a case runs, feeds, and expects: exit status, a word of the error
/// line, the output on success.
type TableCase<'a> = (&'a str, Vec<&'a str>, Stdin, i32, &'a str, &'a [u8]);

/// The bad-input table for sources and sidecars (the ranges and offsets
/// are in [`bad_arguments_exit_2_with_one_line`], an unreadable source and
/// an unwritable directory in [`unwritable_source_directory_uses_the_cache_dir`]):
/// each case's exit status, a word its one stderr line must hold (the file
/// it names), and its exact output when it succeeds.
#[test]
fn bad_sources_and_sidecars_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = d.join("a.txt");
    std::fs::write(&text, b"one\ntwo\nthree\n").unwrap();
    let t = text.to_str().unwrap();
    let other = d.join("b.txt");
    std::fs::write(&other, b"uno\ndos\n").unwrap();
    let o = other.to_str().unwrap();

    // b.txt.lidx is a copy of a.txt's sidecar: another file's.
    assert_eq!(lidx(["index", "-q", t]).code, 0);
    std::fs::copy(d.join("a.txt.lidx"), d.join("b.txt.lidx")).unwrap();
    // new.txt.lidx is from a newer major version of the format.
    let newer = d.join("new.txt");
    std::fs::write(&newer, b"x\n").unwrap();
    let n = newer.to_str().unwrap();
    assert_eq!(lidx(["index", "-q", n]).code, 0);
    let mut sb = std::fs::read(d.join("new.txt.lidx")).unwrap();
    sb[8..10].copy_from_slice(&2u16.to_le_bytes());
    std::fs::write(d.join("new.txt.lidx"), &sb).unwrap();
    // A sidecar path that is a directory, and one that is a FIFO.
    let side_dir = d.join("sidecar-dir");
    std::fs::create_dir(&side_dir).unwrap();
    let sd = side_dir.to_str().unwrap();
    let fifo = d.join("fifo.lidx");
    let have_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let ff = fifo.to_str().unwrap();
    // A symlink to the text works as the text.
    let link = d.join("link.txt");
    std::os::unix::fs::symlink(&text, &link).unwrap();
    let l = link.to_str().unwrap();

    let sidecars_before: Vec<(PathBuf, Vec<u8>)> = ["b.txt.lidx", "new.txt.lidx"]
        .iter()
        .map(|f| (d.join(f), std::fs::read(d.join(f)).unwrap()))
        .collect();

    #[rustfmt::skip]
    let cases: Vec<TableCase> = vec![
        ("pipe as -", vec!["lines", "-", "1"], Stdin::Pipe(b"x\ny\n"), 2, "/dev/stdin: not a regular file", b""),
        ("pipe as /dev/stdin", vec!["count", "/dev/stdin"], Stdin::Pipe(b"x\n"), 2, "/dev/stdin: not a regular file", b""),
        ("pipe to grep", vec!["grep", "x", "-"], Stdin::Pipe(b"x\n"), 2, "/dev/stdin: not a regular file", b""),
        ("redirected file as -", vec!["lines", "-q", "-", "2"], Stdin::File(text.clone()), 0, "", b"two\n"),
        ("redirected file as /dev/stdin", vec!["line-at", "-q", "/dev/stdin", "5"], Stdin::File(text.clone()), 0, "", b"2\n"),
        ("/dev/null", vec!["lines", "/dev/null", "1"], Stdin::Null, 2, "/dev/null: not a regular file", b""),
        ("symlink", vec!["lines", "-q", l, "3"], Stdin::Null, 0, "", b"three\n"),
        ("another file's sidecar", vec!["lines", o, "1"], Stdin::Null, 2, "b.txt.lidx", b""),
        ("another file's sidecar, index", vec!["index", o], Stdin::Null, 2, "b.txt.lidx", b""),
        ("another file's sidecar, verify", vec!["verify", o], Stdin::Null, 2, "b.txt.lidx", b""),
        ("newer format", vec!["lines", n, "1"], Stdin::Null, 2, "new.txt.lidx", b""),
        ("newer format, count", vec!["count", "--no-build", n], Stdin::Null, 2, "new.txt.lidx", b""),
        ("newer format, index", vec!["index", n], Stdin::Null, 2, "new.txt.lidx", b""),
        ("newer format, info", vec!["info", n], Stdin::Null, 2, "new.txt.lidx", b""),
        ("sidecar path is a directory", vec!["lines", "--index", sd, t, "1"], Stdin::Null, 2, sd, b""),
        ("sidecar path is a FIFO", vec!["lines", "--index", ff, t, "1"], Stdin::Null, 2, ff, b""),
        ("missing --index, --no-build", vec!["count", "--no-build", "--index", "/nonexistent/x.lidx", t], Stdin::Null, 2, "/nonexistent/x.lidx", b""),
    ];
    for (what, args, stdin, code, says, want) in cases {
        if !have_fifo && what.contains("FIFO") {
            continue;
        }
        let mut cmd = Command::new(BIN);
        cmd.args(&args).current_dir(d);
        let fed = match stdin {
            Stdin::Null => {
                cmd.stdin(Stdio::null());
                None
            }
            Stdin::File(p) => {
                cmd.stdin(std::fs::File::open(p).unwrap());
                None
            }
            Stdin::Pipe(bytes) => {
                cmd.stdin(Stdio::piped());
                Some(bytes)
            }
        };
        let out = match fed {
            None => finish(cmd),
            Some(bytes) => {
                // A pipe needs a writer: feed it from a thread while lidx runs.
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::scope(|s| {
                    s.spawn(|| {
                        cmd.env("RUST_BACKTRACE", "1");
                        let mut child = cmd
                            .stdout(Stdio::piped())
                            .stderr(Stdio::piped())
                            .spawn()
                            .unwrap();
                        let mut pipe = child.stdin.take().unwrap();
                        let _ = pipe.write_all(bytes);
                        drop(pipe);
                        tx.send(child.wait_with_output().unwrap()).unwrap();
                    });
                });
                let o = rx.recv().unwrap();
                let err = String::from_utf8_lossy(&o.stderr).into_owned();
                assert!(
                    !err.contains("panicked") && !err.contains("backtrace"),
                    "{what}: {err}"
                );
                Out {
                    code: o.status.code().unwrap_or(-1),
                    stdout: o.stdout,
                    stderr: err,
                }
            }
        };
        assert_eq!(out.code, code, "{what}: {out:?}");
        if code == 2 {
            assert_eq!(out.stderr.lines().count(), 1, "{what}: {}", out.stderr);
            assert!(
                out.stderr.contains(says),
                "{what}: wanted {says:?} in {}",
                out.stderr
            );
            assert!(out.stdout.is_empty(), "{what}");
        } else {
            assert_eq!(out.stdout, want, "{what}: {}", out.stderr);
        }
    }
    // Nothing of the user's was replaced, nothing written under /dev, and
    // the redirected file's sidecar is the one next to it.
    for (path, bytes) in sidecars_before {
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", path.display());
    }
    assert!(!Path::new("/dev/stdin.lidx").exists());
    assert!(side_dir.read_dir().unwrap().next().is_none());
    let v = lidx(["verify", t]);
    assert_eq!(v.code, 0, "{v:?}");
    // A file under /dev that is not a descriptor alias (tmpfs /dev/shm) is
    // a file like any other, its sidecar next to it.
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && std::fs::write(
            shm.join(format!("lidx-{}.txt", std::process::id())),
            b"a\nb\n",
        )
        .is_ok()
    {
        let f = shm.join(format!("lidx-{}.txt", std::process::id()));
        let o = lidx(["lines", "-q", f.to_str().unwrap(), "2"]);
        let side = shm.join(format!("lidx-{}.txt.lidx", std::process::id()));
        let built = side.exists();
        let _ = std::fs::remove_file(&f);
        let _ = std::fs::remove_file(&side);
        assert_eq!((o.code, o.stdout.as_slice()), (0, &b"b\n"[..]), "{o:?}");
        assert!(built, "no sidecar next to the /dev/shm file");
    }
    // --force replaces the foreign and the newer sidecar.
    for f in [o, n] {
        assert_eq!(lidx(["index", "-q", "--force", f]).code, 0);
        assert_eq!(lidx(["verify", f]).code, 0);
    }
}

#[test]
fn stale_and_grown_sources_are_refreshed_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.txt");
    let p = path.to_str().unwrap();
    let side = format!("{p}.lidx");
    std::fs::write(&path, b"one\ntwo\nthree\n").unwrap();
    let o = lidx(["lines", p, "2"]);
    assert_eq!((o.code, o.stdout.as_slice()), (0, &b"two\n"[..]));
    assert!(
        o.stderr
            .starts_with(&format!("lidx: note: {side}: built: 3 lines in ")),
        "{}",
        o.stderr
    );

    // Rewritten (same size, other bytes, new mtime): rebuilt.
    std::fs::write(&path, b"uno\ndos\ntres\n\n").unwrap();
    set_mtime(&path, 5);
    let o = lidx(["lines", p, "2:"]);
    assert_eq!((o.code, o.stdout.as_slice()), (0, &b"dos\ntres\n\n"[..]));
    assert!(
        o.stderr.starts_with(&format!(
            "lidx: note: {side}: rebuilt (the file was rewritten): 4 lines in "
        )),
        "{}",
        o.stderr
    );
    assert_eq!(o.stderr.lines().count(), 1);
    let o = lidx(["count", p]);
    assert_eq!((o.stdout_str(), o.stderr.as_str()), ("4\n".to_string(), ""));

    // Shrunk: rebuilt.
    std::fs::write(&path, b"x").unwrap();
    let o = lidx(["count", p]);
    assert_eq!(o.stdout_str(), "1\n");
    assert!(
        o.stderr
            .contains("rebuilt (the file was rewritten): 1 line in"),
        "{}",
        o.stderr
    );

    // Grown: extended, a final line without newline completed.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"yz\nnew\n")
        .unwrap();
    let o = lidx(["lines", "-n", p, "1:"]);
    assert_eq!((o.code, o.stdout.as_slice()), (0, &b"1:xyz\n2:new\n"[..]));
    assert!(
        o.stderr.starts_with(&format!(
            "lidx: note: {side}: extended (the file grew): 2 lines in "
        )),
        "{}",
        o.stderr
    );
    // --quiet silences the note; --no-build refuses a stale sidecar.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"more\n")
        .unwrap();
    let o = lidx(["count", "--no-build", p]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains(&side) && o.stderr.contains("stale"),
        "{}",
        o.stderr
    );
    let o = lidx(["count", "-q", p]);
    assert_eq!(
        (o.code, o.stdout_str(), o.stderr.as_str()),
        (0, "3\n".to_string(), "")
    );
}

fn flip(path: &Path, at: usize) {
    let mut b = std::fs::read(path).unwrap();
    b[at] ^= 0x01;
    std::fs::write(path, b).unwrap();
}

/// A file whose sidecar (spacing 1, page 4096) has several leaves: the
/// root is page 1 and the leaves follow it (the head-first layout).
fn multi_page(dir: &Path) -> (PathBuf, PathBuf, Model) {
    let path = dir.join("multi.txt");
    let mut rng = Rng::new(31);
    let data = random_text(&mut rng, 2000, 10, true);
    std::fs::write(&path, &data).unwrap();
    let o = lidx([
        os(Path::new("index")),
        "-q".into(),
        "--spacing".into(),
        "1".into(),
        os(&path),
    ]);
    assert_eq!(o.code, 0);
    let side = dir.join("multi.txt.lidx");
    let b = std::fs::read(&side).unwrap();
    assert!(b.len() / 4096 >= 5, "{}", b.len());
    (path, side, Model::new(data))
}

#[test]
fn corrupt_sidecars_exit_2_naming_the_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let (path, side, m) = multi_page(dir.path());
    let p = path.to_str().unwrap();
    let s = side.to_str().unwrap();
    let fresh = std::fs::read(&side).unwrap();
    let expect_2 = |args: &[&str], what: &str| {
        let o = lidx(args);
        assert_eq!(o.code, 2, "{what}: {args:?}: {o:?}");
        assert!(
            o.stderr.contains(s),
            "{what}: the message must name the sidecar: {}",
            o.stderr
        );
        assert!(
            ["corrupt", "not a lidx", "not supported"]
                .iter()
                .any(|w| o.stderr.contains(w)),
            "{what}: {}",
            o.stderr
        );
    };
    let restore = || std::fs::write(&side, &fresh).unwrap();
    let sb = lidx::read_superblock(&side).unwrap();
    assert_eq!((sb.root_page, sb.first_leaf), (1, 2));

    // Page 2, the first leaf: every query that needs it.
    flip(&side, 2 * 4096 + 123);
    expect_2(&["lines", p, "1"], "page 2");
    expect_2(&["line-at", p, "0"], "page 2");
    expect_2(&["lines", p, "1:3"], "page 2");
    expect_2(&["verify", p], "page 2");
    // A query that does not touch page 2 still answers, and right.
    let o = lidx(["lines", p, &m.line_count().to_string()]);
    assert_eq!(
        o.stdout,
        m.render(&(m.line_count() - 1..m.line_count()), false)
    );
    // The damaged sidecar was not replaced.
    assert_ne!(std::fs::read(&side).unwrap(), fresh);

    // The root page (page 1).
    restore();
    flip(&side, 4096 + 20);
    expect_2(&["count", p], "root");
    expect_2(&["lines", p, "5"], "root");

    // The superblock.
    for at in [3usize, 9, 33, 60, 100, 200, 252] {
        restore();
        flip(&side, at);
        expect_2(&["count", p], &format!("superblock byte {at}"));
        expect_2(&["line-at", p, "10"], &format!("superblock byte {at}"));
        // info reads only the superblock: it must fail too, not guess.
        let o = lidx(["info", p]);
        assert_eq!(o.code, 2, "info after superblock byte {at}");
    }

    // Truncated.
    for keep in [fresh.len() - 4096, 4096, 100, 0] {
        std::fs::write(&side, &fresh[..keep]).unwrap();
        expect_2(&["lines", p, "1"], &format!("truncated to {keep}"));
        assert_eq!(std::fs::read(&side).unwrap().len(), keep, "left as it was");
    }

    // Not a sidecar: an error, and the file is not overwritten (by queries
    // nor by `index`); `index --force` replaces it.
    let notes = b"my own notes, not an index\n".repeat(300);
    std::fs::write(&side, &notes).unwrap();
    expect_2(&["lines", p, "1"], "foreign file");
    expect_2(&["count", p], "foreign file");
    expect_2(&["index", p], "foreign file");
    assert_eq!(std::fs::read(&side).unwrap(), notes);
    let o = lidx(["index", "--force", "-q", p]);
    assert_eq!(o.code, 0, "{o:?}");
    let o = lidx(["lines", p, "1"]);
    assert_eq!(o.stdout, m.render(&(0..1), false));
}

#[test]
fn no_build_and_explicit_index_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_file(dir.path());
    let p = path.to_str().unwrap();
    let default_side = dir.path().join("small.txt.lidx");
    let o = lidx(["lines", "--no-build", p, "1"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains(p) && o.stderr.contains("lidx index"),
        "{}",
        o.stderr
    );
    assert!(!default_side.exists());
    let o = lidx(["line-at", "--no-build", p, "0"]);
    assert_eq!(o.code, 2);

    let other_dir = tempfile::tempdir().unwrap();
    let side = other_dir.path().join("custom.idx");
    let s = side.to_str().unwrap();
    let o = lidx(["lines", "--index", s, p, "2:3"]);
    assert_eq!((o.code, o.stdout.as_slice()), (0, &b"b\nc\n"[..]));
    assert!(o.stderr.contains(s), "{}", o.stderr);
    assert!(side.exists());
    assert!(!default_side.exists());
    let o = lidx(["count", "--no-build", "--index", s, p]);
    assert_eq!(
        (o.code, o.stdout_str(), o.stderr.as_str()),
        (0, "5\n".to_string(), "")
    );
    let o = lidx(["info", "--index", s, p]);
    assert!(
        o.stdout_str().contains(&format!("sidecar:      {s}\n")),
        "{}",
        o.stdout_str()
    );
    let o = lidx(["verify", "--index", s, p]);
    assert_eq!(o.code, 0, "{o:?}");
    // Without --index, the default place is still empty.
    let o = lidx(["info", p]);
    assert_eq!(o.code, 2);
}

/// Extracts `"key":value` from a one-line JSON object (values are numbers,
/// booleans or strings without escapes in these tests).
fn json_field(json: &str, key: &str) -> String {
    let pat = format!("\"{key}\":");
    let at = json
        .find(&pat)
        .unwrap_or_else(|| panic!("{key} missing in {json}"))
        + pat.len();
    let rest = &json[at..];
    if let Some(s) = rest.strip_prefix('"') {
        s[..s.find('"').unwrap()].to_string()
    } else {
        rest[..rest.find([',', '}']).unwrap()].to_string()
    }
}

#[test]
fn info_and_info_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("i.txt");
    let p = path.to_str().unwrap();
    let mut rng = Rng::new(2);
    let data = random_text(&mut rng, 3000, 60, false);
    std::fs::write(&path, &data).unwrap();
    let m = Model::new(data.clone());
    let o = lidx(["info", p]);
    assert_eq!(o.code, 2, "no sidecar yet");
    let o = lidx(["index", "--spacing", "64", p]);
    assert_eq!(o.code, 0);
    assert!(o.stderr.contains(": built: "), "{}", o.stderr);
    let cps = checkpoints_of(&m.starts, m.len(), 64).len() as u64;
    let (height, pages) = crate::oracle::tree_shape(cps, 4096);
    let side = format!("{p}.lidx");
    let o = lidx(["info", p]);
    assert_eq!(o.code, 0);
    let text = o.stdout_str();
    for want in [
        format!("file:         {p}\n"),
        format!("sidecar:      {side}\n"),
        format!("lines:        {}\n", m.line_count()),
        format!("source size:  {} bytes\n", m.len()),
        format!("checkpoints:  {cps}\n"),
        format!("pages:        {pages} x 4096 bytes\n"),
        format!("tree height:  {height}\n"),
        "spacing:      64 bytes\n".to_string(),
        "format:       v1.2\n".to_string(),
        "fresh:        yes (size, modification time, head and tail as indexed)\n".to_string(),
    ] {
        assert!(text.contains(&want), "missing {want:?} in\n{text}");
    }
    let o = lidx(["info", "--json", p]);
    let json = o.stdout_str();
    assert_eq!(json.lines().count(), 1);
    assert!(json.starts_with('{') && json.ends_with("}\n"), "{json}");
    for (k, v) in [
        ("file", p.to_string()),
        ("sidecar", side.clone()),
        ("lines", m.line_count().to_string()),
        ("source_size", m.len().to_string()),
        ("sidecar_size", (pages as u64 * 4096).to_string()),
        ("checkpoints", cps.to_string()),
        ("pages", pages.to_string()),
        ("page_size", "4096".into()),
        ("height", height.to_string()),
        ("spacing", "64".into()),
        ("version", "1.2".into()),
        ("fresh", "true".into()),
    ] {
        assert_eq!(json_field(&json, k), v, "{k} in {json}");
    }
    let pct: f64 = json_field(&json, "sidecar_percent").parse().unwrap();
    let want = (pages as f64 * 4096.0) * 100.0 / m.len() as f64;
    assert!((pct - want).abs() < 1e-3, "{pct} vs {want}");

    // After an append: stale, and info says so without rebuilding.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"\nmore\n")
        .unwrap();
    let o = lidx(["info", p]);
    assert_eq!(o.code, 0);
    assert!(
        o.stdout_str()
            .contains("fresh:        no (the source was appended to since indexing)\n"),
        "{}",
        o.stdout_str()
    );
    let o = lidx(["info", "--json", p]);
    assert_eq!(json_field(&o.stdout_str(), "fresh"), "false");
    assert_eq!(json_field(&o.stdout_str(), "source"), "appended to");
    assert_eq!(
        json_field(&o.stdout_str(), "lines"),
        m.line_count().to_string()
    );

    // Names that need escaping in JSON.
    let odd = dir.path().join("we\"ird\\na\tme\u{1}.txt");
    std::fs::write(&odd, b"q\n").unwrap();
    assert_eq!(
        lidx([os(Path::new("index")), "-q".into(), os(&odd)]).code,
        0
    );
    let o = lidx([os(Path::new("info")), "--json".into(), os(&odd)]);
    let dir_json = dir.path().to_str().unwrap().replace('\\', "\\\\");
    let want = format!("{{\"file\":\"{dir_json}/we\\\"ird\\\\na\\tme\\u0001.txt\",");
    assert!(
        o.stdout_str().starts_with(&want),
        "{}\nwant prefix {want}",
        o.stdout_str()
    );
}

#[test]
fn verify_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let (path, side, m) = multi_page(dir.path());
    let p = path.to_str().unwrap();
    let fresh = std::fs::read(&side).unwrap();
    let o = lidx(["verify", p]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(
        o.stdout_str().contains(": ok: ")
            && o.stdout_str()
                .contains(&format!("{} lines", m.line_count())),
        "{}",
        o.stdout_str()
    );
    let o = lidx(["verify", "--full", p]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(
        o.stdout_str().contains("every checkpoint re-scanned"),
        "{}",
        o.stdout_str()
    );

    // A checkpoint moved by one byte, its page re-sealed: only a full
    // verify can tell, and it must.
    let sb = lidx::read_superblock(&side).unwrap();
    // One that is not first in its leaf (no separator above it), whose line
    // has 2+ bytes (moving it keeps the order), far from the end.
    let cps = crate::oracle::stored_checkpoints(&fresh);
    let i = (1000..cps.len() - 1)
        .find(|&i| i % 255 != 0 && cps[i + 1].offset - cps[i].offset >= 2)
        .unwrap();
    let cp = cps[i];
    let mut bad = fresh.clone();
    let leaf = (sb.first_leaf as usize..=sb.last_leaf as usize)
        .find(|&id| {
            let page = &fresh[id * 4096..(id + 1) * 4096];
            page.windows(8).any(|w| w == cp.offset.to_le_bytes())
        })
        .unwrap();
    let page = &mut bad[leaf * 4096..(leaf + 1) * 4096];
    let at = (16..4096)
        .step_by(8)
        .find(|&i| page[i..i + 8] == cp.offset.to_le_bytes())
        .unwrap();
    // Its line column holds numbers below 2000, offsets are larger.
    assert!(cp.offset > 2000);
    page[at..at + 8].copy_from_slice(&(cp.offset + 1).to_le_bytes());
    lidx::format::seal_page(page);
    std::fs::write(&side, &bad).unwrap();
    let o = lidx(["verify", p]);
    assert_eq!(o.code, 0, "structure intact: {o:?}");
    let o = lidx(["verify", "--full", p]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(o.stderr.contains(p), "{}", o.stderr);

    // Damaged page: 2 with or without --full.
    std::fs::write(&side, &fresh).unwrap();
    flip(&side, 4096 * 2 + 77);
    for args in [vec!["verify", p], vec!["verify", "--full", p]] {
        let o = lidx(&args);
        assert_eq!(o.code, 2, "{args:?}: {o:?}");
        assert!(o.stderr.contains(side.to_str().unwrap()), "{}", o.stderr);
    }

    // Stale: 1 (appended, or rewritten), and verify never rebuilds.
    std::fs::write(&side, &fresh).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"tail\n")
        .unwrap();
    for args in [vec!["verify", p], vec!["verify", "--full", p]] {
        let o = lidx(&args);
        assert_eq!(o.code, 1, "{args:?}: {o:?}");
        assert!(o.stdout_str().contains("stale"), "{}", o.stdout_str());
    }
    let mut data = m.data.clone();
    data[0] ^= 0x20;
    std::fs::write(&path, &data).unwrap();
    let o = lidx(["verify", p]);
    assert_eq!(o.code, 1, "{o:?}");
    assert_eq!(std::fs::read(&side).unwrap(), fresh);
    // Missing sidecar: an error.
    std::fs::remove_file(&side).unwrap();
    assert_eq!(lidx(["verify", p]).code, 2);
}

#[test]
fn index_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_file(dir.path());
    let p = path.to_str().unwrap();
    let side = format!("{p}.lidx");
    let o = lidx(["index", p]);
    assert_eq!(o.code, 0);
    assert!(
        o.stderr
            .starts_with(&format!("lidx: {side}: built: 5 lines, 1 checkpoint, ")),
        "{}",
        o.stderr
    );
    let o = lidx(["index", p]);
    assert!(o.stderr.contains(": up to date: "), "{}", o.stderr);
    let o = lidx(["index", "--spacing", "1", p]);
    assert!(
        o.stderr.contains(": rebuilt: 5 lines, 5 checkpoints"),
        "{}",
        o.stderr
    );
    let o = lidx(["info", "--json", p]);
    assert_eq!(json_field(&o.stdout_str(), "spacing"), "1");
    let o = lidx(["index", "-q", "--spacing", "0", p]);
    assert_eq!(o.code, 2);
    let o = lidx(["index", "-q", p]);
    assert_eq!((o.code, o.stderr.as_str()), (0, ""));
}

/// `lidx lines f 1: | head -1`: the reader goes away; lidx stops quietly
/// with status 0.
#[test]
fn closed_pipe_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let mut rng = Rng::new(9);
    let data = random_text(&mut rng, 200_000, 30, true);
    assert!(data.len() > 2 << 20);
    std::fs::write(&path, &data).unwrap();
    assert_eq!(
        lidx([os(Path::new("index")), "-q".into(), os(&path)]).code,
        0
    );
    for numbered in [false, true] {
        let mut cmd = Command::new(BIN);
        cmd.arg("lines");
        if numbered {
            cmd.arg("-n");
        }
        let mut child = cmd
            .arg(&path)
            .arg("1:")
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 64];
        stdout.read_exact(&mut first).unwrap();
        let want = Model::new(data.clone()).render(&(0..10), numbered);
        assert_eq!(&first[..], &want[..64]);
        drop(stdout);
        let o = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "numbered {numbered}: {stderr}");
        assert_eq!(stderr, "", "numbered {numbered}");
    }
    // The same through a shell pipeline, when there is one.
    if Path::new("/bin/sh").exists() {
        let script = format!(
            "\"{BIN}\" lines '{}' 1: 2>err | head -c 10 >/dev/null; cat err",
            path.display()
        );
        let o = Command::new("/bin/sh")
            .arg("-c")
            .arg(&script)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stdout), "", "stderr of lidx");
    }
}

/// The FNV-1a 64 hash the cache-directory sidecar name is derived from.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn is_root() -> bool {
    // Without libc in the test's dependencies: ask id(1), or /proc.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

/// A source directory lidx may not write, and a way to run lidx as someone
/// who cannot write it: as root (permission bits do not stop root), lidx
/// runs as uid/gid 65534 via `setpriv`; otherwise the directory is 0555.
/// `$XDG_CACHE_HOME` points to a directory that user can write.
pub struct ReadOnlyDir {
    top: tempfile::TempDir,
    pub src_dir: PathBuf,
    pub cache: PathBuf,
    prefix: Vec<OsString>,
    bin: PathBuf,
    root: bool,
}

impl ReadOnlyDir {
    /// `None` (with the reason printed) when neither way works here.
    pub fn new(test: &str) -> Option<ReadOnlyDir> {
        use std::os::unix::fs::PermissionsExt;
        let root = is_root();
        let top = tempfile::Builder::new()
            .prefix("lidx-it-")
            .tempdir_in("/tmp")
            .unwrap();
        std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let src_dir = top.path().join("ro");
        let cache = top.path().join("cache");
        std::fs::create_dir(&src_dir).unwrap();
        std::fs::create_dir(&cache).unwrap();
        let mut prefix: Vec<OsString> = Vec::new();
        let mut bin = PathBuf::from(BIN);
        if root {
            let drop_privs = [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
            ];
            let works = |bin: &Path| {
                Command::new(drop_privs[0])
                    .args(&drop_privs[1..])
                    .arg(bin)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            };
            if !works(&bin) {
                // target/ may not be reachable by uid 65534: use a copy.
                let copy = top.path().join("lidx");
                std::fs::copy(&bin, &copy).unwrap();
                std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
                bin = copy;
            }
            if !works(&bin) {
                eprintln!(
                    "SKIPPED {test}: running as root and `setpriv --reuid=65534` does not work here"
                );
                return None;
            }
            prefix.extend(drop_privs.iter().map(OsString::from));
            std::os::unix::fs::chown(&cache, Some(65534), Some(65534)).unwrap();
        }
        let d = ReadOnlyDir {
            top,
            src_dir,
            cache,
            prefix,
            bin,
            root,
        };
        d.lock();
        if !root && std::fs::write(d.src_dir.join("probe"), b"").is_ok() {
            eprintln!("SKIPPED {test}: chmod 0555 does not stop writes here");
            return None;
        }
        Some(d)
    }

    fn lock(&self) {
        use std::os::unix::fs::PermissionsExt;
        let mode = if self.root { 0o755 } else { 0o555 };
        std::fs::set_permissions(&self.src_dir, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// Runs `f` while the test's own user may write the source directory.
    pub fn as_owner<R>(&self, f: impl FnOnce() -> R) -> R {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&self.src_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let r = f();
        self.lock();
        r
    }

    /// Runs lidx as the user who may not write the source directory.
    pub fn run(&self, args: &[&str]) -> Out {
        let mut cmd = if self.prefix.is_empty() {
            Command::new(&self.bin)
        } else {
            let mut c = Command::new(&self.prefix[0]);
            c.args(&self.prefix[1..]).arg(&self.bin);
            c
        };
        cmd.args(args)
            .env("XDG_CACHE_HOME", &self.cache)
            .env("HOME", &self.cache)
            .current_dir(self.top.path());
        finish(cmd)
    }

    /// Where lidx must put the sidecar of `src`: the FNV-1a 64 hash of the
    /// absolute path in hex, a dash, the basename, `.lidx`.
    pub fn cache_sidecar(&self, src: &Path) -> PathBuf {
        let abs = std::fs::canonicalize(src).unwrap();
        let name = src.file_name().unwrap().to_str().unwrap();
        self.cache.join("lidx").join(format!(
            "{:016x}-{name}.lidx",
            fnv1a64(abs.as_os_str().as_encoded_bytes())
        ))
    }

    pub fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.src_dir.join(name);
        self.as_owner(|| {
            std::fs::write(&path, data).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        });
        path
    }
}

impl Drop for ReadOnlyDir {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&self.src_dir, std::fs::Permissions::from_mode(0o755));
    }
}

fn append_to(path: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// A source in a directory we may not write: the sidecar goes to
/// `$XDG_CACHE_HOME/lidx/`, named after the source's absolute path, and is
/// found there next time.
#[test]
fn unwritable_source_directory_uses_the_cache_dir() {
    let Some(d) = ReadOnlyDir::new("unwritable_source_directory_uses_the_cache_dir") else {
        return;
    };
    let mut rng = Rng::new(5);
    let data = random_text(&mut rng, 500, 20, false);
    let src = d.write("data.log", &data);
    let m = Model::new(data.clone());
    let s = src.to_str().unwrap();
    let expected = d.cache_sidecar(&src);

    let o = d.run(&["lines", "-n", s, "10:+5"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.stdout, m.render(&(9..14), true));
    assert!(
        o.stderr
            .contains(&format!("lidx: note: {}: built: ", expected.display())),
        "{}",
        o.stderr
    );
    assert!(expected.exists(), "sidecar not at {}", expected.display());
    assert_eq!(
        std::fs::read_dir(&d.src_dir).unwrap().count(),
        1,
        "nothing next to the source"
    );

    // Found there next time: no note, same answers.
    let o = d.run(&["count", s]);
    assert_eq!(
        (o.code, o.stdout_str(), o.stderr.as_str()),
        (0, format!("{}\n", m.line_count()), "")
    );
    let o = d.run(&["line-at", s, &m.starts[77].to_string()]);
    assert_eq!(o.stdout_str(), "78\n");
    let o = d.run(&["info", s]);
    assert!(
        o.stdout_str()
            .contains(&format!("sidecar:      {}\n", expected.display())),
        "{}",
        o.stdout_str()
    );
    assert_eq!(d.run(&["verify", "--full", s]).code, 0);

    // Grown: extended in the cache directory.
    append_to(&src, b"\nappended\n");
    let o = d.run(&["lines", s, &format!("{}:", m.line_count())]);
    let mut want = m.render(&(m.line_count() - 1..m.line_count()), false);
    want.extend(b"\nappended\n");
    assert_eq!((o.code, &o.stdout), (0, &want), "{}", o.stderr);
    assert!(
        o.stderr
            .contains(&format!("{}: extended", expected.display())),
        "{}",
        o.stderr
    );
    let o = d.run(&["count", s]);
    assert_eq!(
        (o.stdout_str(), o.stderr.as_str()),
        (format!("{}\n", m.line_count() + 1), "")
    );
    assert_eq!(
        std::fs::read_dir(&d.src_dir).unwrap().count(),
        1,
        "nothing next to the source"
    );

    // A source that user may not read: an error naming it.
    let secret = d.write("secret.log", b"x\n");
    d.as_owner(|| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    });
    let o = d.run(&["count", secret.to_str().unwrap()]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(o.stderr.contains(secret.to_str().unwrap()), "{}", o.stderr);
}

/// A sidecar next to the source, left stale when the source grew, in a
/// directory the user may not write: the extension goes to the cache
/// directory, and from then on that fresh sidecar is used. (Extending again
/// on every run, with a note each time, means the stale one shadows it.)
#[test]
fn stale_sidecar_in_unwritable_dir_is_extended_once() {
    let Some(d) = ReadOnlyDir::new("stale_sidecar_in_unwritable_dir_is_extended_once") else {
        return;
    };
    let src = d.write("grow.log", b"a\nb\n");
    let s = src.to_str().unwrap();
    // Indexed by the directory's owner, next to the source.
    d.as_owner(|| assert_eq!(lidx(["count", "-q", s]).code, 0));
    assert!(d.src_dir.join("grow.log.lidx").exists());
    append_to(&src, b"c\n");
    let cached = d.cache_sidecar(&src);
    let o = d.run(&["count", s]);
    assert_eq!(o.stdout_str(), "3\n");
    assert!(
        o.stderr
            .contains(&format!("{}: extended", cached.display())),
        "{}",
        o.stderr
    );
    for run in 2..4 {
        let o = d.run(&["count", s]);
        assert_eq!(o.stdout_str(), "3\n");
        assert_eq!(
            o.stderr, "",
            "run {run}: the fresh sidecar in the cache directory was not used"
        );
    }
}

/// A gzip source (recognised by its magic, whatever its name) is indexed
/// as its uncompressed text: answers equal the same queries on the text.
#[test]
fn gzip_source_answers_as_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = Vec::new();
    for i in 0..50_000u32 {
        text.extend_from_slice(format!("line {i} {}\n", "y".repeat((i % 97) as usize)).as_bytes());
    }
    text.extend_from_slice(b"last line without newline");
    let gz = |data: &[u8], level: u32| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    // Two members, as `cat a.gz b.gz` makes.
    let mut archive = gz(&text[..1_000_000], 9);
    archive.extend(gz(&text[1_000_000..], 1));
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let re = regex::bytes::Regex::new("^line 4[0-9]{4} y{96}$").unwrap();
    for name in ["app.log.gz", "no-suffix.log"] {
        let path = dir.path().join(name);
        std::fs::write(&path, &archive).unwrap();
        let p = path.to_str().unwrap();
        let o = lidx(["index", "--spacing", "4096", p]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(
            lidx(["count", p]).stdout,
            format!("{}\n", lines.len()).into_bytes()
        );
        for n in [1usize, 2, 9_999, 25_000, 49_999, 50_000, 50_001] {
            let o = lidx(["lines", p, &n.to_string()]);
            assert_eq!(o.stdout, lines[n - 1], "line {n}");
        }
        let o = lidx(["lines", p, "20000:+3"]);
        assert_eq!(o.stdout, lines[19_999..20_002].concat());
        let start: usize = lines[..33_333].iter().map(|l| l.len()).sum();
        let o = lidx(["line-at", p, &(start + 2).to_string()]);
        assert_eq!(o.stdout, b"33334\n");
        let want = lines
            .iter()
            .filter(|l| re.is_match(l.strip_suffix(b"\n").unwrap_or(l)))
            .count();
        let o = lidx(["grep", "-c", "^line 4[0-9]{4} y{96}$", p]);
        assert_eq!(o.stdout, format!("{want}\n").into_bytes(), "{}", o.stderr);
        let o = lidx(["verify", "--full", p]);
        assert_eq!(o.code, 0, "{}", o.stderr);
    }
}

/// `lidx lines -f FILE A:` prints the lines from A, then each new complete
/// line as the file grows (a partial line only once its `\n` arrives), and
/// follows a replaced (rotated) file from its first line with a note.
#[test]
fn follow_prints_new_complete_lines_and_survives_rotation() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.log");
    std::fs::write(&path, b"one\ntwo\nthree\n").unwrap();
    let mut child = Command::new(BIN)
        .args(["lines", "-f", "-n"])
        .arg(&path)
        .arg("2:")
        .env("RUST_BACKTRACE", "1")
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
    f.write_all(b"four\nfi").unwrap();
    f.flush().unwrap();
    assert_eq!(next("4"), "4:four");
    // "fi" has no newline yet: nothing until it is completed.
    assert!(
        rx.recv_timeout(Duration::from_millis(700)).is_err(),
        "a partial line was printed"
    );
    f.write_all(b"ve\n").unwrap();
    f.flush().unwrap();
    drop(f);
    assert_eq!(next("5"), "5:five");
    // Rotation: a new file replaces the old one under the same name.
    let new = dir.path().join("app.log.new");
    std::fs::write(&new, b"alpha\nbeta\n").unwrap();
    std::fs::rename(&new, &path).unwrap();
    assert_eq!(next("new 1"), "1:alpha");
    assert_eq!(next("new 2"), "2:beta");
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("truncated or replaced"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Issue 9, item 14: "1 line" (never "1 lines"); "0 lines" when no
/// complete line precedes the damage; `index` and `info` state the
/// sidecar's share of the same size, the file on disk (the archive for a
/// gzip source); `info` and `verify` without a sidecar of an archive that
/// ends early do not just advise a `lidx index` that writes nothing.
#[test]
fn messages_count_lines_and_state_one_share() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.txt");
    std::fs::write(&one, b"only\n").unwrap();
    let p = one.to_str().unwrap();
    let side = format!("{p}.lidx");
    let o = lidx(["index", p]);
    let s = std::fs::metadata(&side).unwrap().len();
    let share = |s: u64, n: u64| {
        format!(
            "{s} bytes ({:.3}% of the file's {n} bytes)",
            s as f64 * 100.0 / n as f64
        )
    };
    assert!(
        o.stderr.starts_with(&format!(
            "lidx: {side}: built: 1 line, 1 checkpoint, {} in ",
            share(s, 5)
        )),
        "{}",
        o.stderr
    );
    let o = lidx(["verify", p]);
    assert_eq!(
        o.stdout_str(),
        format!("{side}: ok: 2 pages, 1 checkpoint, 1 line, source unchanged\n")
    );
    let o = lidx(["lines", p, "2"]);
    assert_eq!(
        (o.code, o.stderr.clone()),
        (
            1,
            format!("lidx: {p}: line 2 is past the end (the file has 1 line)\n")
        )
    );
    let o = lidx(["line-at", p, "5"]);
    assert_eq!(
        (o.code, o.stderr.clone()),
        (
            1,
            format!("lidx: {p}: offset 5 is past the end (the file has 1 line, 5 bytes)\n")
        )
    );

    // gzip: the same share, of the archive's size, in index and info.
    let gz = |data: &[u8], level: u32| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let text: Vec<u8> = (0..5000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let archive = gz(&text, 6);
    let path = dir.path().join("a.log.gz");
    std::fs::write(&path, &archive).unwrap();
    let p = path.to_str().unwrap();
    let side = format!("{p}.lidx");
    let o = lidx(["index", p]);
    let s = std::fs::metadata(&side).unwrap().len();
    let want = share(s, archive.len() as u64);
    assert!(
        o.stderr.contains(&format!(", {want} in ")),
        "{want}: {}",
        o.stderr
    );
    let o = lidx(["info", p]);
    assert!(
        o.stdout_str()
            .contains(&format!("\nsidecar size: {want}\n")),
        "{want}: {}",
        o.stdout_str()
    );

    // An archive that ends early: stored blocks, so the cut is exact.
    let archive = gz(b"first\nsecond\n", 0);
    let data = 10 + 5; // gzip header, stored block header
    for (cut, lines) in [(data + 9, 1u64), (data + 3, 0)] {
        let path = dir.path().join(format!("cut{cut}.log.gz"));
        std::fs::write(&path, &archive[..cut]).unwrap();
        let p = path.to_str().unwrap();
        let what = format!(
            "{p}: corrupt gzip data near compressed byte {cut}: truncated deflate stream (the archive ends early)"
        );
        let o = lidx(["count", p]);
        let tail = if lines == 1 {
            "only the 1 line before the damage can be read".to_string()
        } else {
            "0 lines can be read (no complete line before the damage)".to_string()
        };
        assert_eq!(
            (o.code, o.stderr.clone()),
            (2, format!("lidx: {what}; {tail}\n"))
        );
        if lines == 1 {
            let o = lidx(["lines", p, "1"]);
            assert_eq!((o.code, o.stdout_str()), (0, "first\n".to_string()));
            assert_eq!(
                o.stderr,
                format!(
                    "lidx: warning: {what}; the 1 line before it was indexed in memory (no sidecar written)\n"
                )
            );
            let o = lidx(["index", p]);
            assert_eq!(
                (o.code, o.stderr.clone()),
                (
                    2,
                    format!(
                        "lidx: {what}; no sidecar is written for a damaged archive: the query commands read the 1 complete line before the damage from an in-memory index\n"
                    )
                )
            );
        }
        for cmd in ["info", "verify"] {
            let o = lidx([cmd, p]);
            assert_eq!(
                (o.code, o.stderr.clone()),
                (
                    2,
                    format!(
                        "lidx: {p}: no sidecar ({p}.lidx does not exist): `lidx index {p}` writes one unless the archive is damaged or ends early; then none can be written, and the query commands read its complete lines without one\n"
                    )
                ),
                "{cmd}"
            );
        }
    }
}
