//! `lidx grep PATTERN FILE`: ripgrep-compatible search restricted to line
//! or byte ranges, parallel across checkpoints, exact line numbers.
//!
//! Output follows `rg --no-heading --no-filename -a`: `N:line` with `-n`
//! (the default when stdout is a terminal, as in ripgrep; `-N` turns it
//! off), context lines as `N-line` with `--` between groups, and every
//! printed line ends with `\n`. Binary data is searched as bytes; only
//! `--binary-skip` skips a source whose searched range contains a NUL byte
//! (ripgrep's default binary detection is not imitated).

use super::grep_printer::{PrintOptions, Printer, json_string};
use super::{QueryOpts, Status, open_index};
use clap::Args;
use lidx::Error;
use lidx::search::{Chunk, Matcher, MatcherOptions, ScanOptions, Sink, parallel};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `lidx grep`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct GrepArgs {
    /// The regular expression (regex crate syntax, as ripgrep). Omit it when
    /// patterns are given with -e.
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
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Only matches surrounded by word boundaries.
    #[arg(short = 'w', long)]
    word_regexp: bool,
    /// Only matches that span the whole line.
    #[arg(short = 'x', long)]
    line_regexp: bool,
    /// Select non-matching lines.
    #[arg(short = 'v', long)]
    invert_match: bool,
    /// Print the number of selected lines only.
    #[arg(short = 'c', long)]
    count: bool,
    /// Show line numbers (default when stdout is a terminal).
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    line_number: bool,
    /// Hide line numbers.
    #[arg(short = 'N', long = "no-line-number")]
    no_line_number: bool,
    /// Show the 0-based byte offset of each printed line (of each part with -o).
    #[arg(short = 'b', long)]
    byte_offset: bool,
    /// Stop after NUM selected lines (the first NUM in file order).
    #[arg(short = 'm', long, value_name = "NUM")]
    max_count: Option<u64>,
    /// Lines of context after each selected line.
    #[arg(short = 'A', long, value_name = "NUM")]
    after_context: Option<u64>,
    /// Lines of context before each selected line.
    #[arg(short = 'B', long, value_name = "NUM")]
    before_context: Option<u64>,
    /// Lines of context before and after.
    #[arg(short = 'C', long, value_name = "NUM")]
    context: Option<u64>,
    /// Print only the matched parts, one per line.
    #[arg(short = 'o', long)]
    only_matching: bool,
    /// Colours: auto (terminal and no NO_COLOR), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
    /// One JSON object per line, modelled on ripgrep's --json messages.
    #[arg(long)]
    json: bool,
    /// `$` matches before `\r\n` too.
    #[arg(long)]
    crlf: bool,
    /// Skip the source (exit 1) if the searched range contains a NUL byte.
    #[arg(long)]
    binary_skip: bool,
    /// Search only these lines (1-based RANGE as in `lidx lines`; repeatable).
    #[arg(long = "lines", value_name = "RANGE", allow_hyphen_values = true)]
    lines: Vec<String>,
    /// Search only the lines overlapping bytes A:B (0-based, end exclusive).
    #[arg(long = "bytes", value_name = "A:B")]
    bytes: Vec<String>,
    /// Worker threads (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    /// Bytes of source per parallel work unit (for tests: 1 splits at every
    /// checkpoint).
    #[arg(long, value_name = "BYTES", default_value_t = CHUNK_BYTES, hide = true)]
    chunk_bytes: u64,
    #[command(flatten)]
    opts: QueryOpts,
}

/// Bytes per parallel work unit.
const CHUNK_BYTES: u64 = 4 << 20;

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

pub fn run(a: GrepArgs) -> lidx::Result<Status> {
    let (patterns, file) = match (a.patterns.is_empty(), a.first, a.second) {
        (true, Some(p), Some(f)) => (vec![p], f),
        (false, Some(f), None) => (a.patterns.clone(), super::stdin_alias(f.into())),
        (true, _, None) => {
            return Err(Error::InvalidArgument(
                "usage: lidx grep [OPTIONS] PATTERN FILE".into(),
            ));
        }
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
    let mopts = MatcherOptions {
        fixed_strings: a.fixed_strings,
        case_insensitive: a.ignore_case,
        word: a.word_regexp,
        line: a.line_regexp,
        crlf: a.crlf,
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

    let index = open_index(&file, &a.opts)?;
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
    let ranges = if a.lines.is_empty() && a.bytes.is_empty() {
        std::iter::once(0..index.line_count()).collect()
    } else {
        merge(ranges)
    };

    let stdout_tty = std::io::stdout().is_terminal();
    let color = match a.color.as_str() {
        "always" => true,
        "never" => false,
        _ => stdout_tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let before = a.before_context.or(a.context).unwrap_or(0);
    let after = a.after_context.or(a.context).unwrap_or(0);
    let popts = Arc::new(PrintOptions {
        line_number: if a.no_line_number {
            false
        } else {
            a.line_number || stdout_tty
        },
        byte_offset: a.byte_offset,
        only_matching: a.only_matching,
        count: a.count,
        color: color && !a.json,
        json: a.json,
        context: (before > 0 || after > 0) && !a.count,
        invert: a.invert_match,
        path: file.display().to_string(),
    });
    let sopts = ScanOptions {
        invert: a.invert_match,
        before,
        after,
        max_count: a.max_count,
    };

    let mut chunks: Vec<Chunk> = Vec::new();
    for r in &ranges {
        let c = index.chunk_for_lines(r.clone())?;
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

    let mut out = super::stdout();
    let out_err = |e| Error::io("write", Path::new("<stdout>"), e);
    if popts.json {
        out.write_all(b"{\"type\":\"begin\",\"data\":{\"path\":{\"text\":")
            .map_err(out_err)?;
        let mut p = Vec::new();
        json_string(&mut p, popts.path.as_bytes());
        out.write_all(&p).map_err(out_err)?;
        out.write_all(b"}}}\n").map_err(out_err)?;
    }
    let selected = if popts.context {
        // Context crosses chunk boundaries: one printer, in order.
        let mut printer = Printer::new(popts.clone(), matcher.clone(), None);
        let mut buf = Vec::new();
        let mut total = 0;
        for c in &chunks {
            let mut o = sopts;
            o.max_count = sopts.max_count.map(|m| m - total);
            if o.max_count == Some(0) {
                break;
            }
            total += lidx::search::scan::scan(
                index.source(),
                *c,
                &matcher,
                &o,
                &mut buf,
                &mut printer as &mut dyn Sink,
            )?;
        }
        let rendered = lidx::search::parallel::Render::finish(printer);
        out.write_all(&rendered.bytes).map_err(out_err)?;
        total
    } else {
        let mut pieces = Vec::new();
        for c in &chunks {
            pieces.extend(index.split_chunk(*c, a.chunk_bytes)?);
        }
        parallel::run(
            index.source(),
            &pieces,
            threads,
            &matcher,
            &sopts,
            || Printer::new(popts.clone(), matcher.clone(), None),
            &mut |bytes| out.write_all(bytes).map_err(out_err),
        )?
    };
    if popts.count && selected > 0 {
        // As ripgrep: a file with no selected line prints no count.
        if popts.json {
            out.write_all(
                format!("{{\"type\":\"count\",\"data\":{{\"count\":{selected}}}}}\n").as_bytes(),
            )
            .map_err(out_err)?;
        } else {
            writeln!(out, "{selected}").map_err(out_err)?;
        }
    }
    if popts.json {
        out.write_all(
            format!(
                "{{\"type\":\"end\",\"data\":{{\"stats\":{{\"matched_lines\":{selected}}}}}}}\n"
            )
            .as_bytes(),
        )
        .map_err(out_err)?;
    }
    super::flush(&mut out)?;
    // A damaged archive: the search covered only the lines before the
    // damage; say so unless the requested lines all lie before it.
    let whole = a.lines.is_empty() && a.bytes.is_empty();
    let past = whole || ranges.iter().any(|r| r.end > index.line_count()) || !a.bytes.is_empty();
    if past && let Some(e) = index.damaged_error() {
        return Err(e);
    }
    Ok(if selected > 0 { 0 } else { 1 })
}

fn contains_nul(src: &dyn lidx::io::ReadAt, c: &Chunk) -> lidx::Result<bool> {
    let mut buf = vec![0u8; 1 << 16];
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
