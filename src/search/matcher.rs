//! The pattern, compiled once with ripgrep's semantics (regex crate, bytes
//! mode, Unicode on): several patterns are alternatives, `-F` escapes
//! them, `-i` is Unicode simple case folding, `-x` is `^(?:…)$`, `-w` is
//! `(?:^|\W)(…)(?:$|\W)` with the inner group as the match (as ripgrep 13
//! does), and `^`/`$` match at line boundaries (`$` before `\r\n` too with
//! `crlf`).

use crate::error::{Error, Result};
use regex::bytes::{Regex, RegexBuilder};

/// How to interpret and apply the patterns.
#[derive(Debug, Clone, Default)]
pub struct MatcherOptions {
    /// Treat patterns as literal strings (`-F`).
    pub fixed_strings: bool,
    /// Case-insensitive (`-i`), Unicode simple case folding.
    pub case_insensitive: bool,
    /// Only whole words (`-w`).
    pub word: bool,
    /// Only whole lines (`-x`).
    pub line: bool,
    /// `$` also matches before `\r\n` (`--crlf`).
    pub crlf: bool,
}

/// A compiled matcher. Cheap to share between threads (`Regex` is `Sync`).
#[derive(Debug, Clone)]
pub struct Matcher {
    regex: Regex,
    /// True when the regex wraps the pattern as `(?:^|\W)(PAT)(?:$|\W)` and
    /// the match proper is capture group 1.
    word: bool,
}

impl Matcher {
    /// Compiles `patterns` (at least one).
    pub fn new(patterns: &[String], opts: &MatcherOptions) -> Result<Matcher> {
        if patterns.is_empty() {
            return Err(Error::InvalidArgument("no pattern given".into()));
        }
        let alts: Vec<String> = patterns
            .iter()
            .map(|p| {
                if opts.fixed_strings {
                    regex::escape(p)
                } else {
                    p.clone()
                }
            })
            .collect();
        let mut expr = if alts.len() == 1 {
            alts[0].clone()
        } else {
            alts.iter()
                .map(|a| format!("(?:{a})"))
                .collect::<Vec<_>>()
                .join("|")
        };
        if opts.line {
            expr = format!("^(?:{expr})$");
        } else if opts.word {
            expr = format!(r"(?:^|\W)({expr})(?:$|\W)");
        }
        let regex = RegexBuilder::new(&expr)
            .case_insensitive(opts.case_insensitive)
            .multi_line(true)
            .crlf(opts.crlf)
            .unicode(true)
            .size_limit(100 << 20)
            .dfa_size_limit(1000 << 20)
            .build()
            .map_err(|e| {
                let msg = e.to_string();
                let one_line = msg
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                Error::InvalidArgument(format!("invalid regex: {one_line}"))
            })?;
        Ok(Matcher {
            regex,
            word: opts.word && !opts.line,
        })
    }

    /// The leftmost match in `hay` starting at or after `at`, as a span of
    /// the whole regex (for `-w`, including the surrounding non-word bytes):
    /// a candidate position for the scanner.
    #[inline]
    pub fn find_candidate(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        self.regex.find_at(hay, at).map(|m| (m.start(), m.end()))
    }

    /// True when `line` (without its `\n`) matches.
    #[inline]
    pub fn is_match(&self, line: &[u8]) -> bool {
        self.regex.is_match(line)
    }

    /// Calls `f(start, end)` for each match in `line` (without its `\n`),
    /// left to right, with the regex crate's iteration rule (ripgrep's `-o`
    /// output): after a match ending at `e`, an empty match at `e` is
    /// skipped. With `-w` the match is the word itself (group 1), and the
    /// next search starts at its end, so adjacent words both match.
    pub fn for_each_match(&self, line: &[u8], mut f: impl FnMut(usize, usize) -> bool) {
        let mut at = 0;
        let mut last_end = None;
        while at <= line.len() {
            let span = if self.word {
                match self.regex.captures_at(line, at) {
                    Some(c) => {
                        let g = c.get(1).expect("group 1 always takes part");
                        (g.start(), g.end())
                    }
                    None => return,
                }
            } else {
                match self.regex.find_at(line, at) {
                    Some(m) => (m.start(), m.end()),
                    None => return,
                }
            };
            if span.0 == span.1 && last_end == Some(span.0) {
                at = span.0 + 1;
                continue;
            }
            if !f(span.0, span.1) {
                return;
            }
            last_end = Some(span.1);
            at = if span.1 > span.0 { span.1 } else { span.1 + 1 };
        }
    }
}
