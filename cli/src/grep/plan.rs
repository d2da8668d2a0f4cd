//! Planning a search: everything decided once from the arguments, before
//! any file is opened — the matcher, the output mode and its options, the
//! line and byte ranges asked for, how files are named in the output.

use super::json::JsonOptions;
use super::standard::StandardOptions;
use super::{GrepArgs, Mode, unescape};
use crate::QueryOpts;
use crate::range::LineRange;
use crate::time::TimeArgs;
use lidx::Error;
use lidx::search::{Matcher, MatcherOptions, ScanOptions};
use std::io::IsTerminal;
use std::ops::Range;
use std::sync::Arc;

/// A search, planned.
pub struct Plan {
    /// What is printed.
    pub mode: Mode,
    /// `-q`: nothing printed; stop at the first selected line.
    pub quiet: bool,
    /// The patterns, compiled.
    pub matcher: Arc<Matcher>,
    /// `--lines` ranges, resolved in each file.
    pub specs: Vec<LineRange>,
    /// `--bytes` ranges.
    pub byte_ranges: Vec<Range<u64>>,
    /// Neither `--lines` nor `--bytes`: whole files.
    pub whole: bool,
    /// Worker threads.
    pub threads: usize,
    /// Bytes of source per parallel work unit.
    pub chunk_bytes: u64,
    /// `-E none`: raw bytes, no byte-order mark handling.
    pub encoding_none: bool,
    /// `--binary-skip`.
    pub binary_skip: bool,
    /// The scan's options (context, `-v`, `-m`).
    pub sopts: ScanOptions,
    /// Context crosses chunks, or `-m` needs order: one search in order.
    pub sequential: bool,
    /// The standard format's options, without a path.
    pub standard: StandardOptions,
    /// The JSON format's options, without a path.
    pub json: JsonOptions,
    /// `--include-zero`.
    pub include_zero: bool,
    /// `--stats` (not with `--json`, whose summary has them): every file
    /// searched to its end, statistics printed after the results.
    pub stats: bool,
    /// `--stop-on-nonmatch`: a file's search ends at its first line not
    /// selected after a selected one.
    pub stop_on_nonmatch: bool,
    /// Output names each line's or count's file (`-H`, or several files
    /// without `-I`).
    pub with_filename: bool,
    /// The file's name on a line of its own before its lines (`--heading`,
    /// the default on a terminal with several files).
    pub heading: bool,
    /// `-0`: a NUL after each printed path.
    pub null: bool,
    /// `--path-separator`: the byte printed for `/` in paths.
    pub path_separator: Option<u8>,
    /// Options of the index opens.
    pub query: QueryOpts,
    /// `--since`/`--until` and how stamps are read.
    pub time: TimeArgs,
}

impl Plan {
    /// Plans the search of `a`; `several` is true when the output must
    /// name files by default (several PATHs, or a directory).
    pub fn new(a: &GrepArgs, patterns: &[String], several: bool) -> lidx::Result<Plan> {
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
        let mode = super::mode_of(a);
        let path_separator = match a.path_separator.as_deref().map(super::unescape) {
            None => None,
            Some(b) if b.len() == 1 => Some(b[0]),
            Some(_) => {
                return Err(Error::InvalidArgument(
                    "--path-separator takes one byte (such as / or \\\\)".into(),
                ));
            }
        };
        let mopts = MatcherOptions {
            fixed_strings: a.fixed_strings,
            case_insensitive: a.ignore_case,
            smart_case: a.smart_case,
            word: a.word_regexp,
            line: a.line_regexp,
            crlf: a.crlf,
            no_unicode: a.no_unicode,
        };
        let matcher = Arc::new(match &a.regex_size_limit {
            Some(limit) => Matcher::with_size_limit(patterns, &mopts, parse_size(limit)?)?,
            None => Matcher::new(patterns, &mopts)?,
        });
        let specs = a
            .lines
            .iter()
            .map(|r| crate::range::parse(r).map_err(Error::InvalidArgument))
            .collect::<Result<Vec<_>, _>>()?;
        let byte_ranges = a
            .bytes
            .iter()
            .map(|s| super::search::parse_bytes(s))
            .collect::<Result<Vec<_>, _>>()?;
        let threads = a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);

        // Checked whether colours are on or not, as ripgrep does.
        let colors = super::colors::parse(&a.colors)?;
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
        if a.stop_on_nonmatch && a.invert_match {
            // ripgrep's own answer there depends on how it reads the file
            // (memory-mapped or not): no one answer to give.
            return Err(Error::InvalidArgument(
                "--stop-on-nonmatch cannot be used with -v (ripgrep's result there depends on whether it memory-maps the file)"
                    .into(),
            ));
        }
        let stats = a.stats && mode != Mode::Json;
        let sopts = ScanOptions {
            invert: a.invert_match,
            before,
            after,
            // -q and -l need one selected line (quiet JSON and --stats
            // still count all).
            max_count: if ((a.quiet && mode != Mode::Json) || mode == Mode::FilesWithMatches)
                && !stats
            {
                Some(a.max_count.unwrap_or(1).min(1))
            } else {
                a.max_count
            },
            passthru: a.passthru,
            // Standard and JSON output print numbers only with line_number;
            // counts, file names and quiet runs never do.
            skip_line_numbers: !line_number,
        };
        // Context crosses chunk boundaries, and with -m the statistics
        // (JSON's, --stats) and the match counts depend on where the
        // search stops: one search, in order. Otherwise chunks are
        // searched in parallel.
        let sequential = before > 0
            || after > 0
            || (sopts.max_count.is_some() && (mode != Mode::Standard || a.passthru || stats));
        let replacement = a.replace.as_ref().map(|r| r.as_bytes().to_vec());
        let with_filename = if a.no_filename {
            false
        } else {
            a.with_filename || several
        };
        // As ripgrep: a heading when asked, or by default on a terminal,
        // for the standard format only (not --vimgrep).
        let heading = with_filename
            && mode == Mode::Standard
            && !a.vimgrep
            && if a.no_heading {
                false
            } else {
                a.heading || stdout_tty
            };
        let standard = StandardOptions {
            path: None,
            null: a.null,
            line_number,
            column,
            byte_offset: a.byte_offset,
            only_matching: a.only_matching,
            per_match: a.vimgrep,
            replacement: replacement.clone(),
            max_columns: a.max_columns.filter(|&m| m > 0),
            max_columns_preview: a.max_columns_preview,
            trim: a.trim,
            colors: color.then_some(colors),
            context: before > 0 || after > 0,
            separator_context: if a.no_context_separator {
                None
            } else {
                Some(unescape(a.context_separator.as_deref().unwrap_or("--")))
            },
            separator_match: unescape(&a.field_match_separator),
            separator_context_field: unescape(&a.field_context_separator),
            invert: a.invert_match,
            count_matches: stats,
        };
        let json = JsonOptions {
            path: Vec::new(),
            line_number,
            replacement,
            invert: a.invert_match,
        };
        Ok(Plan {
            mode,
            quiet: a.quiet,
            matcher,
            specs,
            byte_ranges,
            whole: a.lines.is_empty() && a.bytes.is_empty(),
            threads,
            chunk_bytes: a.chunk_bytes,
            encoding_none,
            binary_skip: a.binary_skip,
            sopts,
            sequential,
            standard,
            json,
            include_zero: a.include_zero,
            stats,
            stop_on_nonmatch: a.stop_on_nonmatch,
            with_filename,
            heading,
            null: a.null,
            path_separator,
            query: QueryOpts {
                index: a.index.clone(),
                no_build: a.no_build,
                cache_mb: a.cache_mb,
                quiet: a.quiet,
                rotated: a.rotated,
            },
            time: a.time.clone(),
        })
    }
}

/// A size as ripgrep takes it: digits, then an optional `K`, `M` or `G`
/// (binary multiples).
fn parse_size(s: &str) -> lidx::Result<usize> {
    let bad = |why: String| Error::InvalidArgument(format!("--regex-size-limit: {why}"));
    let (digits, shift) = match s.as_bytes().last() {
        Some(b'K') => (&s[..s.len() - 1], 10),
        Some(b'M') => (&s[..s.len() - 1], 20),
        Some(b'G') => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!(
            "invalid size '{s}': a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix was expected"
        )));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| bad(format!("size too big in '{s}'")))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_as_ripgrep_reads_them() {
        assert_eq!(parse_size("0").unwrap(), 0);
        assert_eq!(parse_size("10K").unwrap(), 10240);
        assert_eq!(parse_size("2M").unwrap(), 2 << 20);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        for bad in ["", "K", "10k", "10X", "-1", "+1", "1 K", "100000000000G"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }
}
