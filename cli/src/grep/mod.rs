//! `lidx grep PATTERN FILE`: ripgrep-compatible search restricted to line
//! or byte ranges, parallel across checkpoints, exact line numbers.
//!
//! The reference is ripgrep's current release run as
//! `rg --no-heading --no-filename -a ARGS PATTERN FILE`: the same lines,
//! bytes, colours, JSON messages and exit status. The matcher is ripgrep's
//! own (`grep-regex`); the searcher's rules live in `lidx::search::scan`;
//! this module picks the output mode and drives the search, [`standard`]
//! and [`json`] render lines, and counts are printed here.
//!
//! Differences from ripgrep, on purpose: binary data is searched as text
//! (ripgrep's `-a`; `--binary-skip` skips a source whose searched range
//! holds a NUL byte); a file that starts with a UTF-16 byte-order mark is
//! refused (lidx's lines are split at byte 0x0A, which in UTF-16 is not a
//! line end) unless `-E none` asks for the raw bytes. A UTF-8 byte-order
//! mark is skipped and offsets are counted after it, as ripgrep does.

mod json;
mod standard;

use super::{QueryOpts, Status};
use clap::Args;
use json::{Json, JsonStats};
use lidx::Error;
use lidx::search::parallel::{ChunkOutput, Render};
use lidx::search::{Chunk, Kind, Line, Matcher, MatcherOptions, ScanOptions, Search, Sink};
use standard::{Standard, StandardOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `lidx grep`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct GrepArgs {
    /// The regular expression (ripgrep's syntax). Omit it when patterns
    /// are given with -e.
    #[arg(value_name = "PATTERN")]
    first: Option<String>,
    /// The file (with -e, the only positional argument).
    #[arg(value_name = "FILE")]
    #[arg(value_parser = super::file_arg())]
    second: Option<PathBuf>,
    /// A pattern; repeat for several (a line matches if any matches).
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    patterns: Vec<String>,
    /// Treat patterns as literal strings.
    #[arg(short = 'F', long)]
    fixed_strings: bool,
    /// Case-insensitive (Unicode simple case folding, as ripgrep).
    #[arg(short = 'i', long, overrides_with_all = ["smart_case", "case_sensitive"])]
    ignore_case: bool,
    /// Case-insensitive unless a pattern has an uppercase letter.
    #[arg(short = 'S', long, overrides_with_all = ["ignore_case", "case_sensitive"])]
    smart_case: bool,
    /// Case-sensitive (the default; overrides -i and -S).
    #[arg(short = 's', long, overrides_with_all = ["ignore_case", "smart_case"])]
    case_sensitive: bool,
    /// Only matches surrounded by word boundaries.
    #[arg(short = 'w', long, overrides_with = "line_regexp")]
    word_regexp: bool,
    /// Only matches that span the whole line.
    #[arg(short = 'x', long, overrides_with = "word_regexp")]
    line_regexp: bool,
    /// Select non-matching lines.
    #[arg(short = 'v', long)]
    invert_match: bool,
    /// Print the number of selected lines only (of matches with -o).
    #[arg(short = 'c', long, overrides_with_all = MODES)]
    count: bool,
    /// Print the number of matches only.
    #[arg(long, overrides_with_all = MODES)]
    count_matches: bool,
    /// Print the file name if it has a selected line.
    #[arg(short = 'l', long, overrides_with_all = MODES)]
    files_with_matches: bool,
    /// Print the file name if it has no selected line.
    #[arg(long, overrides_with_all = MODES)]
    files_without_match: bool,
    /// One JSON message per line, as `rg --json`.
    #[arg(long, overrides_with_all = MODES)]
    json: bool,
    /// Print nothing (no notes on stderr either); exit 0 if a line is
    /// selected.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// With -c: print 0 when nothing is selected.
    #[arg(long, overrides_with = "no_include_zero")]
    include_zero: bool,
    /// Undo --include-zero.
    #[arg(long, hide = true, overrides_with = "include_zero")]
    no_include_zero: bool,
    /// Show line numbers (default when stdout is a terminal).
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    line_number: bool,
    /// Hide line numbers.
    #[arg(short = 'N', long = "no-line-number", overrides_with = "line_number")]
    no_line_number: bool,
    /// Show the 1-based column of the first match.
    #[arg(long, overrides_with = "no_column")]
    column: bool,
    /// Hide columns.
    #[arg(long, overrides_with = "column")]
    no_column: bool,
    /// Show the 0-based byte offset of each printed line (of each part with -o).
    #[arg(short = 'b', long)]
    byte_offset: bool,
    /// Stop after NUM selected lines (the first NUM in file order).
    #[arg(short = 'm', long, value_name = "NUM")]
    max_count: Option<u64>,
    /// Lines of context after each selected line.
    #[arg(short = 'A', long, value_name = "NUM", overrides_with = "passthru")]
    after_context: Option<u64>,
    /// Lines of context before each selected line.
    #[arg(short = 'B', long, value_name = "NUM", overrides_with = "passthru")]
    before_context: Option<u64>,
    /// Lines of context before and after (-A and -B take precedence).
    #[arg(short = 'C', long, value_name = "NUM", overrides_with = "passthru")]
    context: Option<u64>,
    /// Print every line, the selected ones as matches (the last of this
    /// and -A/-B/-C wins).
    #[arg(long, overrides_with_all = ["after_context", "before_context", "context"])]
    passthru: bool,
    /// The separator between context groups.
    #[arg(long, value_name = "SEP", overrides_with = "no_context_separator")]
    context_separator: Option<String>,
    /// No separator between context groups.
    #[arg(long, overrides_with = "context_separator")]
    no_context_separator: bool,
    /// The separator after fields of selected lines.
    #[arg(long, value_name = "SEP", default_value = ":")]
    field_match_separator: String,
    /// The separator after fields of context lines.
    #[arg(long, value_name = "SEP", default_value = "-")]
    field_context_separator: String,
    /// Print only the matched parts, one per line.
    #[arg(short = 'o', long)]
    only_matching: bool,
    /// Replace every match with REPLACEMENT ($1, ${name}, $$ as ripgrep).
    #[arg(
        short = 'r',
        long,
        value_name = "REPLACEMENT",
        allow_hyphen_values = true
    )]
    replace: Option<String>,
    /// One line per match, with line and column (`N:C:line`).
    #[arg(long)]
    vimgrep: bool,
    /// Trim leading ASCII whitespace from printed lines.
    #[arg(long)]
    trim: bool,
    /// Omit lines longer than NUM bytes.
    #[arg(short = 'M', long, value_name = "NUM")]
    max_columns: Option<u64>,
    /// With -M: print a preview of the long line.
    #[arg(long)]
    max_columns_preview: bool,
    /// Colours: auto (terminal and no NO_COLOR), always, never, ansi.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never", "ansi"])]
    color: String,
    /// `$` matches before `\r\n`; output lines end in `\r\n`.
    #[arg(long)]
    crlf: bool,
    /// ASCII-only classes and case folding.
    #[arg(long)]
    no_unicode: bool,
    /// Text encoding: auto (skip a UTF-8 byte-order mark) or none (raw bytes).
    #[arg(
        short = 'E',
        long,
        value_name = "ENCODING",
        default_value = "auto",
        overrides_with = "no_encoding"
    )]
    encoding: String,
    /// Undo -E (automatic: skip a UTF-8 byte-order mark).
    #[arg(long, hide = true, overrides_with = "encoding")]
    no_encoding: bool,
    /// Skip the source (exit 1) if the searched range contains a NUL byte.
    #[arg(long)]
    binary_skip: bool,
    /// Search only these lines (1-based RANGE as in `lidx lines`; repeatable).
    #[arg(long = "lines", value_name = "RANGE", allow_hyphen_values = true)]
    lines: Vec<String>,
    /// Search only the lines overlapping bytes A:B (0-based, end exclusive).
    #[arg(long = "bytes", value_name = "A:B")]
    bytes: Vec<String>,
    #[command(flatten)]
    time: crate::time::TimeArgs,
    /// Worker threads (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    /// Bytes of source per parallel work unit (for tests: 1 splits at every
    /// checkpoint).
    #[arg(long, value_name = "BYTES", default_value_t = CHUNK_BYTES, hide = true)]
    chunk_bytes: u64,
    /// Sidecar path (default: FILE.lidx, or the user cache directory when
    /// FILE's directory is not writable).
    #[arg(long = "index", value_name = "PATH")]
    index: Option<PathBuf>,
    /// Fail instead of building a missing sidecar or refreshing a stale one.
    #[arg(long)]
    no_build: bool,
    /// Page-cache budget in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 16)]
    cache_mb: usize,
}

/// The output modes: the last one given wins, as in ripgrep.
const MODES: [&str; 5] = [
    "count",
    "count_matches",
    "files_with_matches",
    "files_without_match",
    "json",
];

/// Bytes per parallel work unit.
const CHUNK_BYTES: u64 = 4 << 20;

/// What the search prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Standard,
    Count,
    CountMatches,
    FilesWithMatches,
    FilesWithoutMatch,
    Json,
}

/// ANSI reset.
const RESET: &[u8] = b"\x1b[0m";

/// What a renderer keeps for one chunk: the bytes, where each selected
/// line's record ends in them, and the counts (a `ChunkOutput` in the
/// making).
#[derive(Debug, Default)]
pub struct Rendered {
    /// The rendered bytes.
    out: Vec<u8>,
    ends: Vec<usize>,
    selected: u64,
    /// Matches counted (where the mode counts them).
    matches: u64,
}

impl Rendered {
    /// Notes that a line of kind `kind` has just been rendered into `out`.
    fn rendered(&mut self, kind: Kind) {
        if kind == Kind::Match {
            self.selected += 1;
            self.ends.push(self.out.len());
        }
    }

    fn finish(self) -> ChunkOutput {
        ChunkOutput {
            bytes: self.out,
            ends: self.ends,
            selected: self.selected,
            matches: self.matches,
            searched: 0,
        }
    }
}

/// ripgrep's default colour specs, as escape sequences (each starts with a
/// reset, as termcolor writes them).
#[derive(Debug, Clone, Copy)]
pub struct Colors {
    line: &'static [u8],
    column: &'static [u8],
    matched: &'static [u8],
}

const DEFAULT_COLORS: Colors = Colors {
    line: b"\x1b[0m\x1b[32m",
    column: b"\x1b[0m",
    matched: b"\x1b[0m\x1b[1m\x1b[31m",
};

/// What printing a line depends on beyond the line: the bytes skipped
/// before the text (a UTF-8 byte-order mark, which ripgrep does not count),
/// and where each searched range starts (ripgrep's printers look at the
/// line before when they find matches, see `Matcher::for_each_match`).
#[derive(Debug, Default)]
pub struct LineFacts {
    shift: u64,
    /// The first offset of each searched range, sorted.
    starts: Vec<u64>,
}

impl LineFacts {
    /// The offset printed for source offset `o`.
    fn offset(&self, o: u64) -> u64 {
        o - self.shift
    }

    /// True when the line at `o` follows another line of its range.
    fn preceded(&self, o: u64) -> bool {
        self.starts.binary_search(&o).is_err()
    }
}

/// The matches in one line, and the line with them replaced (`-r`).
#[derive(Debug, Default)]
pub struct Spans {
    original: Vec<(usize, usize)>,
    replaced: Vec<u8>,
    replaced_spans: Vec<(usize, usize)>,
    has_replacement: bool,
}

impl Spans {
    fn clear(&mut self) {
        self.original.clear();
        self.replaced.clear();
        self.replaced_spans.clear();
        self.has_replacement = false;
    }

    /// Finds the matches in line `l`, as ripgrep's printers do: in the line
    /// without its terminator, and not at its very end when it has no
    /// terminator (an empty match there is not reported).
    fn find(&mut self, matcher: &Matcher, facts: &LineFacts, l: &Line<'_>) {
        let content = matcher.content(l.bytes);
        let o = &mut self.original;
        let len = l.bytes.len();
        matcher.for_each_match(content, facts.preceded(l.offset), |s, e| {
            if s >= len {
                return false;
            }
            o.push((s, e));
            true
        });
    }

    /// Replaces the matches in `line` with `replacement` (`-r`).
    fn replace(&mut self, matcher: &Matcher, facts: &LineFacts, l: &Line<'_>, replacement: &[u8]) {
        matcher.replace(
            l.bytes,
            facts.preceded(l.offset),
            replacement,
            &mut self.replaced,
            &mut self.replaced_spans,
        );
        self.has_replacement = !self.replaced_spans.is_empty();
    }

    /// The bytes to print and the spans to colour in them: the replaced
    /// line when something was replaced, else the line and its matches.
    fn sunk<'a>(&'a self, line: &'a [u8]) -> (&'a [u8], &'a [(usize, usize)]) {
        if self.has_replacement {
            (&self.replaced, &self.replaced_spans)
        } else {
            (line, &self.original)
        }
    }
}

/// ripgrep's `--trim`: the start of `bytes[start..end]` past leading ASCII
/// whitespace that is not part of the line terminator.
fn trim_ascii_prefix(bytes: &[u8], start: usize, end: usize, crlf: bool) -> usize {
    let n = bytes[start..end]
        .iter()
        .take_while(|&&b| {
            matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' ')
                && b != b'\n'
                && !(crlf && b == b'\r')
        })
        .count();
    start + n
}

fn parse_bytes(s: &str) -> Result<std::ops::Range<u64>, Error> {
    let bad = || {
        Error::InvalidArgument(format!(
            "invalid byte range {s:?}: expected A:B with A < B (0-based, end exclusive)"
        ))
    };
    let (a, b) = s.split_once(':').ok_or_else(bad)?;
    let num = |t: &str| -> Result<u64, Error> {
        if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        t.parse().map_err(|_| bad())
    };
    let a = if a.is_empty() { 0 } else { num(a)? };
    let b = if b.is_empty() { u64::MAX } else { num(b)? };
    if a >= b {
        return Err(bad());
    }
    Ok(a..b)
}

/// Sorted, merged line ranges (0-based, half-open).
fn merge(mut v: Vec<std::ops::Range<u64>>) -> Vec<std::ops::Range<u64>> {
    v.sort_by_key(|r| r.start);
    let mut out: Vec<std::ops::Range<u64>> = Vec::new();
    for r in v {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Counts selected lines and, if asked, their matches (the count modes).
struct Counter {
    matcher: Arc<Matcher>,
    facts: Arc<LineFacts>,
    count_matches: bool,
    done: Rendered,
}

impl Counter {
    fn new(matcher: Arc<Matcher>, facts: Arc<LineFacts>, count_matches: bool) -> Counter {
        Counter {
            matcher,
            facts,
            count_matches,
            done: Rendered::default(),
        }
    }
}

impl Sink for Counter {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        if l.kind == Kind::Match && self.count_matches {
            // As ripgrep's summary printer: every match, at least one.
            let content = self.matcher.content(l.bytes);
            let (mut n, len) = (0u64, l.bytes.len());
            let preceded = self.facts.preceded(l.offset);
            self.matcher.for_each_match(content, preceded, |s, _| {
                n += u64::from(s < len);
                s < len
            });
            self.done.matches += n.max(1);
        }
        self.done.rendered(l.kind);
        Ok(true)
    }
}

impl Render for Counter {
    fn finish(self) -> ChunkOutput {
        self.done.finish()
    }
}

/// The renderers of the modes, behind one type for the scan.
enum Printer {
    Standard(Standard),
    Json(Json),
    Count(Counter),
}

impl Sink for Printer {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        match self {
            Printer::Standard(p) => p.line(l),
            Printer::Json(p) => p.line(l),
            Printer::Count(p) => p.line(l),
        }
    }
}

impl Render for Printer {
    fn finish(self) -> ChunkOutput {
        match self {
            Printer::Standard(p) => p.finish(),
            Printer::Json(p) => p.finish(),
            Printer::Count(p) => p.finish(),
        }
    }
}

fn mode_of(a: &GrepArgs) -> Mode {
    let mut mode = if a.count {
        Mode::Count
    } else if a.count_matches {
        Mode::CountMatches
    } else if a.files_with_matches {
        Mode::FilesWithMatches
    } else if a.files_without_match {
        Mode::FilesWithoutMatch
    } else if a.json {
        Mode::Json
    } else {
        Mode::Standard
    };
    // As ripgrep: `-o -c` counts matches, `-v --count-matches` lines.
    if mode == Mode::CountMatches && a.invert_match {
        mode = Mode::Count;
    } else if mode == Mode::Count && a.only_matching {
        mode = Mode::CountMatches;
    }
    mode
}

pub fn run(a: GrepArgs) -> lidx::Result<Status> {
    let started = Instant::now();
    let (patterns, file) = match (a.patterns.is_empty(), &a.first, &a.second) {
        (true, Some(p), Some(f)) => (vec![p.clone()], f.clone()),
        (false, Some(f), None) => (a.patterns.clone(), super::stdin_alias(f.into())),
        (false, Some(_), Some(_)) => {
            return Err(Error::InvalidArgument(
                "with -e, give only the FILE as positional argument".into(),
            ));
        }
        _ => {
            return Err(Error::InvalidArgument(
                "usage: lidx grep [OPTIONS] PATTERN FILE".into(),
            ));
        }
    };
    let encoding = if a.no_encoding {
        "auto".to_string()
    } else {
        a.encoding.to_ascii_lowercase()
    };
    let encoding_none = match encoding.as_str() {
        "auto" => false,
        "none" => true,
        other => {
            return Err(Error::InvalidArgument(format!(
                "encoding {other:?} is not supported: lidx searches bytes; use -E auto (the default: a UTF-8 byte-order mark is skipped) or -E none"
            )));
        }
    };
    let mode = mode_of(&a);
    let mopts = MatcherOptions {
        fixed_strings: a.fixed_strings,
        case_insensitive: a.ignore_case,
        smart_case: a.smart_case,
        word: a.word_regexp,
        line: a.line_regexp,
        crlf: a.crlf,
        no_unicode: a.no_unicode,
    };
    let matcher = Arc::new(Matcher::new(&patterns, &mopts)?);
    let specs = a
        .lines
        .iter()
        .map(|r| super::range::parse(r).map_err(Error::InvalidArgument))
        .collect::<Result<Vec<_>, _>>()?;
    let byte_ranges = a
        .bytes
        .iter()
        .map(|s| parse_bytes(s))
        .collect::<Result<Vec<_>, _>>()?;
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);

    let qopts = QueryOpts {
        index: a.index.clone(),
        no_build: a.no_build,
        cache_mb: a.cache_mb,
        quiet: a.quiet,
    };
    let index = crate::time::open(&file, &qopts, &a.time)?;
    let mut ranges = specs
        .iter()
        .map(|s| s.resolve_in(&index))
        .collect::<Result<Vec<_>, _>>()?;
    for b in byte_ranges {
        let c = index.chunk_for_bytes(b)?;
        if c.start < c.end {
            let last = index.line_at(c.end - 1)?;
            ranges.push(c.first_line..last + 1);
        }
    }
    let whole = a.lines.is_empty() && a.bytes.is_empty();
    let mut ranges: Vec<std::ops::Range<u64>> = if whole {
        std::iter::once(0..index.line_count()).collect()
    } else {
        merge(ranges)
    };
    // --since/--until: only the lines of the time range, too.
    if let Some(t) = a.time.range(&index)? {
        ranges = ranges
            .into_iter()
            .map(|r| r.start.max(t.start)..r.end.min(t.end))
            .filter(|r| r.start < r.end)
            .collect();
    }

    // A remote source starts fetching the first chunk while the first
    // bytes are read (for gzip, span 0 is decoded for them).
    if let Some(r) = ranges.first() {
        let c = index.chunk_for_lines(r.clone())?;
        index
            .source()
            .will_need(c.start..c.end.min(c.start.saturating_add(a.chunk_bytes)));
    }
    // A byte-order mark, as ripgrep's automatic encoding detection sees it.
    let mut head = [0u8; 3];
    let got = index.source().read_full_at(&mut head, 0)?;
    let head = &head[..got];
    let shift = if !encoding_none && head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    if !encoding_none && (head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF")) {
        return Err(Error::InvalidArgument(format!(
            "{}: UTF-16 text (byte-order mark {:02X} {:02X}): lidx splits lines at byte 0x0A and cannot search UTF-16; convert it (iconv -f UTF-16 -t UTF-8) or search the raw bytes with -E none",
            file.display(),
            head[0],
            head[1]
        )));
    }

    let mut chunks: Vec<Chunk> = Vec::new();
    for r in &ranges {
        let mut c = index.chunk_for_lines(r.clone())?;
        if c.start == 0 {
            c.start = shift.min(c.end);
        }
        if c.start < c.end {
            chunks.push(c);
        }
    }
    if a.binary_skip {
        for c in &chunks {
            if contains_nul(index.source(), c)? {
                return Ok(1);
            }
        }
    }
    let facts = Arc::new(LineFacts {
        shift,
        starts: chunks.iter().map(|c| c.start).collect(),
    });

    let stdout_tty = std::io::stdout().is_terminal();
    let color = match a.color.as_str() {
        "always" | "ansi" => true,
        "never" => false,
        _ => {
            stdout_tty
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    };
    let (before, after) = if a.passthru {
        (0, 0)
    } else {
        (
            a.before_context.or(a.context).unwrap_or(0),
            a.after_context.or(a.context).unwrap_or(0),
        )
    };
    let column = a.column || (a.vimgrep && !a.no_column);
    let line_number = if a.no_line_number {
        false
    } else if a.line_number {
        true
    } else {
        match mode {
            Mode::Json => true,
            Mode::Standard => !a.quiet && (stdout_tty || column || a.vimgrep),
            _ => false,
        }
    };
    let sopts = ScanOptions {
        invert: a.invert_match,
        before,
        after,
        // -q and -l need one selected line (quiet JSON still counts all).
        max_count: if (a.quiet && mode != Mode::Json) || mode == Mode::FilesWithMatches {
            Some(a.max_count.unwrap_or(1).min(1))
        } else {
            a.max_count
        },
        passthru: a.passthru,
        // Standard and JSON output print numbers only with line_number;
        // counts, file names and quiet runs never do.
        skip_line_numbers: !line_number,
    };
    let path_bytes = path_bytes(&file);
    let replacement = a.replace.as_ref().map(|r| r.as_bytes().to_vec());
    let popts = Arc::new(StandardOptions {
        line_number,
        column,
        byte_offset: a.byte_offset,
        only_matching: a.only_matching,
        per_match: a.vimgrep,
        replacement: replacement.clone(),
        max_columns: a.max_columns.filter(|&m| m > 0),
        max_columns_preview: a.max_columns_preview,
        trim: a.trim,
        colors: color.then_some(DEFAULT_COLORS),
        context: before > 0 || after > 0,
        separator_context: if a.no_context_separator {
            None
        } else {
            Some(unescape(a.context_separator.as_deref().unwrap_or("--")))
        },
        separator_match: unescape(&a.field_match_separator),
        separator_context_field: unescape(&a.field_context_separator),
        invert: a.invert_match,
    });
    let jopts = Arc::new(json::JsonOptions {
        path: path_bytes.clone(),
        line_number,
        replacement,
        invert: a.invert_match,
    });
    let quiet = a.quiet;
    let make = || -> Printer {
        if quiet {
            // Quiet JSON still reports statistics in its summary.
            return Printer::Count(Counter::new(
                matcher.clone(),
                facts.clone(),
                mode == Mode::Json,
            ));
        }
        match mode {
            Mode::Standard => {
                Printer::Standard(Standard::new(popts.clone(), facts.clone(), matcher.clone()))
            }
            Mode::Json => Printer::Json(Json::new(jopts.clone(), facts.clone(), matcher.clone())),
            _ => Printer::Count(Counter::new(
                matcher.clone(),
                facts.clone(),
                mode == Mode::CountMatches,
            )),
        }
    };

    let mut out = super::stdout();
    let out_err = |e| Error::io("write", Path::new("<stdout>"), e);
    let json_out = mode == Mode::Json && !quiet;
    let mut printed = 0u64;
    let mut begun = false;
    let search_started = Instant::now();
    // Context crosses chunk boundaries, and with -m the statistics of JSON
    // and the match counts depend on where the search stops: one search,
    // in order. Otherwise chunks are searched in parallel.
    let sequential = before > 0
        || after > 0
        || (sopts.max_count.is_some() && (mode != Mode::Standard || a.passthru));
    let mut done = false;
    let totals = if sequential {
        let mut printer = make();
        let mut search = Search::new(&matcher, sopts);
        search.exact_bytes_searched(json_out);
        let mut buf = Vec::new();
        for c in &chunks {
            search.scan(index.source(), *c, &mut buf, &mut printer)?;
            if search.is_done() {
                break;
            }
        }
        done = search.is_done();
        let rendered = printer.finish();
        write_out(
            &mut out,
            &rendered.bytes,
            json_out,
            &mut begun,
            &mut printed,
            &jopts,
        )
        .map_err(out_err)?;
        lidx::search::parallel::Totals {
            selected: search.selected(),
            matches: rendered.matches,
            searched: search.bytes_searched(),
        }
    } else {
        let mut pieces = Vec::new();
        for c in &chunks {
            pieces.extend(index.split_chunk(*c, a.chunk_bytes)?);
        }
        lidx::search::parallel::run(
            index.source(),
            &pieces,
            threads,
            &matcher,
            &sopts,
            make,
            &mut |bytes| {
                write_out(&mut out, bytes, json_out, &mut begun, &mut printed, &jopts)
                    .map_err(out_err)
            },
        )?
    };
    let search_elapsed = search_started.elapsed();
    let selected = totals.selected;

    // A damaged or truncated archive: the search covered only the lines
    // before the damage. An answer that needs the rest (a count, the
    // absence of a match) is an error; lines already printed stand, as
    // with `zcat | rg`.
    let needs_rest =
        whole || ranges.iter().any(|r| r.end > index.line_count()) || !a.bytes.is_empty();
    // Stopped by -m (or -q, -l) before the end: the answer is complete.
    let stopped_early = done || (!sequential && sopts.max_count.is_some_and(|m| selected >= m));
    if needs_rest
        && !stopped_early
        && let Some(e) = index.damaged_error()
    {
        super::flush(&mut out)?;
        return Err(e);
    }

    let term = matcher.line_terminator();
    if !quiet {
        match mode {
            Mode::Count | Mode::CountMatches => {
                let n = if mode == Mode::Count {
                    selected
                } else {
                    totals.matches
                };
                if n > 0 || a.include_zero {
                    write!(out, "{n}").map_err(out_err)?;
                    out.write_all(term).map_err(out_err)?;
                }
            }
            Mode::FilesWithMatches if selected > 0 => {
                out.write_all(&path_bytes).map_err(out_err)?;
                out.write_all(term).map_err(out_err)?;
            }
            Mode::FilesWithoutMatch if selected == 0 => {
                out.write_all(&path_bytes).map_err(out_err)?;
                out.write_all(term).map_err(out_err)?;
            }
            _ => {}
        }
    }
    if mode == Mode::Json {
        let stats = JsonStats {
            elapsed: search_elapsed,
            searches_with_match: u64::from(selected > 0),
            bytes_searched: totals.searched,
            bytes_printed: printed,
            matched_lines: selected,
            matches: totals.matches,
        };
        if begun {
            json::write_end(&mut out, &jopts, &stats).map_err(out_err)?;
        }
        json::write_summary(&mut out, &stats, started.elapsed()).map_err(out_err)?;
    }
    super::flush(&mut out)?;
    let found = match mode {
        Mode::FilesWithoutMatch => selected == 0,
        _ => selected > 0,
    };
    Ok(if found { 0 } else { 1 })
}

/// Writes rendered bytes; in JSON mode, the `begin` message first.
fn write_out(
    out: &mut impl Write,
    bytes: &[u8],
    json: bool,
    begun: &mut bool,
    printed: &mut u64,
    jopts: &json::JsonOptions,
) -> std::io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    if json && !*begun {
        *begun = true;
        *printed += json::write_begin(out, jopts)?;
    }
    *printed += bytes.len() as u64;
    out.write_all(bytes)
}

/// The path as ripgrep prints it (the argument as given).
fn path_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

/// ripgrep's escapes in separators: `\t`, `\n`, `\r`, `\\`, `\xHH`.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let c = b[i + 1];
            match c {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b'\\' => out.push(b'\\'),
                b'0' => out.push(0),
                b'x' if let Some(v) = s
                    .get(i + 2..i + 4)
                    .and_then(|h| u8::from_str_radix(h, 16).ok()) =>
                {
                    out.push(v);
                    i += 4;
                    continue;
                }
                _ => out.extend_from_slice(&b[i..i + 2]),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn contains_nul(src: &dyn lidx::io::ReadAt, c: &Chunk) -> lidx::Result<bool> {
    let mut buf = lidx::io::AlignedBuf::zeroed(1 << 16);
    let mut at = c.start;
    while at < c.end {
        let n = buf.len().min((c.end - at) as usize);
        let got = src.read_full_at(&mut buf[..n], at)?;
        if got == 0 {
            break;
        }
        if memchr::memchr(0, &buf[..got]).is_some() {
            return Ok(true);
        }
        at += got as u64;
    }
    Ok(false)
}
