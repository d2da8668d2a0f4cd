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

mod colors;
mod json;
mod merged;
mod plan;
mod print;
mod search;
mod standard;
mod stats;

use super::Status;
use crate::paths::{WalkArgs, expand, nothing_searched, searchable};
use clap::Args;
use lidx::Error;
use lidx::search::parallel::ChunkOutput;
use lidx::search::{Kind, Line, Matcher};
use plan::Plan;
use std::path::{Path, PathBuf};
use std::time::Instant;

// Arguments of `lidx grep` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct GrepArgs {
    /// The regular expression (ripgrep's syntax). Omit it when patterns
    /// are given with -e.
    #[arg(value_name = "PATTERN")]
    first: Option<String>,
    /// Files, archives, URLs and directories to search (directories are
    /// walked as ripgrep walks them; none: the current directory).
    #[arg(value_name = "PATH")]
    #[arg(value_parser = super::file_arg())]
    paths: Vec<PathBuf>,
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
    /// Print the file's name with each line, count or JSON message (the
    /// default with several PATHs or a directory).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    with_filename: bool,
    /// Never print file names.
    #[arg(short = 'I', long, overrides_with = "with_filename")]
    no_filename: bool,
    /// Print each file's name once, above its lines (the default on a
    /// terminal when names are printed).
    #[arg(long, overrides_with = "no_heading")]
    heading: bool,
    /// Print the file's name on each line instead of above them.
    #[arg(long, overrides_with = "heading")]
    no_heading: bool,
    /// Follow each printed file name with a NUL byte (for `xargs -0`).
    #[arg(short = '0', long)]
    null: bool,
    #[command(flatten)]
    walk: WalkArgs,
    /// Do not print the errors of files that cannot be opened or read
    /// (the exit status is still 2).
    #[arg(long, overrides_with = "messages")]
    no_messages: bool,
    /// Undo --no-messages.
    #[arg(long, hide = true, overrides_with = "no_messages")]
    messages: bool,
    /// Print `/` in paths as this one byte instead.
    #[arg(long, value_name = "SEP")]
    path_separator: Option<String>,
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
    /// A colour setting, as ripgrep's: TYPE:fg:COLOR, TYPE:bg:COLOR,
    /// TYPE:style:STYLE or TYPE:none (clears TYPE's), for TYPE path, line,
    /// column or match; COLOR black, blue, green, red, cyan, magenta,
    /// yellow, white, N (256 colours) or R,G,B (0-255, or 0x hex); STYLE
    /// bold, nobold, intense, nointense, underline, nounderline, italic,
    /// noitalic. Repeatable, applied in order over ripgrep's defaults.
    #[arg(long, value_name = "COLOR_SPEC")]
    colors: Vec<String>,
    /// Hyperlinks around paths, as ripgrep's: lidx writes none, so only
    /// an empty FORMAT or `none` (ripgrep's default) is taken.
    #[arg(long, value_name = "FORMAT")]
    hyperlink_format: Option<String>,
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
    /// Print statistics after the results, as ripgrep's (matches, matched
    /// lines, files with matches, files searched, bytes printed and
    /// searched, seconds); every file is searched, even with -q or -l.
    /// --json reports them in its summary instead.
    #[arg(long, overrides_with = "no_stats")]
    stats: bool,
    /// Undo --stats.
    #[arg(long, hide = true, overrides_with = "stats")]
    no_stats: bool,
    /// The size limit of the compiled regex: NUM bytes, or NUM with a
    /// suffix K, M or G (a pattern that needs more is an error).
    #[arg(long, value_name = "NUM+SUFFIX?")]
    regex_size_limit: Option<String>,
    /// Stop searching a file at its first line that is not selected after
    /// a selected one (for files whose matches are adjacent, such as
    /// sorted ones); context after the last selected line may show it.
    /// Not with -v.
    #[arg(long)]
    stop_on_nonmatch: bool,
    /// Not supported: lidx indexes lines that end in a newline, not
    /// records that end in NUL (ripgrep's --null-data). An error.
    #[arg(long)]
    null_data: bool,
    /// Skip the source (exit 1) if the searched range contains a NUL byte.
    #[arg(long)]
    binary_skip: bool,
    /// Each PATH is the live file of a rotation family (PATH.1,
    /// PATH.2.gz, ...), searched as one log with its global line numbers
    /// (see `lidx lines --help`).
    #[arg(short = 'R', long)]
    rotated: bool,
    /// With several PATHs: interleave their matching lines by time
    /// (through their time indexes, built when missing), as --since and
    /// --until over several files do.
    #[arg(long)]
    merge: bool,
    /// With -R: name each line by its member file and the member's own
    /// line number, as a search of the member files would.
    #[arg(long, requires = "rotated")]
    by_member: bool,
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

/// What printing a line depends on beyond the line: the bytes skipped
/// before the text (a UTF-8 byte-order mark, which ripgrep does not count),
/// and where each searched range starts (ripgrep's printers look at the
/// line before when they find matches, see `Matcher::for_each_match`).
#[derive(Debug, Default)]
pub struct LineFacts {
    shift: u64,
    /// Added to line numbers and offsets: where a rotation family's
    /// member starts in the family's global numbers (0 for a file).
    line_base: u64,
    byte_base: u64,
    /// The first offset of each searched range, sorted.
    starts: Vec<u64>,
}

impl LineFacts {
    /// The offset printed for source offset `o`.
    fn offset(&self, o: u64) -> u64 {
        o - self.shift + self.byte_base
    }

    /// The 1-based number printed for 0-based line `n`.
    fn number(&self, n: u64) -> u64 {
        n + 1 + self.line_base
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
    if let Some(f) = a.hyperlink_format.as_deref()
        && !f.is_empty()
        && f != "none"
    {
        return Err(Error::InvalidArgument(format!(
            "--hyperlink-format {f:?}: lidx grep does not write hyperlinks (an empty format or none is taken)"
        )));
    }
    if a.null_data {
        return Err(Error::InvalidArgument(
            "--null-data is not supported: lidx indexes lines that end in a newline (0x0A), not records that end in NUL; convert them first (tr '\\0' '\\n')".into(),
        ));
    }
    let (patterns, paths) = match (a.patterns.is_empty(), &a.first) {
        (true, Some(p)) => (vec![p.clone()], a.paths.clone()),
        (false, Some(f)) => {
            let mut paths = vec![super::stdin_alias(f.into())];
            paths.extend(a.paths.iter().cloned());
            (a.patterns.clone(), paths)
        }
        (false, None) => (a.patterns.clone(), a.paths.clone()),
        (true, None) => {
            return Err(Error::InvalidArgument(
                "usage: lidx grep [OPTIONS] PATTERN [PATH ...]".into(),
            ));
        }
    };
    if a.rotated && !a.by_member {
        if paths.len() > 1 && (a.merge || a.time.selects()) {
            let plan = Plan::new(&a, &patterns, true)?;
            return merged::run(&plan, &paths, &a.time);
        }
        return families(&a, &patterns, &paths, started);
    }
    let targets = if a.by_member {
        // The members as files, oldest first, each named as itself.
        let mut t = crate::paths::Targets {
            several: true,
            ..Default::default()
        };
        for live in &paths {
            for n in lidx::family::discover::family_files(live)? {
                t.list.push(crate::paths::Target {
                    path: n.path,
                    walked: false,
                });
            }
        }
        t
    } else {
        expand(&paths, &a.walk)?
    };
    let plan = Plan::new(&a, &patterns, targets.several)?;
    crate::paths::one_sidecar(&targets, &plan.query)?;
    if a.merge || (targets.list.len() > 1 && a.time.selects()) {
        let files: Vec<PathBuf> = crate::paths::searchable(&targets, &a.walk)
            .into_iter()
            .map(Path::to_path_buf)
            .collect();
        return merged::run(&plan, &files, &a.time);
    }
    let mut out = super::stdout();
    let mut run = print::Run::default();
    let mut errors = false;
    if let [one] = &targets.list[..]
        && !targets.several
    {
        // One named file: its errors are the command's.
        run.file(&plan, &one.path, &mut out)?;
    } else {
        let files = searchable(&targets, &a.walk);
        errors = targets.errors || nothing_searched(&targets);
        crate::prepare::sidecars(&files, &plan.query, &plan.time, plan.threads);
        for file in files {
            match run.file(&plan, file, &mut out) {
                Ok(()) => crate::take_damage_warning(),
                Err(e) if e.is_broken_pipe() => return Err(e),
                Err(e) => {
                    super::flush(&mut out)?;
                    if !a.no_messages {
                        crate::file_error(file, &e);
                    }
                    errors = true;
                }
            }
            // -q: the first selected line answers (quiet JSON and
            // --stats still report every file in their statistics).
            if plan.quiet && plan.mode != Mode::Json && !plan.stats && run.matched {
                break;
            }
        }
    }
    run.finish(&plan, started, &mut out)?;
    super::flush(&mut out)?;
    // As ripgrep: -q with a match answers, whatever failed.
    Ok(crate::status(
        errors && !(plan.quiet && run.matched),
        run.matched,
    ))
}

/// `lidx grep -R PATTERN LIVE...`: each rotation family searched as one
/// log, named by its live file when there are several.
fn families(
    a: &GrepArgs,
    patterns: &[String],
    paths: &[PathBuf],
    started: Instant,
) -> lidx::Result<Status> {
    if paths.is_empty() {
        return Err(Error::InvalidArgument(
            "-R takes the live file of each rotation family to search (lidx grep -R PATTERN app.log)"
                .into(),
        ));
    }
    let plan = Plan::new(a, patterns, paths.len() > 1)?;
    let mut out = super::stdout();
    let mut run = print::Run::default();
    let mut errors = false;
    for live in paths {
        let searched = crate::family::open(live, &plan.query, &plan.time, false)
            .and_then(|family| run.family(&plan, &family, &mut out));
        match searched {
            Ok(()) => {}
            Err(e) if paths.len() == 1 || e.is_broken_pipe() => return Err(e),
            Err(e) => {
                super::flush(&mut out)?;
                crate::file_error(live, &e);
                errors = true;
            }
        }
        if plan.quiet && plan.mode != Mode::Json && !plan.stats && run.matched {
            break;
        }
    }
    run.finish(&plan, started, &mut out)?;
    super::flush(&mut out)?;
    Ok(crate::status(
        errors && !(plan.quiet && run.matched),
        run.matched,
    ))
}

/// The path as ripgrep prints it (the argument as given), `/` replaced by
/// `--path-separator`'s byte.
fn path_bytes(p: &Path, separator: Option<u8>) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut b = p.as_os_str().as_bytes().to_vec();
    if let Some(sep) = separator {
        for c in &mut b {
            if *c == b'/' {
                *c = sep;
            }
        }
    }
    b
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
