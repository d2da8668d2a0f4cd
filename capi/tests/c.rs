//! The C side of the interface, tested from C: `ctest/test.c` and
//! `examples/viewer.c` are compiled with `cc` (`$CC`) against the library
//! that cargo builds (`liblidx.so`, `liblidx.a`) and run on generated files.
//!
//! - `queries_*`: the C program answers a list of queries (line count, byte
//!   spans, offset to line, reads into buffers of exact sizes, searches)
//!   and writes a transcript; the expected transcript comes from a naive
//!   oracle over the file's bytes (counts, spans, offsets, reads) and from
//!   the Rust API on the same file (searches, themselves checked against
//!   the oracle for literal patterns). Compared byte for byte.
//! - `api_*`: the C program's own checks of every function's contract
//!   (NULL arguments, policies, verdicts, progress and cancellation,
//!   damaged archives, follow, threads), once as built and once under
//!   AddressSanitizer (with LeakSanitizer: a handle or string the library
//!   leaks fails it).
//! - `viewer_*`: the example viewer, installed with `install.sh` and
//!   linked statically through its pkg-config file, against the viewer's
//!   loop replayed over the oracle.
//!
//! A missing compiler, AddressSanitizer or pkg-config skips with a note,
//! unless `LIDX_REQUIRE_TOOLS=1`, which makes it a failure.

use lidx_core::search::{Kind, Line, Matcher, MatcherOptions, ScanOptions, Sink};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

// ---------------------------------------------------------------------
// Tools and the library

fn require_tools() -> bool {
    std::env::var_os("LIDX_REQUIRE_TOOLS").is_some_and(|v| v == "1")
}

/// Says why a test does not run, or fails when tools are required.
fn skip(why: &str) {
    assert!(!require_tools(), "LIDX_REQUIRE_TOOLS=1 and {why}");
    eprintln!("SKIPPED: {why}");
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The libraries cargo built for this crate.
struct Built {
    shared: PathBuf,
    archive: PathBuf,
}

impl Built {
    fn dir(&self) -> &Path {
        self.shared
            .parent()
            .expect("a library path has a directory")
    }
}

/// Builds the crate's `cdylib` and `staticlib` (cargo builds neither for an
/// integration test) once per test run, and returns their paths, as cargo
/// reports them.
fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let out = Command::new(cargo)
            .args([
                "build",
                "-p",
                "lidx-capi",
                "--lib",
                "--message-format=json-render-diagnostics",
            ])
            .current_dir(manifest_dir())
            .output()
            .expect("run cargo build");
        assert!(
            out.status.success(),
            "cargo build -p lidx-capi failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut files = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if line.contains("\"reason\":\"compiler-artifact\"")
                && line.contains("\"crate_types\":[\"cdylib\",\"staticlib\"]")
            {
                files = json_strings_after(line, "\"filenames\":[");
            }
        }
        let find = |ext: &str| {
            files
                .iter()
                .map(PathBuf::from)
                .find(|p| p.extension().is_some_and(|e| e == ext))
                .unwrap_or_else(|| panic!("cargo reported no lib*.{ext} (got {files:?})"))
        };
        Built {
            shared: find("so"),
            archive: find("a"),
        }
    })
}

/// The strings of the JSON array that starts after `key` in `line` (paths
/// without quotes or backslashes, as cargo writes them here).
fn json_strings_after(line: &str, key: &str) -> Vec<String> {
    let Some(at) = line.find(key) else {
        return Vec::new();
    };
    let rest = &line[at + key.len()..];
    let end = rest.find(']').unwrap_or(rest.len());
    rest[..end]
        .split(',')
        .map(|s| s.trim().trim_matches('"').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The C compiler (`$CC`, else `cc`), if it runs.
fn cc() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let works = Command::new(&cc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    works.then_some(cc)
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Compiles and links `args` with `cc` into `exe`, warnings as errors.
fn compile(cc: &str, exe: &Path, args: &[&str]) {
    let out = run(Command::new(cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-o"])
        .arg(exe)
        .args(args));
    assert!(
        out.status.success(),
        "{cc} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether `cc -fsanitize=address` builds a program that runs.
fn asan_works(cc: &str, dir: &Path) -> bool {
    let src = dir.join("asan_probe.c");
    std::fs::write(
        &src,
        "#include <stdlib.h>\nint main(void) { free(malloc(1)); return 0; }\n",
    )
    .unwrap();
    let exe = dir.join("asan_probe");
    let built = Command::new(cc)
        .args(["-fsanitize=address", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .is_ok_and(|o| o.status.success());
    built
        && Command::new(&exe)
            .output()
            .is_ok_and(|o| o.status.success())
}

/// The test program, linked against `liblidx.so` (found through an rpath).
fn build_test_program(cc: &str, dir: &Path, asan: bool) -> PathBuf {
    let lib = built();
    let exe = dir.join(if asan { "test-asan" } else { "test" });
    let include = format!("-I{}", manifest_dir().join("include").display());
    let src = manifest_dir().join("ctest/test.c");
    let libdir = lib.dir().display().to_string();
    let mut args = vec![include.as_str(), src.to_str().unwrap()];
    if asan {
        args.extend(["-fsanitize=address", "-fno-omit-frame-pointer"]);
    }
    let rpath = format!("-Wl,-rpath,{libdir}");
    let ldir = format!("-L{libdir}");
    args.extend([ldir.as_str(), "-llidx", rpath.as_str(), "-lpthread"]);
    compile(cc, &exe, &args);
    exe
}

// ---------------------------------------------------------------------
// Test files

/// A deterministic log of about 3 MB: timestamps, levels, words; empty
/// lines, `\r\n` lines, non-ASCII, lines longer than the checkpoint spacing
/// (4 KiB in these tests) and than the default one (64 KiB); no final
/// newline (test.c relies on its last line, "last line without newline").
fn log_text() -> Vec<u8> {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let words = [
        "request",
        "served",
        "cache",
        "miss",
        "Timeout",
        "retry",
        "user",
        "ünïcödé",
        "ok",
        "disk",
        "queue",
        "flush",
    ];
    let mut t = Vec::new();
    for i in 0..40_000u64 {
        let r = next();
        match r % 97 {
            0 => t.extend_from_slice(b"\n"),
            1 => t.extend_from_slice(b"windows line\r\n"),
            2 if i % 5 == 0 => {
                t.extend_from_slice(b"long ");
                let n = if i % 3 == 0 { 70_000 } else { 9_000 };
                t.extend(std::iter::repeat_n(b'x', n));
                t.extend_from_slice(b" ERROR end\n");
            }
            _ => {
                let level = ["INFO", "INFO", "WARN", "ERROR", "DEBUG"][(r >> 8) as usize % 5];
                write!(
                    t,
                    "2026-11-30T{:02}:{:02}:{:02}.{:03}Z {level} worker-{} ",
                    (i / 3600) % 24,
                    (i / 60) % 60,
                    i % 60,
                    r % 1000,
                    (r >> 16) % 8
                )
                .unwrap();
                for k in 0..(r >> 24) % 9 {
                    let w = words[((r >> (28 + k)) % words.len() as u64) as usize];
                    write!(t, "{w} ").unwrap();
                }
                if (r >> 40) % 13 == 0 {
                    t.extend_from_slice(b"connection timeout after 30s");
                }
                writeln!(t, "id={i}").unwrap();
            }
        }
    }
    t.extend_from_slice(b"last line without newline");
    t
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

// ---------------------------------------------------------------------
// The oracle

/// Line `k` is `text[starts[k] .. starts[k + 1]]` (the last ends at the
/// end): a line is the bytes up to and including `\n`; a final line
/// without one counts.
/// `bytes` as a seekable zstd archive of `lidx pack` (frames of 64 KiB of
/// text; the sidecar it writes beside is removed: the test builds its own
/// with its spacing).
fn packed_zst(bytes: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.log");
    let out = dir.path().join("t.log.zst");
    std::fs::write(&input, bytes).unwrap();
    let opts = lidx_core::PackOptions {
        frame: 65536,
        ..Default::default()
    };
    lidx_core::pack(&input, &out, &opts, &mut |_, _| true).expect("pack");
    std::fs::read(&out).unwrap()
}

fn line_starts(text: &[u8]) -> Vec<u64> {
    let mut starts = vec![];
    let mut at = 0usize;
    while at < text.len() {
        starts.push(at as u64);
        at = match memchr_nl(&text[at..]) {
            Some(i) => at + i + 1,
            None => text.len(),
        };
    }
    starts
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

struct Oracle<'a> {
    text: &'a [u8],
    starts: Vec<u64>,
}

impl<'a> Oracle<'a> {
    fn new(text: &'a [u8]) -> Oracle<'a> {
        Oracle {
            text,
            starts: line_starts(text),
        }
    }

    fn lines(&self) -> u64 {
        self.starts.len() as u64
    }

    fn span(&self, line: u64) -> (u64, u64) {
        let k = line as usize;
        let end = self
            .starts
            .get(k + 1)
            .copied()
            .unwrap_or(self.text.len() as u64);
        (self.starts[k], end)
    }

    fn line(&self, line: u64) -> &'a [u8] {
        let (s, e) = self.span(line);
        &self.text[s as usize..e as usize]
    }

    /// The line holding byte `offset` (< the length).
    fn line_at(&self, offset: u64) -> u64 {
        (self.starts.partition_point(|&s| s <= offset) - 1) as u64
    }
}

/// One query of test.c's `queries` mode.
enum Query {
    Count,
    Len,
    Span(u64),
    At(u64),
    Read {
        first: u64,
        count: u64,
        cap: u64,
    },
    Parts {
        first: u64,
        count: u64,
        target: u64,
        cap: u64,
    },
    Search(SearchQuery),
}

struct SearchQuery {
    flags: u32,
    max: u64,
    before: u64,
    after: u64,
    first: u64,
    count: u64,
    stop: u64,
    pattern: &'static str,
}

// The header's search flags (checked against the header by the C side:
// test.c passes them through unchanged).
const FIXED: u32 = 1;
const IGNORE_CASE: u32 = 2;
const SMART_CASE: u32 = 4;
const WORD: u32 = 8;
const LINE: u32 = 16;
const INVERT: u32 = 32;
const CRLF: u32 = 64;
const NO_UNICODE: u32 = 128;

impl Query {
    fn text(&self) -> String {
        match self {
            Query::Count => "count".into(),
            Query::Len => "len".into(),
            Query::Span(l) => format!("span {l}"),
            Query::At(o) => format!("at {o}"),
            Query::Read { first, count, cap } => format!("read {first} {count} {cap}"),
            Query::Parts {
                first,
                count,
                target,
                cap,
            } => format!("parts {first} {count} {target} {cap}"),
            Query::Search(s) => format!(
                "search {} {} {} {} {} {} {} {}",
                s.flags, s.max, s.before, s.after, s.first, s.count, s.stop, s.pattern
            ),
        }
    }
}

/// A query list for a file of `o.lines()` lines: the ends, the middle,
/// pseudo-random picks, buffers too short by one byte, exact and roomy,
/// and searches with each flag, context, limits and early stops.
fn queries(o: &Oracle<'_>) -> Vec<Query> {
    let n = o.lines();
    let len = o.text.len() as u64;
    let mut q = vec![Query::Count, Query::Len];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ len;
    let mut pick = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        if m == 0 { 0 } else { seed % m }
    };
    let mut lines = vec![
        0,
        1,
        n / 2,
        n.saturating_sub(2),
        n.saturating_sub(1),
        n,
        n + 1,
    ];
    lines.push(u64::MAX);
    for _ in 0..40 {
        lines.push(pick(n));
    }
    for &l in &lines {
        q.push(Query::Span(l));
    }
    let mut offsets = vec![0, 1, len / 2, len.saturating_sub(1), len, len + 7, u64::MAX];
    for _ in 0..40 {
        offsets.push(pick(len));
    }
    for &off in &offsets {
        q.push(Query::At(off));
    }
    for &(first, count) in &[
        (0, 1),
        (0, 5),
        (n / 3, 40),
        (n.saturating_sub(3), 10),
        (n.saturating_sub(1), u64::MAX),
        (n, 3),
        (n + 5, 1),
        (2, 0),
        (pick(n), 7),
        (pick(n), 25),
    ] {
        let need = if first >= n || count == 0 {
            0
        } else {
            let last = first.saturating_add(count).min(n) - 1;
            o.span(last).1 - o.span(first).0
        };
        for cap in [0, need.saturating_sub(1), need, need + 100] {
            q.push(Query::Read { first, count, cap });
        }
    }
    for &(first, count, target) in &[
        (0, u64::MAX, 1),
        (0, u64::MAX, 1 << 14),
        (0, u64::MAX, u64::MAX),
        (n / 3, n / 3, 5000),
        (n, 5, 1),
        (3, 0, 1),
        (0, 10, 0),
    ] {
        // Arrays too short, and long enough for any plan of these files.
        for cap in [0, 1, 3, 100_000] {
            q.push(Query::Parts {
                first,
                count,
                target,
                cap,
            });
        }
    }
    let s = |flags, max, before, after, first, count, stop, pattern| {
        Query::Search(SearchQuery {
            flags,
            max,
            before,
            after,
            first,
            count,
            stop,
            pattern,
        })
    };
    let mid = n / 2;
    q.extend([
        s(0, 0, 0, 0, 0, u64::MAX, 0, "ERROR"),
        s(FIXED, 0, 0, 0, mid, 3000, 0, "timeout"),
        s(IGNORE_CASE, 0, 0, 0, mid, 3000, 0, "timeout"),
        s(SMART_CASE, 0, 0, 0, 0, 2000, 0, "Timeout"),
        s(WORD, 0, 0, 0, 0, 2000, 0, "ok"),
        s(LINE, 0, 0, 0, 0, u64::MAX, 0, "windows line"),
        s(LINE | CRLF, 0, 0, 0, 0, u64::MAX, 0, "windows line"),
        s(INVERT, 0, 0, 0, mid, 50, 0, "INFO"),
        s(NO_UNICODE | IGNORE_CASE, 0, 0, 0, 0, 3000, 0, "ÜNÏCÖDÉ"),
        s(IGNORE_CASE, 0, 0, 0, 0, 3000, 0, "ÜNÏCÖDÉ"),
        s(0, 5, 0, 0, 0, u64::MAX, 0, "WARN"),
        s(0, 0, 2, 1, mid, 400, 0, "ERROR"),
        s(0, 0, 0, 0, 0, u64::MAX, 4, "DEBUG"),
        s(0, 0, 0, 0, n, 10, 0, "ERROR"),
        s(0, 0, 0, 0, 0, u64::MAX, 0, "^$"),
        s(0, 0, 0, 0, 0, u64::MAX, 0, "x{50} ERROR"),
        s(0, 0, 0, 0, 0, u64::MAX, 0, "newline$"),
        s(0, 0, 0, 0, 0, 10, 0, "a("),
        s(0, 0, 0, 0, 0, 10, 0, "a\\nb"),
    ]);
    q
}

/// Collects reported lines as test.c prints them, stopping after `stop`.
struct Transcript<'w> {
    out: &'w mut Vec<u8>,
    stop: u64,
    seen: u64,
    lines: Vec<u64>,
}

impl Sink for Transcript<'_> {
    fn line(&mut self, l: &Line<'_>) -> lidx_core::Result<bool> {
        let kind = match l.kind {
            Kind::Match => "match",
            Kind::Context => "context",
        };
        writeln!(
            self.out,
            "hit {kind} {} {} {}",
            l.number,
            l.offset,
            l.bytes.len()
        )
        .unwrap();
        self.out.extend_from_slice(l.bytes);
        self.out.push(b'\n');
        self.lines.push(l.number);
        self.seen += 1;
        Ok(!(self.stop != 0 && self.seen >= self.stop))
    }
}

/// The transcript test.c must write: counts, spans, offsets and reads
/// from the oracle; searches from the Rust API on `index`, whose literal
/// searches are checked against the oracle here.
fn expected(o: &Oracle<'_>, index: &lidx_core::Index, queries: &[Query]) -> Vec<u8> {
    let n = o.lines();
    let len = o.text.len() as u64;
    let mut w = Vec::new();
    for q in queries {
        writeln!(w, "{}", q.text()).unwrap();
        match q {
            Query::Count => writeln!(w, "= LIDX_OK {n}").unwrap(),
            Query::Len => writeln!(w, "= LIDX_OK {len}").unwrap(),
            Query::Span(l) if *l < n => {
                let (s, e) = o.span(*l);
                writeln!(w, "= LIDX_OK {s} {e}").unwrap();
            }
            Query::Span(_) => writeln!(w, "= LIDX_PAST_END").unwrap(),
            Query::At(off) if *off < len => writeln!(w, "= LIDX_OK {}", o.line_at(*off)).unwrap(),
            Query::At(_) => writeln!(w, "= LIDX_PAST_END").unwrap(),
            Query::Read { first, count, cap } => {
                let a = (*first).min(n);
                let b = first.saturating_add(*count).min(n);
                let (s, e) = if a < b {
                    (o.span(a).0, o.span(b - 1).1)
                } else {
                    (0, 0)
                };
                let need = e - s;
                if *cap >= need {
                    writeln!(w, "= LIDX_OK needed {need} lines {}", b.saturating_sub(a)).unwrap();
                    w.extend_from_slice(&o.text[s as usize..e as usize]);
                    w.push(b'\n');
                } else {
                    writeln!(w, "= LIDX_ERROR_BUFFER needed {need} lines 0").unwrap();
                }
            }
            Query::Parts {
                first,
                count,
                target,
                cap,
            } => parts_expected(o, index, (*first, *count, *target, *cap), &mut w),
            Query::Search(s) => search_expected(o, index, s, &mut w),
        }
    }
    w
}

/// A plan as the core makes it, checked against the oracle's lines first:
/// contiguous, covering the clamped range, each text range the lines'
/// bytes.
fn parts_expected(
    o: &Oracle<'_>,
    index: &lidx_core::Index,
    (first, count, target, cap): (u64, u64, u64, u64),
    w: &mut Vec<u8>,
) {
    if target == 0 {
        writeln!(w, "= LIDX_ERROR_INVALID n 7777").unwrap();
        return;
    }
    let n = o.lines();
    let (a, b) = (first.min(n), first.saturating_add(count).min(n));
    let plan = index
        .partitions(first..first.saturating_add(count), target)
        .unwrap();
    let mut at = a;
    for p in &plan {
        assert_eq!(p.lines.start, at);
        assert!(p.lines.end > p.lines.start);
        assert_eq!(p.text.start, o.span(p.lines.start).0);
        assert_eq!(p.text.end, o.span(p.lines.end - 1).1);
        at = p.lines.end;
    }
    assert_eq!(at, if a < b { b } else { a });
    if plan.len() as u64 > cap {
        writeln!(w, "= LIDX_ERROR_BUFFER n {}", plan.len()).unwrap();
        return;
    }
    writeln!(w, "= LIDX_OK n {}", plan.len()).unwrap();
    for p in &plan {
        let (has, lo, hi) = p.time.map_or((0, 0, 0), |t| (1, t.0, t.1));
        writeln!(
            w,
            "p {} {} {} {} {} {} {has} {lo} {hi}",
            p.lines.start,
            p.lines.end - p.lines.start,
            p.text.start,
            p.text.end,
            p.source.start,
            p.source.end
        )
        .unwrap();
    }
}

fn search_expected(o: &Oracle<'_>, index: &lidx_core::Index, s: &SearchQuery, w: &mut Vec<u8>) {
    let has = |bit| s.flags & bit != 0;
    let mo = MatcherOptions {
        fixed_strings: has(FIXED),
        case_insensitive: has(IGNORE_CASE),
        smart_case: has(SMART_CASE),
        word: has(WORD),
        line: has(LINE),
        crlf: has(CRLF),
        no_unicode: has(NO_UNICODE),
    };
    let matcher = match Matcher::new(&[s.pattern.to_string()], &mo) {
        Ok(m) => m,
        Err(_) => {
            writeln!(w, "= LIDX_ERROR_INVALID").unwrap();
            return;
        }
    };
    let scan = ScanOptions {
        invert: has(INVERT),
        before: s.before,
        after: s.after,
        max_count: (s.max != 0).then_some(s.max),
        passthru: false,
        skip_line_numbers: false,
    };
    let mut t = Transcript {
        out: w,
        stop: s.stop,
        seen: 0,
        lines: Vec::new(),
    };
    let range = s.first..s.first.saturating_add(s.count);
    let matched = index
        .search(range.clone(), &matcher, &scan, &mut t)
        .expect("Rust search");
    let reported = std::mem::take(&mut t.lines);
    writeln!(w, "= LIDX_OK matched {matched}").unwrap();
    // A plain literal, with no option that changes what matches: the
    // oracle's own answer.
    let plain = (s.flags == 0 || s.flags == FIXED) && s.before == 0 && s.after == 0;
    if plain
        && s.pattern
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b' ')
    {
        let (a, b) = (range.start.min(o.lines()), range.end.min(o.lines()));
        let mut want: Vec<u64> = (a..b)
            .filter(|&l| {
                let line = o.line(l);
                let body = line.strip_suffix(b"\n").unwrap_or(line);
                body.windows(s.pattern.len())
                    .any(|x| x == s.pattern.as_bytes())
            })
            .collect();
        if s.max != 0 {
            want.truncate(s.max as usize);
        }
        if s.stop != 0 {
            want.truncate(s.stop as usize);
        }
        assert_eq!(
            reported, want,
            "search {:?}: Rust API against the oracle",
            s.pattern
        );
    }
}

/// Runs test.c's `queries` mode on `file` and compares its transcript.
fn check_queries(exe: &Path, dir: &Path, file: &Path, text: &[u8], spacing: u64, span: u64) {
    let o = Oracle::new(text);
    let qs = queries(&o);
    let qfile = dir.join("queries.txt");
    let mut qtext = String::new();
    for q in &qs {
        qtext.push_str(&q.text());
        qtext.push('\n');
    }
    std::fs::write(&qfile, qtext).unwrap();
    let got_file = dir.join("transcript.txt");
    let out = run(Command::new(exe)
        .arg("queries")
        .arg(file)
        .arg(spacing.to_string())
        .arg(span.to_string())
        .arg(&qfile)
        .arg(&got_file));
    assert!(
        out.status.success(),
        "test queries {}: {}\n{}",
        file.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut oo = lidx_core::OpenOptions::new();
    if spacing != 0 {
        oo.spacing(spacing);
    }
    if span != 0 {
        oo.span(span);
    }
    let index = oo.open(file).expect("Rust open").index;
    assert_eq!(index.line_count(), o.lines(), "Rust line count");
    let want = expected(&o, &index, &qs);
    let got = std::fs::read(&got_file).unwrap();
    if got != want {
        let (g, w) = (
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
        );
        let first = g
            .lines()
            .zip(w.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(g.lines().count().min(w.lines().count()));
        panic!(
            "{}: transcripts differ at line {first}:\n  C:    {:?}\n  Rust: {:?}",
            file.display(),
            g.lines().nth(first),
            w.lines().nth(first)
        );
    }
}

/// The files of the `queries` tests: (name, bytes, spacing, span).
fn query_files() -> Vec<(&'static str, Vec<u8>, u64, u64)> {
    let text = log_text();
    let gz = gzip(&text);
    vec![
        ("plain.log", text.clone(), 4096, 0),
        ("default.log", text.clone(), 0, 0),
        ("plain.log.gz", gz, 4096, 256 * 1024),
        ("plain.log.zst", packed_zst(&text), 4096, 0),
        ("empty.txt", Vec::new(), 0, 0),
        ("one-unterminated.txt", b"x".to_vec(), 0, 0),
        ("newlines.txt", b"\n\n\n".to_vec(), 0, 0),
        (
            "crlf.txt",
            b"a\r\n\r\nb\rc\r\nwindows line\r\n".to_vec(),
            0,
            0,
        ),
    ]
}

fn queries_with(asan: bool) {
    let Some(cc) = cc() else {
        return skip("no C compiler (cc or $CC)");
    };
    let dir = tempfile::tempdir().unwrap();
    if asan && !asan_works(&cc, dir.path()) {
        return skip(&format!(
            "{cc} -fsanitize=address does not build a program that runs"
        ));
    }
    let exe = build_test_program(&cc, dir.path(), asan);
    for (name, bytes, spacing, span) in query_files() {
        let file = dir.path().join(name);
        std::fs::write(&file, &bytes).unwrap();
        let text = if name.ends_with(".gz") || name.ends_with(".zst") {
            log_text()
        } else {
            bytes
        };
        check_queries(&exe, dir.path(), &file, &text, spacing, span);
    }
}

#[test]
fn queries_match_the_oracle_and_the_rust_api() {
    queries_with(false);
}

#[test]
fn queries_match_under_address_sanitizer() {
    queries_with(true);
}

fn api_with(asan: bool) {
    let Some(cc) = cc() else {
        return skip("no C compiler (cc or $CC)");
    };
    let dir = tempfile::tempdir().unwrap();
    if asan && !asan_works(&cc, dir.path()) {
        return skip(&format!(
            "{cc} -fsanitize=address does not build a program that runs"
        ));
    }
    let exe = build_test_program(&cc, dir.path(), asan);
    let text = log_text();
    let plain = dir.path().join("app.log");
    let gz = dir.path().join("app.log.gz");
    let zst = dir.path().join("app.log.zst");
    std::fs::write(&plain, &text).unwrap();
    std::fs::write(&gz, gzip(&text)).unwrap();
    std::fs::write(&zst, packed_zst(&text)).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = run(Command::new(&exe)
        .arg("api")
        .arg(&work)
        .arg(&plain)
        .arg(&gz)
        .arg(&zst)
        // The user cache directory (content-check notes) inside the test's.
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .env(
            "ASAN_OPTIONS",
            "detect_leaks=1:abort_on_error=0:exitcode=86",
        ));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(" passed, 0 failed"),
        "test api ({}): {}\nstdout: {stdout}\nstderr: {stderr}",
        if asan { "AddressSanitizer" } else { "plain" },
        out.status
    );
    // The library writes nothing to stdout or stderr.
    assert_eq!(stderr, "", "output on stderr");
    eprintln!("test.c api: {}", stdout.trim());
}

#[test]
fn api_contract() {
    api_with(false);
}

#[test]
fn api_contract_under_address_sanitizer() {
    api_with(true);
}

// ---------------------------------------------------------------------
// The example viewer

/// What viewer.c prints for `file LINE HEIGHT PATTERN`, replayed over the
/// oracle (see its main()).
fn viewer_expected(o: &Oracle<'_>, line: u64, height: u64, pattern: &str) -> Vec<u8> {
    let n = o.lines();
    let mut w = Vec::new();
    let show = |w: &mut Vec<u8>, top: u64, title: &str| {
        let last = (top + height).min(n);
        writeln!(w, "-- {title}: lines {}..{last} of {n} --", top + 1).unwrap();
        for l in top..last {
            let bytes = o.line(l);
            let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
            write!(w, "{:>10} | ", l + 1).unwrap();
            w.extend_from_slice(&body[..body.len().min(100)]);
            w.push(b'\n');
        }
    };
    let mut top = line.saturating_sub(1).min(n.saturating_sub(1));
    let last_top = n.saturating_sub(height);
    show(&mut w, top, "goto");
    for _ in 0..2 {
        top = (top + height).min(last_top);
        show(&mut w, top, "page down");
    }
    top = top.saturating_sub(height);
    show(&mut w, top, "page up");
    let matches = |l: u64| {
        let bytes = o.line(l);
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        body.windows(pattern.len()).any(|x| x == pattern.as_bytes())
    };
    match (top + 1..n).find(|&l| matches(l)) {
        None => writeln!(w, "-- search: no match after line {} --", top + 1).unwrap(),
        Some(hit) => {
            let on_screen = (hit..(hit + height).min(n)).filter(|&l| matches(l)).count();
            show(&mut w, hit, &format!("search ({on_screen} on screen)"));
        }
    }
    w
}

/// Installs the library with install.sh into a temporary prefix and
/// returns the pkg-config flags (cflags, static libs), or None without
/// pkg-config.
fn installed_flags(prefix: &Path) -> Option<(Vec<String>, Vec<String>)> {
    let lib = built();
    // install.sh takes both libraries from the directory cargo put them in.
    assert_eq!(lib.archive.parent(), Some(lib.dir()), "liblidx.a elsewhere");
    let out = run(Command::new("sh")
        .arg(manifest_dir().join("install.sh"))
        .arg(prefix)
        .arg(lib.dir()));
    assert!(
        out.status.success(),
        "install.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pc = std::fs::read_to_string(prefix.join("lib/pkgconfig/lidx.pc")).unwrap();
    assert!(
        pc.contains(&format!("prefix={}\n", prefix.display()))
            && pc.contains(&format!("Version: {}\n", env!("CARGO_PKG_VERSION"))),
        "lidx.pc:\n{pc}"
    );
    let pkg_config = |args: &[&str]| -> Option<Vec<String>> {
        let out = Command::new("pkg-config")
            .args(args)
            .arg("lidx")
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
            .output()
            .ok()?;
        assert!(
            out.status.success(),
            "pkg-config {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .map(String::from)
                .collect(),
        )
    };
    let cflags = pkg_config(&["--cflags"])?;
    // `--static --libs lidx` still names -llidx, which the linker takes as
    // liblidx.so (installed beside): lidx-static names the archive.
    let dynamic = pkg_config(&["--static", "--libs"])?;
    assert!(dynamic.iter().any(|l| l == "-llidx"), "{dynamic:?}");
    let out = Command::new("pkg-config")
        .args(["--libs", "lidx-static"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let libs: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(String::from)
        .collect();
    assert!(libs.iter().any(|l| l.ends_with("/liblidx.a")), "{libs:?}");
    Some((cflags, libs))
}

#[test]
fn viewer_example_links_statically_and_pages() {
    let Some(cc) = cc() else {
        return skip("no C compiler (cc or $CC)");
    };
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("prefix");
    let lib = built();
    let src = manifest_dir().join("examples/viewer.c");
    let exe = dir.path().join("viewer");
    // Linked with liblidx.a: -llidx between -Bstatic and -Bdynamic, with
    // the static libs pkg-config lists (Libs.private) after it.
    let (cflags, libs) = match installed_flags(&prefix) {
        Some(flags) => flags,
        None => {
            skip("no pkg-config: the viewer is linked without it");
            let pc = std::fs::read_to_string(manifest_dir().join("lidx.pc.in")).unwrap();
            let private = pc
                .lines()
                .find_map(|l| l.strip_prefix("Libs.private:"))
                .unwrap_or("")
                .split_whitespace()
                .map(String::from);
            let cflags = vec![format!("-I{}", manifest_dir().join("include").display())];
            let libs = [format!("-L{}", lib.dir().display()), "-llidx".into()]
                .into_iter()
                .chain(private)
                .collect();
            (cflags, libs)
        }
    };
    let mut args: Vec<String> = cflags;
    args.push(src.display().to_string());
    for l in libs {
        if l == "-llidx" {
            // Without pkg-config: the archive, as lidx-static.pc names it.
            args.push(lib.archive.display().to_string());
        } else {
            args.push(l);
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    compile(&cc, &exe, &args);
    // Statically linked: the executable needs no liblidx.so.
    let needed = run(Command::new("sh")
        .arg("-c")
        .arg(format!("LD_TRACE_LOADED_OBJECTS=1 {}", exe.display())));
    assert!(
        !String::from_utf8_lossy(&needed.stdout).contains("liblidx"),
        "the viewer loads liblidx.so: {}",
        String::from_utf8_lossy(&needed.stdout)
    );

    let text = log_text();
    let o = Oracle::new(&text);
    let plain = dir.path().join("view.log");
    let gz = dir.path().join("view.log.gz");
    std::fs::write(&plain, &text).unwrap();
    std::fs::write(&gz, gzip(&text)).unwrap();
    let n = o.lines();
    for (file, line, height, pattern) in [
        (&plain, n / 2, 12, "timeout"),
        (&gz, 1, 5, "ERROR"),
        (&plain, n - 3, 10, "no such words"),
        (&gz, n + 100, 7, "id=1"),
    ] {
        let out = run(Command::new(&exe)
            .arg(file)
            .arg(line.to_string())
            .arg(height.to_string())
            .arg(pattern));
        assert!(
            out.status.success(),
            "viewer {}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let want = viewer_expected(&o, line, height, pattern);
        assert!(
            out.stdout == want,
            "viewer {} {line} {height} {pattern}:\n{}\nwant:\n{}",
            file.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&want)
        );
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    }
    // A missing file: the library's message, exit status 2.
    let out = run(Command::new(&exe).arg(dir.path().join("missing.log")));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.starts_with("viewer: open: LIDX_ERROR_IO: ") && err.contains("missing.log"),
        "{err}"
    );
}

/// The header compiles as C++ too (cbindgen's cpp_compat guards).
#[test]
fn header_compiles_as_cpp() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if !Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return skip("no C++ compiler (c++ or $CXX)");
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("use.cpp");
    std::fs::write(
        &src,
        "#include <lidx.h>\nint main() { lidx_index *ix = nullptr; \
         return lidx_open(\"x\", nullptr, &ix) == LIDX_OK; }\n",
    )
    .unwrap();
    let out = run(Command::new(&cxx)
        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
        .arg(format!("-I{}", manifest_dir().join("include").display()))
        .arg(&src));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
