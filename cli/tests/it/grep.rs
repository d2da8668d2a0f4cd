//! `lidx grep` against ripgrep, the oracle: for every case
//! `lidx grep -n ARGS PATTERN FILE` must equal
//! `rg -n --no-heading --no-filename -a ARGS PATTERN FILE` byte for byte,
//! with the same exit status. Range restriction (`--lines`) is checked
//! against ripgrep run on the extracted lines (numbers and offsets shifted
//! back), `-j 1` against `-j 4` on a multi-chunk file, `--json` against
//! `rg --json` and the model, and `Index::search` against a naive per-line
//! regex model.
//!
//! Tests that need `rg` say `SKIPPED: rg not found` on stderr (past the test
//! harness's capture) when it is not on PATH, or fail under
//! `LIDX_REQUIRE_TOOLS=1` ([`crate::run::missing_tool`]). Deliberate differences (see
//! the module doc of `cli/src/grep/mod.rs`: no binary-file suppression, line
//! numbers on by default only for a terminal) are not compared: every run
//! passes `-n` to both and `-a` to ripgrep.
//!
//! Table-driven tests collect every disagreement and fail once at the end,
//! listing each with its arguments, the input lines involved and both
//! outputs.

use crate::oracle::{Model, Rng, SearchHit, model_search};
use lidx::io::MemSource;
use lidx::search::{Kind, Line, Matcher, MatcherOptions, ScanOptions, Sink};
use lidx::{BuildOptions, Index};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::run::{Out, Rules};

/// The checkpoint spacing every CLI fixture is indexed with: far below the
/// line lengths of the long lines, so checkpoints and chunk splits abound.
const SPACING: &str = "64";

/// Runs `lidx ARGS` (stdin closed) and checks the CLI's rules
/// ([`crate::run::checked`]).
fn lidx(args: &[OsString]) -> Out {
    crate::run::lidx_with(args, Rules::SILENT_ERROR)
}

/// Runs `rg ARGS` (no config file).
fn rg(args: &[OsString]) -> Out {
    let o = Command::new("rg")
        .args(args)
        .env_remove("RIPGREP_CONFIG_PATH")
        .stdin(Stdio::null())
        .output()
        .expect("run rg");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// True when `rg` runs; otherwise the missing-tool rule of
/// [`crate::run::missing_tool`] (SKIPPED, or a failure in CI).
fn have_rg(test: &str) -> bool {
    crate::run::have_tool("rg", &format!("the ripgrep comparisons of grep::{test}"))
}

fn strs(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}

/// A generated file in its own temporary directory, indexed with
/// `lidx index --spacing 64`.
struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    m: Model,
}

impl Fixture {
    fn new(name: &str, data: Vec<u8>) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let o = lidx(&[
            "index".into(),
            "-q".into(),
            "--spacing".into(),
            SPACING.into(),
            path.clone().into(),
        ]);
        assert_eq!((o.code, o.stderr.as_str()), (0, ""), "index {name}");
        Fixture {
            _dir: dir,
            path,
            m: Model::new(data),
        }
    }

    fn n(&self) -> u64 {
        self.m.line_count()
    }

    /// Lines `first..=last` (1-based, clamped), terminators included.
    fn extract(&self, first: u64, last: u64) -> Vec<u8> {
        let r = first - 1..last.min(self.n());
        self.m.lines(&r).concat()
    }

    /// Byte offset of 1-based line `line` (the source length past the end).
    fn offset_of(&self, line: u64) -> u64 {
        self.m.lines_span(&(line - 1..line)).start
    }
}

/// Pattern arguments: one positional pattern, or `-e P` for each when there
/// are several or one starts with `-`.
fn pattern_args(pats: &[&str]) -> Vec<OsString> {
    if pats.len() == 1 && !pats[0].starts_with('-') {
        return strs(pats);
    }
    pats.iter().flat_map(|p| ["-e".into(), p.into()]).collect()
}

fn lidx_grep(extra: &[&str], flags: &[&str], pats: &[&str], file: &Path) -> Out {
    let mut a = strs(&["grep", "-n"]);
    a.extend(strs(extra));
    a.extend(strs(flags));
    a.extend(pattern_args(pats));
    a.push(file.into());
    lidx(&a)
}

fn rg_grep(flags: &[&str], pats: &[&str], file: &Path) -> Out {
    let mut a = strs(&["-n", "--no-heading", "--no-filename", "-a"]);
    a.extend(strs(flags));
    a.extend(pattern_args(pats));
    a.push(file.into());
    let o = rg(&a);
    assert!(
        matches!(o.code, 0 | 1),
        "rg {a:?}: exit {} ({})",
        o.code,
        o.stderr
    );
    o
}

/// Shows bytes readably, long runs of one byte shortened.
fn show(bytes: &[u8]) -> String {
    let mut s = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let run = bytes[i..].iter().take_while(|&&c| c == b).count();
        if run > 12 {
            s.push_str(&format!("<{run} x {}>", [b].escape_ascii()));
            i += run;
        } else {
            s.push_str(&[b].escape_ascii().to_string());
            i += 1;
        }
    }
    if s.len() > 600 {
        let cut = (0..=600).rev().find(|&c| s.is_char_boundary(c)).unwrap();
        s.truncate(cut);
        s.push_str("...");
    }
    s
}

/// Where two outputs first differ, with a few lines of each around it.
fn diff(lidx_out: &[u8], rg_out: &[u8]) -> String {
    let a: Vec<&[u8]> = lidx_out.split_inclusive(|&b| b == b'\n').collect();
    let b: Vec<&[u8]> = rg_out.split_inclusive(|&b| b == b'\n').collect();
    let first = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let from = first.saturating_sub(2);
    let mut s = format!(
        "    outputs: lidx {} lines / {} bytes, rg {} lines / {} bytes; first difference at output line {}\n",
        a.len(),
        lidx_out.len(),
        b.len(),
        rg_out.len(),
        first + 1
    );
    for (name, v) in [("lidx", &a), ("rg  ", &b)] {
        for (i, l) in v.iter().enumerate().skip(from).take(6) {
            s.push_str(&format!("    {name} [{}] {}\n", i + 1, show(l)));
        }
        if v.len() <= first {
            s.push_str(&format!("    {name} [{}] <end of output>\n", first + 1));
        }
    }
    s
}

/// The input lines an output line refers to (`N:` or `N-` prefix).
fn input_lines(fx: &Fixture, out: &[u8], shift: u64) -> String {
    let mut s = String::new();
    for l in out.split(|&b| b == b'\n').take(3) {
        let digits: Vec<u8> = l
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .copied()
            .collect();
        if let Ok(n) = String::from_utf8(digits).unwrap_or_default().parse::<u64>() {
            let n = n + shift;
            if (1..=fx.n()).contains(&n) {
                let r = fx.m.span(n - 1);
                s.push_str(&format!("    input line {n}: {}\n", show(fx.m.bytes(r))));
            }
        }
    }
    s
}

/// One argument as a shell would take it back.
fn quote(a: &str) -> String {
    if !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=+-".contains(&b))
    {
        return a.to_string();
    }
    if a.chars().all(|c| !c.is_control()) {
        return format!("'{}'", a.replace('\'', r"'\''"));
    }
    format!("$'{}'", a.escape_default())
}

/// `lidx grep -n EXTRA FLAGS PATTERNS FILE`, quoted for a shell.
fn command(extra: &[&str], flags: &[&str], pats: &[&str]) -> String {
    let mut v: Vec<String> = vec!["lidx grep -n".into()];
    v.extend(extra.iter().chain(flags).map(|a| quote(a)));
    v.extend(
        pattern_args(pats)
            .iter()
            .map(|a| quote(&a.to_string_lossy())),
    );
    v.push("FILE".into());
    v.join(" ")
}

/// A report of one disagreement.
fn report(what: &str, fx: &Fixture, got: &Out, want_code: i32, want: &[u8]) -> String {
    let mut s = format!(
        "{what}\n    exit: lidx {} rg {}; lidx stderr {:?}\n",
        got.code, want_code, got.stderr
    );
    s.push_str(&diff(&got.stdout, want));
    let a: Vec<&[u8]> = got.stdout.split_inclusive(|&b| b == b'\n').collect();
    let b: Vec<&[u8]> = want.split_inclusive(|&b| b == b'\n').collect();
    let first = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let near: Vec<u8> = a
        .get(first)
        .into_iter()
        .chain(b.get(first))
        .flat_map(|l| l.to_vec())
        .collect();
    s.push_str(&input_lines(fx, &near, 0));
    s
}

fn check_failures(failures: Vec<String>, total: usize) {
    if !failures.is_empty() {
        panic!(
            "{} of {total} cases differ from ripgrep ({}):\n\n{}",
            failures.len(),
            rg_version(),
            failures.join("\n")
        );
    }
}

/// The awkward file: CRLF lines, NUL bytes, invalid UTF-8, lines far longer
/// than the 128 KiB scan buffer and than the spacing, empty lines, Japanese
/// text, the Kelvin sign and long s, words against punctuation and
/// underscores, regex metacharacters, and no final newline (on a long line).
/// Without `long`, the long lines are 20 KB (still far above the spacing).
fn awkward(seed: u64, long: bool) -> Vec<u8> {
    const SPECIAL: &[&str] = &[
        "foo bar baz\n",
        "foo\r\n",
        "\r\n",
        "\n",
        "foo\n",
        "aaa\n",
        "a\n",
        "nul\0in foo\0line\n",
        "\0\n",
        "日本語のテキスト foo 東京 123\n",
        "全角　スペース\n",
        "Kelvin \u{212A} sign\n",
        "\u{212A}\n",
        "long \u{17F} here\n",
        "\u{17F}\n",
        "foo_bar foo.bar (foo) foo-bar _foo foo2 [foo] foo,foo\n",
        "foofoo barfoo foo foo\n",
        "a.b a*b (a+b) [x] $5 ^caret \\back 1+1=2 a|b\n",
        "tab\there\tfoo\n",
        "trailing space \n",
        "   leading foo\n",
        "end\n",
        "bar\r\n",
        "x\n",
    ];
    const WORDS: &[&str] = &[
        "foo",
        "bar",
        "baz",
        "qux",
        "Foo",
        "FOO",
        "foo_bar",
        "foo.bar",
        "(foo)",
        "foo-bar",
        "_foo",
        "foo2",
        "a.b",
        "a*b",
        "(a+b)",
        "[x]",
        "$5",
        "^caret",
        "\\back",
        "a|b",
        "123",
        "42",
        "日本語",
        "テキスト",
        "\u{212A}",
        "\u{17F}",
        "k",
        "S",
        "aaa",
        "a",
        "end",
        "x",
    ];
    const INVALID: &[&[u8]] = &[
        b"\xff\xfe invalid foo \xff\n",
        b"caf\xe9 latin-1 k\n",
        b"cut \xe6\x97 short sequence\n",
        b"\xff\n",
    ];
    const SEPS: &[&str] = &[" ", " ", " ", ", ", ".", "\t", "_", "-", "  "];
    let mut rng = Rng::new(seed);
    let pick = |rng: &mut Rng, v: &[&'static str]| v[rng.below(v.len() as u64) as usize];
    let mut out: Vec<u8> = Vec::new();
    for i in 0..1500 {
        match i {
            300 => {
                out.extend(vec![b'x'; if long { 200_000 } else { 20_000 }]);
                out.extend(b" foo end\n");
            }
            700 => {
                // Only `a`s: in whole-buffer search `[^a]` matches only the
                // newline, which must not count.
                out.extend(vec![b'a'; if long { 150_000 } else { 20_000 }]);
                out.push(b'\n');
            }
            1100 => {
                // Long, many matches, CRLF.
                let end = out.len() + if long { 300_000 } else { 20_000 };
                while out.len() < end {
                    out.extend(pick(&mut rng, WORDS).as_bytes());
                    out.extend(pick(&mut rng, SEPS).as_bytes());
                }
                out.extend(b"\r\n");
            }
            _ => {}
        }
        if rng.below(4) == 0 {
            if rng.below(8) == 0 {
                out.extend(INVALID[rng.below(INVALID.len() as u64) as usize]);
            } else {
                out.extend(pick(&mut rng, SPECIAL).as_bytes());
            }
            continue;
        }
        let words = rng.below(9);
        for w in 0..words {
            if w > 0 {
                out.extend(pick(&mut rng, SEPS).as_bytes());
            }
            out.extend(pick(&mut rng, WORDS).as_bytes());
        }
        match rng.below(40) {
            0 => out.extend(b"\xff\xfe"),
            1 => out.push(0),
            2 => out.push(b'\r'),
            _ => {}
        }
        out.push(b'\n');
    }
    // A final line longer than the scan buffer, without a newline.
    out.extend(vec![b'y'; if long { 140_000 } else { 20_000 }]);
    out.extend(" tail foo 日本語 \u{212A}".as_bytes());
    out
}

type Case = (&'static [&'static str], &'static [&'static str]);

/// Patterns × flags for the whole-file comparison.
const TABLE: &[Case] = &[
    // Literals.
    (&[], &["foo"]),
    (&[], &["bar baz"]),
    (&[], &["日本語"]),
    (&[], &["\u{212A}"]),
    (&[], &["\u{17F}"]),
    (&[], &["zzz_nomatch"]),
    // Alternations.
    (&[], &["foo|bar"]),
    (&[], &["qux|日本|end$"]),
    // Classes, some able to match a newline in whole-buffer search.
    (&[], &["[0-9]+"]),
    (&[], &[r"\w+"]),
    (&[], &[r"\s"]),
    (&[], &["[^a]"]),
    (&[], &[r"foo\s"]),
    (&[], &[r"\s$"]),
    (&[], &[r"o\s+b"]),
    (&[], &[r"[^x]+ foo"]),
    (&[], &[r"\d{3}"]),
    (&[], &[r"\x00"]),
    (&[], &[r"(?-u:\xff)"]),
    (&[], &[r"\p{Han}+"]),
    (&[], &["x{100}"]),
    // Anchors.
    (&[], &["^foo"]),
    (&[], &["foo$"]),
    (&[], &["^$"]),
    (&[], &["^"]),
    (&[], &["^a+$"]),
    (&[], &["^\r$"]),
    (&[], &[""]),
    // Case folding.
    (&["-i"], &["k"]),
    (&["-i"], &["s"]),
    (&["-i"], &["FOO"]),
    (&["-i"], &["日本語"]),
    (&["-i"], &["\u{212A}"]),
    // Words.
    (&["-w"], &["foo"]),
    (&["-w"], &["bar"]),
    (&["-w"], &["_foo"]),
    (&["-w"], &["foo2"]),
    (&["-w"], &["a"]),
    (&["-w"], &["fo+"]),
    // Whole lines.
    (&["-x"], &["foo"]),
    (&["-x"], &["aaa"]),
    (&["-x"], &["a+"]),
    (&["-x"], &[""]),
    (&["-x"], &["foo|bar"]),
    // Inverted.
    (&["-v"], &["foo"]),
    (&["-v"], &["a"]),
    (&["-v"], &["[^a]"]),
    (&["-v"], &[""]),
    // Fixed strings with metacharacters.
    (&["-F"], &["a.b"]),
    (&["-F"], &["(a+b)"]),
    (&["-F"], &["[x]"]),
    (&["-F"], &["$5"]),
    (&["-F"], &["^caret"]),
    (&["-F"], &["\\back"]),
    (&["-F"], &["a|b"]),
    (&["-F"], &["a*b"]),
    (&["-F"], &["1+1=2"]),
    // Max count.
    (&["-m", "1"], &["foo"]),
    (&["-m", "3"], &["foo"]),
    (&["-m", "3", "-v"], &["foo"]),
    (&["-m", "1"], &["zzz_nomatch"]),
    // Count.
    (&["-c"], &["foo"]),
    (&["-c"], &["^$"]),
    (&["-c"], &["[^a]"]),
    (&["-c"], &[r"\s"]),
    (&["-c"], &["zzz_nomatch"]),
    // Only matching.
    (&["-o"], &["foo"]),
    (&["-o"], &["[0-9]+"]),
    (&["-o"], &[r"\w+"]),
    (&["-o"], &["fo+"]),
    (&["-o"], &["日本語|テキスト"]),
    // Byte offsets.
    (&["-b"], &["foo"]),
    (&["-b"], &["^$"]),
    (&["-b", "-v"], &["a"]),
    // Context.
    (&["-A", "1"], &["foo"]),
    (&["-B", "2"], &["foo"]),
    (&["-C", "1"], &["foo"]),
    (&["-C", "1"], &["end"]),
    (&["-A", "2"], &["^$"]),
    (&["-B", "2"], &["\u{212A}"]),
    (&["-C", "1", "-v"], &["a"]),
    (&["-A", "1", "-m", "2"], &["Kelvin"]),
    (&["-B", "1", "-b"], &["end"]),
    // Several patterns.
    (&[], &["foo", "bar"]),
    (&[], &["^$", "end"]),
    (&["-F"], &["a.b", "(a+b)"]),
    (&["-w"], &["foo", "bar"]),
    (&["-x"], &["foo", "aaa"]),
    // Combinations.
    (&["-c", "-v"], &["foo"]),
    (&["-c", "-v"], &[""]),
    (&["-o", "-i"], &["k"]),
    (&["-o", "-i"], &["foo"]),
    (&["-w", "-o"], &["foo"]),
    (&["-w", "-o"], &["foo|bar"]),
    (&["-n", "-b", "-o"], &["foo"]),
    (&["-b", "-o"], &["foo"]),
    (&["-b", "-o"], &["[0-9]+"]),
    (&["-i", "-w"], &["k"]),
    (&["-i", "-x"], &["foo"]),
    (&["-c", "-w"], &["foo"]),
    (&["-o", "-m", "2"], &["foo"]),
    (&["-F", "-i"], &["A.B"]),
    (&["-F", "-w"], &["a.b"]),
    (&["-F", "-x"], &["foo"]),
];

/// Runs the table on one fixture; returns the disagreements.
fn run_table(fx: &Fixture, table: &[Case]) -> Vec<String> {
    let mut failures = Vec::new();
    for &(flags, pats) in table {
        let got = lidx_grep(&[], flags, pats, &fx.path);
        let want = rg_grep(flags, pats, &fx.path);
        if (got.code, &got.stdout) != (want.code, &want.stdout) {
            let what = format!(
                "{}  vs  rg -n --no-heading --no-filename -a (same arguments)",
                command(&[], flags, pats)
            );
            failures.push(report(&what, fx, &got, want.code, &want.stdout));
        }
    }
    failures
}

#[test]
fn table_of_patterns_and_flags_matches_rg() {
    if !have_rg("table_of_patterns_and_flags_matches_rg") {
        return;
    }
    let fx = Fixture::new("awkward.txt", awkward(1, true));
    assert!(fx.m.len() > 800_000 && fx.n() > 1500);
    let failures = run_table(&fx, TABLE);
    check_failures(failures, TABLE.len());
}

/// Small files whose every byte matters: no final newline, only newlines,
/// empty, one byte, CRLF only.
#[test]
fn tiny_files_match_rg() {
    if !have_rg("tiny_files_match_rg") {
        return;
    }
    let files: &[(&str, &[u8])] = &[
        ("nofinal.txt", b"foo\nbar\nfoo bar"),
        ("newlines.txt", b"\n\n\n"),
        ("empty.txt", b""),
        ("byte.txt", b"a"),
        ("crlf.txt", b"foo\r\n\r\nbar\r\n"),
        ("nul.txt", b"\0\0\n\xff\xfe\n\0\nlast\0"),
    ];
    let table: &[Case] = &[
        (&[], &["foo"]),
        (&[], &["^$"]),
        (&[], &["[^a]"]),
        (&[], &[r"\s"]),
        (&["-v"], &["foo"]),
        (&["-c"], &["foo"]),
        (&["-c", "-v"], &["foo"]),
        (&["-x"], &["a"]),
        (&["-o", "-b"], &["[a-z]+"]),
        (&["-C", "1"], &["bar"]),
        (&["-m", "1"], &["."]),
    ];
    let mut failures = Vec::new();
    for (name, data) in files {
        let fx = Fixture::new(name, data.to_vec());
        for f in run_table(&fx, table) {
            failures.push(format!("[{name}: {}]\n{f}", show(data)));
        }
    }
    check_failures(failures, files.len() * table.len());
}

/// Empty matches with `-o`: ripgrep 13 prints one (empty) part per empty
/// match. Kept apart from the table: `Matcher::for_each_match` skips them
/// (its doc says ripgrep does), so this pins that case down on its own.
#[test]
fn only_matching_empty_matches_match_rg() {
    if !have_rg("only_matching_empty_matches_match_rg") {
        return;
    }
    let fx = Fixture::new("empty_matches.txt", b"abc\n\nxyz\nbb\n".to_vec());
    let table: &[Case] = &[
        (&["-o"], &["b*"]),
        (&["-o"], &[""]),
        (&["-o", "-b"], &["x?"]),
    ];
    check_failures(run_table(&fx, table), table.len());
}

fn rg_version() -> String {
    let v = rg(&["--version".into()]);
    String::from_utf8_lossy(&v.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// `-m` with after context when a line inside the context matches too:
/// ripgrep 13 prints it as a match (`N:`) though past the limit. Kept apart
/// from the table: this interplay is the subject of ripgrep issue #1380, so
/// it may differ between ripgrep versions (every report names the version).
#[test]
fn max_count_with_matching_after_context_matches_rg() {
    if !have_rg("max_count_with_matching_after_context_matches_rg") {
        return;
    }
    let fx = Fixture::new(
        "max_after.txt",
        b"a\nfoo 1\nfoo 2\nb\nfoo 3\nc\nd\nfoo 4\n".to_vec(),
    );
    let table: &[Case] = &[
        (&["-m", "1", "-A", "1"], &["foo"]),
        (&["-m", "1", "-A", "3"], &["foo"]),
        (&["-m", "2", "-C", "1"], &["foo"]),
        (&["-m", "1", "-A", "2", "-v"], &["foo"]),
    ];
    check_failures(run_table(&fx, table), table.len());
}

/// Issue 21, item 19: `--lines` with `-m`, `-v` and context against
/// ripgrep on a file holding those lines. A deliberate choice: the oracle
/// is ripgrep reading a file (its default, memory-mapped, `--mmap`), which
/// `lidx grep` on the whole file also agrees with. ripgrep 15.2.0 reading
/// the same lines from a pipe or with `--no-mmap` prints lines past the
/// limit (`-v -m1 -A1 x` on `a x b` gives `a x b`, and marks a context
/// line `N:`): its two paths disagree there, and lidx follows the one a
/// file gets.
#[test]
fn line_ranges_with_max_count_and_context_match_rg_on_a_file() {
    if !have_rg("line_ranges_with_max_count_and_context_match_rg_on_a_file") {
        return;
    }
    let fx = Fixture::new("m19.txt", b"x\na\nx\nb\nx\nc\nx\n".to_vec());
    let mut failures = Vec::new();
    let mut total = 0;
    for (first, last) in [(2, 4), (2, 3), (1, 7), (3, 6), (4, 7)] {
        for flags in [
            &["-v", "-m1", "-A1"][..],
            &["-v", "-m1", "-C1"],
            &["-v", "-m2", "-B1"],
            &["-m1", "-A2"],
            &["-m1", "-C1"],
            &["-m2", "-A1", "-v"],
        ] {
            total += 1;
            let range = format!("{first}:{last}");
            let mut extra = vec!["--lines", range.as_str()];
            extra.extend_from_slice(flags);
            let got = lidx_grep(&extra, &[], &["x"], &fx.path);
            let dir = tempfile::tempdir().unwrap();
            let part = dir.path().join("part");
            std::fs::write(&part, fx.extract(first, last)).unwrap();
            let mut rflags = vec!["--mmap"];
            rflags.extend_from_slice(flags);
            let o = rg_grep(&rflags, &["x"], &part);
            let want = shift_output(&o.stdout, first - 1, None);
            if got.code != o.code || got.stdout != want {
                failures.push(format!(
                    "--lines {range} {flags:?}: lidx {} {:?}, rg --mmap on the lines {} {:?}",
                    got.code,
                    show(&got.stdout),
                    o.code,
                    show(&want)
                ));
            }
        }
    }
    check_failures(failures, total);
}

/// `N:`/`N-` (and `OFF:`/`OFF-` with `-b`) prefixes of ripgrep's output on
/// an extract, shifted back to the whole file.
fn shift_output(out: &[u8], lines: u64, bytes: Option<u64>) -> Vec<u8> {
    let mut res = Vec::new();
    for l in out.split_inclusive(|&b| b == b'\n') {
        if l == b"--\n" {
            res.extend_from_slice(l);
            continue;
        }
        let num = |s: &[u8]| -> (u64, usize) {
            let d = s.iter().take_while(|b| b.is_ascii_digit()).count();
            assert!(d > 0, "no number in rg output line {}", show(l));
            (std::str::from_utf8(&s[..d]).unwrap().parse().unwrap(), d)
        };
        let (n, d) = num(l);
        let sep = l[d];
        assert!(sep == b':' || sep == b'-', "rg output line {}", show(l));
        res.extend_from_slice(format!("{}", n + lines).as_bytes());
        res.push(sep);
        let mut rest = &l[d + 1..];
        if let Some(shift) = bytes {
            let (o, d2) = num(rest);
            assert_eq!(rest[d2], sep, "rg output line {}", show(l));
            res.extend_from_slice(format!("{}", o + shift).as_bytes());
            res.push(sep);
            rest = &rest[d2 + 1..];
        }
        res.extend_from_slice(rest);
    }
    res
}

/// One `--lines` argument with the 1-based inclusive span it selects
/// (`last` may lie past the end).
#[derive(Debug, Clone)]
struct Span {
    arg: String,
    first: u64,
    last: u64,
}

fn span(arg: String, first: u64, last: u64) -> Span {
    Span { arg, first, last }
}

/// What ripgrep says about the lines of `spans` (disjoint, in file order):
/// run on each extract, shifted back, concatenated (`-c` summed, `-m`
/// applied to the union). Returns (exit status, output).
fn rg_on_spans(fx: &Fixture, spans: &[Span], flags: &[&str], pats: &[&str]) -> (i32, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let count = flags.contains(&"-c");
    let bytes = flags.contains(&"-b");
    let max: Option<usize> = flags
        .iter()
        .position(|&f| f == "-m")
        .map(|i| flags[i + 1].parse().unwrap());
    let mut total = 0u64;
    let mut out = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        let part = dir.path().join(format!("part{i}"));
        let first = s.first.min(fx.n() + 1);
        let data = if first > fx.n() {
            Vec::new()
        } else {
            fx.extract(first, s.last)
        };
        std::fs::write(&part, &data).unwrap();
        let o = rg_grep(flags, pats, &part);
        if count {
            if o.code == 0 {
                total += std::str::from_utf8(&o.stdout)
                    .unwrap()
                    .trim()
                    .parse::<u64>()
                    .unwrap();
            }
        } else {
            let shift = bytes.then(|| fx.offset_of(first.min(fx.n().max(1))));
            out.extend(shift_output(&o.stdout, first - 1, shift));
        }
    }
    if count {
        if total == 0 {
            return (1, Vec::new());
        }
        return (0, format!("{total}\n").into_bytes());
    }
    if let Some(m) = max {
        // Without -o and context every output line is one selected line.
        let keep: usize = out
            .split_inclusive(|&b| b == b'\n')
            .take(m)
            .map(|l| l.len())
            .sum();
        out.truncate(keep);
    }
    (if out.is_empty() { 1 } else { 0 }, out)
}

#[test]
fn line_ranges_match_rg_on_the_extract() {
    if !have_rg("line_ranges_match_rg_on_the_extract") {
        return;
    }
    let fx = Fixture::new("ranges.txt", awkward(2, true));
    let n = fx.n();
    // Lines longer than the scan buffer (1-based).
    let long: Vec<u64> = (0..n)
        .filter(|&l| fx.m.span(l).end - fx.m.span(l).start > 128 * 1024)
        .map(|l| l + 1)
        .collect();
    assert!(long.len() >= 3, "{long:?}");
    let mut spans = vec![
        span(format!("{}:", n / 2), n / 2, u64::MAX),
        span(format!(":{}", n / 3), 1, n / 3),
        span("7".into(), 7, 7),
        span(format!("{n}"), n, n),
        span(format!("{}", n + 5), n + 5, n + 5),
        span(format!("{}:{}", n - 3, n + 50), n - 3, n + 50),
        span(format!("{}:{}", long[0], long[0] + 4), long[0], long[0] + 4),
        span(format!("{}:{}", long[1] - 3, long[1]), long[1] - 3, long[1]),
        span(
            format!("{}:{}", long[2] - 1, long[2] + 1),
            long[2] - 1,
            long[2] + 1,
        ),
    ];
    let mut rng = Rng::new(4242);
    for i in 0..6 {
        let a = 1 + rng.below(n);
        let len = if i % 2 == 0 {
            rng.below(30)
        } else {
            rng.below(n / 2)
        };
        let b = a + len;
        spans.push(span(format!("{a}:{b}"), a, b));
    }
    let table: &[Case] = &[
        (&[], &["foo"]),
        (&["-b"], &["foo"]),
        (&["-c"], &["foo"]),
        (&["-v", "-b"], &["a"]),
        (&["-o", "-b"], &["[0-9]+"]),
        (&["-C", "1"], &["foo"]),
        (&["-m", "3"], &["foo"]),
        (&["-x"], &["foo"]),
        (&[], &["^$"]),
        (&[], &["[^a]"]),
        (&["-w", "-i"], &["k"]),
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for s in &spans {
        for &(flags, pats) in table {
            total += 1;
            let got = lidx_grep(&["--lines", &s.arg], flags, pats, &fx.path);
            let (code, want) = rg_on_spans(&fx, std::slice::from_ref(s), flags, pats);
            if (got.code, &got.stdout) != (code, &want) {
                let what = format!(
                    "{}  vs  rg on the extract of lines {}..={} (shifted)",
                    command(&["--lines", &s.arg], flags, pats),
                    s.first,
                    if s.last == u64::MAX {
                        "end".to_string()
                    } else {
                        s.last.to_string()
                    }
                );
                failures.push(report(&what, &fx, &got, code, &want));
            }
        }
    }
    // Two disjoint ranges, given in reverse: the union in file order.
    let pairs = [
        (
            span("900:960".into(), 900, 960),
            span("10:40".into(), 10, 40),
        ),
        (
            span(format!("{}:{}", long[1], long[1] + 2), long[1], long[1] + 2),
            span(format!("{}:{}", long[0] - 2, long[0]), long[0] - 2, long[0]),
        ),
        (
            span(format!("{}:", n - 2), n - 2, u64::MAX),
            span("1:3".into(), 1, 3),
        ),
    ];
    let union_table: &[Case] = &[
        (&[], &["foo"]),
        (&["-b"], &["foo"]),
        (&["-c"], &["foo"]),
        (&["-v"], &["foo"]),
        (&["-m", "3"], &["foo"]),
        (&["-o", "-b"], &["[0-9]+"]),
    ];
    for (later, earlier) in &pairs {
        for &(flags, pats) in union_table {
            total += 1;
            let got = lidx_grep(
                &["--lines", &later.arg, "--lines", &earlier.arg],
                flags,
                pats,
                &fx.path,
            );
            let (code, want) = rg_on_spans(&fx, &[earlier.clone(), later.clone()], flags, pats);
            if (got.code, &got.stdout) != (code, &want) {
                let what = format!(
                    "{}  vs  rg on both extracts (shifted, concatenated)",
                    command(
                        &["--lines", &later.arg, "--lines", &earlier.arg],
                        flags,
                        pats
                    )
                );
                failures.push(report(&what, &fx, &got, code, &want));
            }
        }
    }
    // Overlapping ranges merge.
    let got = lidx_grep(
        &["--lines", "5:20", "--lines", "10:30"],
        &[],
        &["foo"],
        &fx.path,
    );
    let want = lidx_grep(&["--lines", "5:30"], &[], &["foo"], &fx.path);
    assert_eq!(
        (got.code, got.stdout),
        (want.code, want.stdout),
        "overlapping --lines"
    );
    check_failures(failures, total);
}

/// About 12.5 MiB: four 4 MiB work units. `needle` lines (without
/// `filler`) and empty lines sit at chosen offsets so that `-m` cuts in a
/// later chunk; CRLF, NUL, invalid UTF-8 and lines longer than the scan
/// buffer are spread through.
fn big_file() -> Vec<u8> {
    const MIB: usize = 1 << 20;
    let needles = [
        MIB,
        5 * MIB / 2,
        5 * MIB,
        17 * MIB / 2,
        9 * MIB,
        19 * MIB / 2,
        10 * MIB,
        12 * MIB + MIB / 5,
    ];
    let empties = [3 * MIB, 6 * MIB, 12 * MIB + MIB / 3];
    let longs = [2 * MIB, 4 * MIB - 1000, 7 * MIB, 11 * MIB];
    const WORDS: &[&str] = &[
        "alpha",
        "beta",
        "gamma",
        "delta",
        "日本語",
        "x_y",
        "(foo)",
        "42",
        "foo",
        "bar",
    ];
    let mut rng = Rng::new(99);
    let mut out = Vec::with_capacity(13 * MIB);
    let (mut ni, mut ei, mut li) = (0, 0, 0);
    let mut line = 0u64;
    while out.len() < 12 * MIB + MIB / 2 {
        line += 1;
        if ni < needles.len() && out.len() >= needles[ni] {
            ni += 1;
            out.extend(format!("needle {ni} here\n").as_bytes());
            continue;
        }
        if ei < empties.len() && out.len() >= empties[ei] {
            ei += 1;
            out.push(b'\n');
            continue;
        }
        if li < longs.len() && out.len() >= longs[li] {
            li += 1;
            out.extend(b"filler long ");
            out.extend(vec![b'z'; 200_000 + li * 10_000]);
            out.extend(b" ERROR 777\n");
            continue;
        }
        out.extend(b"filler");
        for _ in 0..rng.below(12) {
            out.push(b' ');
            out.extend(WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes());
        }
        if line.is_multiple_of(317) {
            out.extend(format!(" ERROR {}", 1000 + rng.below(9000)).as_bytes());
        }
        match line % 1009 {
            0 => out.extend(b" \xff\xfe"),
            1 => out.extend(b" nul\0"),
            _ => {}
        }
        if line.is_multiple_of(97) {
            out.push(b'\r');
        }
        out.push(b'\n');
    }
    out.extend(b"filler last line without newline ERROR 1");
    out
}

#[test]
fn parallel_equals_single_worker_and_rg() {
    let rg_ok = have_rg("parallel_equals_single_worker_and_rg");
    let fx = Fixture::new("big.txt", big_file());
    assert!(fx.m.len() > 12 << 20);
    // (flags, patterns, also restricted to --lines 20000:110000)
    let table: &[(&[&str], &[&str], bool)] = &[
        (&[], &["needle|ERROR 4[0-9]{3}"], true),
        (&["-c"], &["ERROR"], false),
        (&["-c"], &["filler"], true),
        (&["-m", "5"], &["needle"], true),
        (&["-v", "-m", "7"], &["filler"], true),
        (&["-v"], &["filler"], false),
        (&["-o"], &["ERROR [0-9]+"], false),
        (&["-o", "-m", "3"], &["needle [0-9]"], false),
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for &(flags, pats, restricted) in table {
        let variants: &[&[&str]] = if restricted {
            &[&[], &["--lines", "20000:110000"]]
        } else {
            &[&[]]
        };
        for &lines in variants {
            total += 1;
            let mut one = lines.to_vec();
            one.extend(["-j", "1"]);
            let mut four = lines.to_vec();
            four.extend(["-j", "4"]);
            let a = lidx_grep(&one, flags, pats, &fx.path);
            let b = lidx_grep(&four, flags, pats, &fx.path);
            let what = command(lines, flags, pats);
            assert_eq!(a.code, b.code, "{what}: exit -j 1 vs -j 4");
            assert!(
                a.stdout == b.stdout,
                "{what}: -j 1 vs -j 4\n{}",
                diff(&a.stdout, &b.stdout)
            );
            if !rg_ok {
                continue;
            }
            let (code, want) = if lines.is_empty() {
                let w = rg_grep(flags, pats, &fx.path);
                (w.code, w.stdout)
            } else {
                rg_on_spans(&fx, &[span(String::new(), 20000, 110000)], flags, pats)
            };
            if (a.code, &a.stdout) != (code, &want) {
                failures.push(report(
                    &format!("{what} (-j 1 and -j 4)  vs  rg"),
                    &fx,
                    &a,
                    code,
                    &want,
                ));
            }
        }
    }
    check_failures(failures, total);
}

#[test]
fn bad_regex_and_no_match_exit_codes() {
    let fx = Fixture::new("small.txt", b"foo\nbar\n".to_vec());
    for pat in ["(", "[a-", "a{2,1}", r"\p{Nope}"] {
        let o = lidx_grep(&[], &[], &[pat], &fx.path);
        assert_eq!(o.code, 2, "{pat}: {o:?}");
        assert!(
            o.stderr.contains("regex"),
            "{pat}: stderr should name the regex error: {}",
            o.stderr
        );
        let w = lidx_grep(&[], &["-w"], &[pat], &fx.path);
        assert_eq!(w.code, 2, "-w {pat}: {w:?}");
    }
    // `-F` makes them literal.
    let o = lidx_grep(&[], &["-F"], &["("], &fx.path);
    assert_eq!((o.code, o.stdout.as_slice()), (1, &b""[..]));
    for args in [&[][..], &["-c"][..], &["-o"][..], &["--json"][..]] {
        let o = lidx_grep(&[], args, &["zzz"], &fx.path);
        assert_eq!(o.code, 1, "{args:?}: {o:?}");
        assert_eq!(o.stderr, "", "{args:?}");
        if args.is_empty() || args == ["-o"] {
            assert_eq!(o.stdout, b"", "{args:?}");
        }
    }
    let o = lidx_grep(&[], &[], &["foo"], &fx.path);
    assert_eq!((o.code, o.stdout.as_slice()), (0, &b"1:foo\n"[..]));
    if have_rg("bad_regex_and_no_match_exit_codes") {
        let w = rg(&["(".into(), fx.path.clone().into()]);
        assert_eq!(w.code, 2, "rg agrees that ( is an error");
    }
}

/// A minimal JSON value (numbers kept as text).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.get(key),
            _ => None,
        }
    }

    fn at(&self, path: &[&str]) -> &Json {
        path.iter()
            .fold(self, |v, k| v.get(k).unwrap_or_else(|| panic!("no {k}")))
    }

    fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            v => panic!("not a string: {v:?}"),
        }
    }

    fn u64(&self) -> u64 {
        match self {
            Json::Num(s) => s.parse().unwrap(),
            v => panic!("not a number: {v:?}"),
        }
    }
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at {}", b as char, self.i))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        let rest = &self.s[self.i..];
        for (lit, v) in [
            (&b"null"[..], Json::Null),
            (b"true", Json::Bool(true)),
            (b"false", Json::Bool(false)),
        ] {
            if rest.starts_with(lit) {
                self.i += lit.len();
                return Ok(v);
            }
        }
        match rest.first() {
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return Err(format!("bad array at {}", self.i)),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut m = BTreeMap::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(m));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.eat(b':')?;
                    let v = self.value()?;
                    if m.insert(k.clone(), v).is_some() {
                        return Err(format!("duplicate key {k}"));
                    }
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(m));
                        }
                        _ => return Err(format!("bad object at {}", self.i)),
                    }
                }
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let n = rest
                    .iter()
                    .take_while(|c| c.is_ascii_digit() || b"-+.eE".contains(c))
                    .count();
                self.i += n;
                Ok(Json::Num(String::from_utf8(rest[..n].to_vec()).unwrap()))
            }
            _ => Err(format!("unexpected input at {}", self.i)),
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.s.get(self.i..self.i + 4).ok_or("short \\u")?;
        self.i += 4;
        u32::from_str_radix(std::str::from_utf8(h).map_err(|e| e.to_string())?, 16)
            .map_err(|e| e.to_string())
    }

    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            let c = *self.s.get(self.i).ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("bad escape")?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let cp = if (0xd800..0xdc00).contains(&hi) {
                                if self.s.get(self.i..self.i + 2) != Some(b"\\u") {
                                    return Err("lone surrogate".into());
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                            } else {
                                hi
                            };
                            char::from_u32(cp).ok_or("bad code point")?
                        }
                        _ => return Err(format!("bad escape \\{}", e as char)),
                    };
                    out.extend(ch.to_string().as_bytes());
                }
                c if c < 0x20 => return Err("raw control character in string".into()),
                c => out.push(c),
            }
        }
    }
}

fn parse_json(line: &[u8]) -> Result<Json, String> {
    let mut p = JsonParser { s: line, i: 0 };
    let v = p.value()?;
    p.ws();
    if p.i != line.len() {
        return Err(format!("trailing input at {}", p.i));
    }
    Ok(v)
}

fn base64_decode(s: &str) -> Vec<u8> {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|&c| c != b'=') {
        let v = T.iter().position(|&t| t == c).expect("base64 digit") as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// The bytes of a `{"text":...}` / `{"bytes":...}` object.
fn data_bytes(v: &Json) -> Vec<u8> {
    match (v.get("text"), v.get("bytes")) {
        (Some(t), None) => t.str().as_bytes().to_vec(),
        (None, Some(b)) => base64_decode(b.str()),
        _ => panic!("neither text nor bytes: {v:?}"),
    }
}

/// Parses every line; checks each match/context message against the file.
fn json_messages(fx: &Fixture, out: &[u8], what: &str) -> Vec<Json> {
    let mut msgs = Vec::new();
    for (i, line) in out.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let v = parse_json(line)
            .unwrap_or_else(|e| panic!("{what}: JSON line {}: {e}: {}", i + 1, show(line)));
        let ty = v.at(&["type"]).str().to_string();
        if ty == "match" || ty == "context" {
            let d = v.at(&["data"]);
            let n = d.at(&["line_number"]).u64();
            let off = d.at(&["absolute_offset"]).u64();
            assert!((1..=fx.n()).contains(&n), "{what}: line_number {n}");
            let span = fx.m.span(n - 1);
            assert_eq!(off, span.start, "{what}: absolute_offset of line {n}");
            let bytes = data_bytes(d.at(&["lines"]));
            assert_eq!(bytes, fx.m.bytes(span), "{what}: lines of line {n}");
            if std::str::from_utf8(&bytes).is_err() {
                assert!(d.at(&["lines"]).get("bytes").is_some(), "{what}");
            }
            let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            if let Json::Arr(subs) = d.at(&["submatches"]) {
                for s in subs {
                    let (a, b) = (s.at(&["start"]).u64(), s.at(&["end"]).u64());
                    assert_eq!(
                        data_bytes(s.at(&["match"])),
                        &body[a as usize..b as usize],
                        "{what}: submatch of line {n}"
                    );
                }
            } else {
                panic!("{what}: submatches is not an array");
            }
        }
        msgs.push(v);
    }
    msgs
}

#[test]
fn json_messages_parse_and_match_rg() {
    let fx = Fixture::new("json.txt", awkward(3, false));
    let rg_ok = have_rg("json_messages_parse_and_match_rg");
    let table: &[Case] = &[
        (&[], &["foo"]),
        (&["-C", "1"], &["end"]),
        (&["-i"], &["k"]),
        (&[], &["invalid|nul"]),
        (&[], &[r"(?-u:\xff)"]),
        (&["-w"], &["foo"]),
        (&["-v"], &["a"]),
        (&["-m", "2"], &["tail"]),
        (&[], &["\t|\r"]),
    ];
    let mut failures = Vec::new();
    let mut saw_bytes = false;
    for &(flags, pats) in table {
        let what = command(&["--json"], flags, pats);
        let got = lidx_grep(&["--json"], flags, pats, &fx.path);
        let mine = json_messages(&fx, &got.stdout, &what);
        let types: Vec<&str> = mine.iter().map(|v| v.at(&["type"]).str()).collect();
        assert_eq!(types.first(), Some(&"begin"), "{what}");
        assert_eq!(
            types[types.len().saturating_sub(2)..],
            ["end", "summary"],
            "{what}"
        );
        saw_bytes |= mine.iter().any(|v| {
            v.get("data")
                .and_then(|d| d.get("lines"))
                .and_then(|l| l.get("bytes"))
                .is_some()
        });
        if !rg_ok {
            continue;
        }
        let mut ra = strs(&["--json", "-a"]);
        ra.extend(strs(flags));
        ra.extend(pattern_args(pats));
        ra.push(fx.path.clone().into());
        let want = rg(&ra);
        let theirs = json_messages(&fx, &want.stdout, &format!("rg for {what}"));
        // Every message, times aside (they differ from run to run).
        let timeless = |v: &[Json]| -> Vec<Json> { v.iter().map(without_times).collect() };
        let (a, b) = (timeless(&mine), timeless(&theirs));
        let matched = |v: &[Json]| {
            v.iter()
                .find(|m| m.at(&["type"]).str() == "end")
                .map(|m| m.at(&["data", "stats", "matched_lines"]).u64())
        };
        if got.code != want.code || a != b || matched(&mine) != matched(&theirs) {
            let first = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            failures.push(format!(
                "{what}  vs  rg --json -a (same arguments)\n    exit lidx {} rg {}; messages lidx {} rg {}; matched_lines lidx {:?} rg {:?}\n    first differing message #{}:\n    lidx: {:?}\n    rg:   {:?}",
                got.code,
                want.code,
                a.len(),
                b.len(),
                matched(&mine),
                matched(&theirs),
                first + 1,
                a.get(first),
                b.get(first)
            ));
        }
    }
    assert!(
        saw_bytes,
        "no lines.bytes message: the invalid UTF-8 case is not covered"
    );
    check_failures(failures, table.len());
}

/// `v` without its `elapsed` and `elapsed_total` members, at any depth.
fn without_times(v: &Json) -> Json {
    match v {
        Json::Obj(m) => Json::Obj(
            m.iter()
                .filter(|(k, _)| !k.starts_with("elapsed"))
                .map(|(k, v)| (k.clone(), without_times(v)))
                .collect(),
        ),
        Json::Arr(a) => Json::Arr(a.iter().map(without_times).collect()),
        other => other.clone(),
    }
}

struct Collect {
    got: Vec<SearchHit>,
    stop_after: usize,
}

impl Sink for Collect {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.got.push(SearchHit {
            kind: l.kind,
            number: l.number,
            offset: l.offset,
            bytes: l.bytes.to_vec(),
        });
        Ok(self.got.len() < self.stop_after)
    }
}

#[test]
fn index_search_matches_the_naive_model() {
    let data = awkward(5, true);
    let m = Model::new(data.clone());
    let n = m.line_count();
    let opts = BuildOptions {
        spacing: 64,
        ..BuildOptions::default()
    };
    let index = Index::build_in_memory(Box::new(MemSource::new(data)), &opts).unwrap();
    assert_eq!(index.line_count(), n);
    let mut rng = Rng::new(7);
    let mut ranges = vec![0..n, 0..0, n..n + 5, n - 1..n, 0..1, n / 2..u64::MAX];
    for _ in 0..6 {
        let a = rng.below(n);
        ranges.push(a..a + 1 + rng.below(400));
    }
    let patterns = [
        "foo", "^$", "[^a]", r"\s", "a|日本", "x{3}", "(?i)k", r"\w+$",
    ];
    let scan_opts = [
        ScanOptions::default(),
        ScanOptions {
            invert: true,
            ..ScanOptions::default()
        },
        ScanOptions {
            max_count: Some(3),
            ..ScanOptions::default()
        },
        ScanOptions {
            before: 2,
            after: 1,
            ..ScanOptions::default()
        },
        ScanOptions {
            invert: true,
            before: 1,
            after: 2,
            max_count: Some(5),
            ..ScanOptions::default()
        },
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for p in patterns {
        let matcher = Matcher::new(&[p.to_string()], &MatcherOptions::default()).unwrap();
        let re = regex::bytes::Regex::new(p).unwrap();
        for r in &ranges {
            for o in &scan_opts {
                total += 1;
                let want = model_search(&m, r.clone(), &re, o);
                let ctx = format!("{p:?} lines {r:?} {o:?}");
                let mut sink = Collect {
                    got: Vec::new(),
                    stop_after: usize::MAX,
                };
                let selected = index.search(r.clone(), &matcher, o, &mut sink).unwrap();
                let want_selected = want.iter().filter(|g| g.kind == Kind::Match).count() as u64;
                if sink.got != want || selected != want_selected {
                    let first = sink
                        .got
                        .iter()
                        .zip(&want)
                        .take_while(|(a, b)| a == b)
                        .count();
                    let brief = |g: Option<&SearchHit>| {
                        g.map(|g| {
                            format!(
                                "{:?} line {} (0-based) at {}: {}",
                                g.kind,
                                g.number,
                                g.offset,
                                show(&g.bytes)
                            )
                        })
                    };
                    failures.push(format!(
                        "Index::search({r:?}, {p:?}, {o:?}): returned {selected} selected, the model {want_selected}; {} lines reported, the model has {}; first difference #{first}:\n  got  {:?}\n  want {:?}",
                        sink.got.len(),
                        want.len(),
                        brief(sink.got.get(first)),
                        brief(want.get(first)),
                    ));
                    continue;
                }
                // A sink that says stop gets nothing more.
                let mut stop = Collect {
                    got: Vec::new(),
                    stop_after: 2,
                };
                index.search(r.clone(), &matcher, o, &mut stop).unwrap();
                assert_eq!(stop.got, want[..want.len().min(2)], "{ctx}: stopping sink");
                // Without line numbers: the same lines, offsets and count
                // (numbers still exact where context or invert needs them).
                let uncounted = ScanOptions {
                    skip_line_numbers: true,
                    ..*o
                };
                let mut sink = Collect {
                    got: Vec::new(),
                    stop_after: usize::MAX,
                };
                let n = index
                    .search(r.clone(), &matcher, &uncounted, &mut sink)
                    .unwrap();
                assert_eq!(n, want_selected, "{ctx}: skip_line_numbers count");
                let strip = |v: &[SearchHit]| {
                    v.iter()
                        .map(|g| (g.kind, g.offset, g.bytes.clone()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(strip(&sink.got), strip(&want), "{ctx}: skip_line_numbers");
                if o.before > 0 || o.after > 0 {
                    assert_eq!(sink.got, want, "{ctx}: numbers with context");
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} searches differ from the model:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
