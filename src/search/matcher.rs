//! The pattern, compiled once with ripgrep's own matcher (`grep-regex`,
//! configured as `rg` configures it for a line-oriented search): several
//! patterns are alternatives, `-F` makes them literals, `-i`/`-S` fold case
//! (Unicode simple case folding), `-x` anchors whole lines, `-w` requires
//! word boundaries on both sides (ripgrep ≥ 14's half boundaries), `^`/`$`
//! match at line boundaries, and with `crlf` a `\r` before `\n` is part of
//! the line terminator. A pattern that could match a line terminator (`\n`,
//! or `\r` under `crlf`) is refused, as ripgrep refuses it without `-U`.
//!
//! Matching is per line: a line is selected when the pattern matches the
//! line without its terminator, and the matches inside a line are found in
//! that line alone (the iteration rule of `grep-matcher`: an empty match
//! right after a match is skipped).

use crate::error::{Error, Result};
use grep_matcher::{Captures, LineMatchKind, LineTerminator, Matcher as _};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};

/// How to interpret and apply the patterns.
#[derive(Debug, Clone, Default)]
pub struct MatcherOptions {
    /// Treat patterns as literal strings (`-F`).
    pub fixed_strings: bool,
    /// Case-insensitive (`-i`), Unicode simple case folding.
    pub case_insensitive: bool,
    /// Case-insensitive unless a pattern has an uppercase letter (`-S`).
    pub smart_case: bool,
    /// Only whole words (`-w`).
    pub word: bool,
    /// Only whole lines (`-x`).
    pub line: bool,
    /// Lines end in `\r\n` or `\n` (`--crlf`): `$` matches before `\r\n`.
    pub crlf: bool,
    /// ASCII-only classes and case folding (`--no-unicode`).
    pub no_unicode: bool,
}

/// A compiled matcher. Cheap to share between threads.
#[derive(Debug, Clone)]
pub struct Matcher {
    regex: RegexMatcher,
    crlf: bool,
    /// Whole buffers may be searched at once (see [`Matcher::find_candidate`]).
    buffer_search: bool,
}

/// The compiled regex's size limit of [`Matcher::new`] (ripgrep's default).
const DEFAULT_SIZE_LIMIT: usize = 100 << 20;

impl Matcher {
    /// Compiles `patterns` (at least one).
    pub fn new(patterns: &[String], opts: &MatcherOptions) -> Result<Matcher> {
        Matcher::with_size_limit(patterns, opts, DEFAULT_SIZE_LIMIT)
    }

    /// Compiles `patterns` (at least one) into at most `size_limit` bytes
    /// (ripgrep's `--regex-size-limit`); a pattern that needs more is an
    /// [`Error::InvalidArgument`].
    pub fn with_size_limit(
        patterns: &[String],
        opts: &MatcherOptions,
        size_limit: usize,
    ) -> Result<Matcher> {
        if patterns.is_empty() {
            return Err(Error::InvalidArgument("no pattern given".into()));
        }
        let mut b = RegexMatcherBuilder::new();
        b.multi_line(true)
            .unicode(!opts.no_unicode)
            .octal(false)
            .fixed_strings(opts.fixed_strings)
            .case_insensitive(opts.case_insensitive)
            .case_smart(opts.smart_case && !opts.case_insensitive)
            .whole_line(opts.line)
            .word(opts.word)
            .line_terminator(Some(b'\n'))
            .dot_matches_new_line(false)
            .size_limit(size_limit)
            .dfa_size_limit(1000 << 20);
        if opts.crlf {
            b.crlf(true);
        }
        let regex = b.build_many(patterns).map_err(|e| {
            let msg = e.to_string();
            let one_line = msg
                .lines()
                .map(str::trim_end)
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let hint = if one_line.contains("is not allowed in a regex") {
                " (lidx searches line by line: a match cannot span lines)"
            } else {
                ""
            };
            Error::InvalidArgument(format!("invalid pattern: {one_line}{hint}"))
        })?;
        // As ripgrep's searcher decides: a regex that knows the line
        // terminator, or can never match `\n`, may run over whole buffers;
        // one with `\A` or `\z` runs line by line, where they mean the
        // start and end of each line.
        let term = if opts.crlf {
            LineTerminator::crlf()
        } else {
            LineTerminator::byte(b'\n')
        };
        let buffer_search = regex.line_terminator() == Some(term)
            || regex
                .non_matching_bytes()
                .is_some_and(|b| b.contains(b'\n'));
        Ok(Matcher {
            regex,
            crlf: opts.crlf,
            buffer_search,
        })
    }

    /// True when lines end in `\r\n` (`--crlf`): output lines that lidx
    /// terminates itself end in `\r\n` too, as in ripgrep.
    pub fn crlf(&self) -> bool {
        self.crlf
    }

    /// The line terminator written after output lines that lack one.
    pub fn line_terminator(&self) -> &'static [u8] {
        if self.crlf { b"\r\n" } else { b"\n" }
    }

    /// True when `line` (as read, terminator included) is selected by the
    /// pattern: the pattern matches the line without its terminator.
    #[inline]
    pub fn is_line_match(&self, line: &[u8]) -> bool {
        let term = self.line_terminator();
        let body = line.strip_suffix(term).unwrap_or(line);
        self.regex.is_match(body).unwrap_or(false)
    }

    /// The part of `line` that matches are searched in: the line without
    /// `\n` (and without `\r\n` under `crlf`).
    #[inline]
    pub fn content<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        match line.strip_suffix(b"\n") {
            Some(b) if self.crlf => b.strip_suffix(b"\r").unwrap_or(b),
            Some(b) => b,
            None => line,
        }
    }

    /// True when [`Matcher::find_candidate`] may skip lines: otherwise every
    /// line must be checked alone.
    #[inline]
    pub(crate) fn buffer_search(&self) -> bool {
        self.buffer_search
    }

    /// In `hay` (whole lines), the start of the first line that may match
    /// at or after `at`, or of a line that surely matches: a fast way to
    /// skip lines without matches. `Some((pos, confirmed))`: the line
    /// holding byte `pos` surely matches when `confirmed`, and otherwise
    /// must be checked with [`Matcher::is_line_match`].
    #[inline]
    pub(crate) fn find_candidate(&self, hay: &[u8], at: usize) -> Option<(usize, bool)> {
        match self.regex.find_candidate_line(&hay[at..]) {
            Ok(Some(LineMatchKind::Confirmed(i))) => Some((at + i, true)),
            Ok(Some(LineMatchKind::Candidate(i))) => Some((at + i, false)),
            _ => None,
        }
    }

    /// Calls `f(start, end)` for each match in `content` (a line without
    /// its terminator, see [`Matcher::content`]), left to right, with
    /// ripgrep's iteration rule: after a match ending at `e`, an empty
    /// match at `e` is skipped. Stops when `f` returns false.
    ///
    /// `preceded`: the line is not the first of what was searched. As in
    /// ripgrep's printers, the regex then sees the end of the line before
    /// (so `\A` does not match at the start of this one).
    pub fn for_each_match(
        &self,
        content: &[u8],
        preceded: bool,
        mut f: impl FnMut(usize, usize) -> bool,
    ) {
        let mut scratch = Vec::new();
        let (hay, at) = self.haystack(content, preceded, &mut scratch);
        let _ = self
            .regex
            .find_iter_at(hay, at, |m| f(m.start() - at, m.end() - at));
    }

    /// The haystack the printers search a line in, and where the line
    /// starts in it: the line itself, or for a regex with haystack anchors
    /// (only those can tell) a line that follows another with that line's
    /// `\n` before it.
    fn haystack<'a>(
        &self,
        content: &'a [u8],
        preceded: bool,
        scratch: &'a mut Vec<u8>,
    ) -> (&'a [u8], usize) {
        if !preceded || self.buffer_search {
            return (content, 0);
        }
        scratch.clear();
        scratch.push(b'\n');
        scratch.extend_from_slice(content);
        (&scratch[..], 1)
    }

    /// Replaces every match in `line` (as read, terminator included) with
    /// `replacement`, in which `$N`, `${N}` and `$name` stand for capture
    /// groups and `$$` for `$` (as `rg -r`); matches are found as
    /// [`Matcher::for_each_match`] finds them, and an empty match at the end
    /// of a line without terminator is left alone. Appends the result,
    /// terminator included, to `dst` and, for each match, the span its
    /// replacement occupies in `dst` to `spans`.
    pub fn replace(
        &self,
        line: &[u8],
        preceded: bool,
        replacement: &[u8],
        dst: &mut Vec<u8>,
        spans: &mut Vec<(usize, usize)>,
    ) {
        let content = self.content(line);
        let Ok(mut caps) = self.regex.new_captures() else {
            dst.extend_from_slice(line);
            return;
        };
        let mut scratch = Vec::new();
        let (hay, at) = self.haystack(content, preceded, &mut scratch);
        let regex = &self.regex;
        let mut last = at;
        let _ = regex.captures_iter_at(hay, at, &mut caps, |caps| {
            let Some(m) = caps.get(0) else {
                return false;
            };
            if m.start() - at >= line.len() {
                return false;
            }
            dst.extend_from_slice(&hay[last..m.start()]);
            last = m.end();
            let start = dst.len();
            caps.interpolate(|name| regex.capture_index(name), hay, replacement, dst);
            spans.push((start, dst.len()));
            true
        });
        dst.extend_from_slice(&hay[last.min(hay.len())..]);
        dst.extend_from_slice(&line[content.len()..]);
    }
}
