//! ripgrep's standard output format, line for line: `N:line` (`-n`),
//! `N:C:` (`--column`), `N:C:B:` (`-b`), context lines with `-`, `--`
//! between non-adjacent groups, `-o` parts and `--vimgrep` lines one per
//! match, `-r` replacements, `--trim`, `-M` long-line elision, and ANSI
//! colours with ripgrep's default colour specs and escape sequences.
//!
//! One printer renders one chunk into a byte buffer (see
//! `lidx::search::parallel`); the context printer renders a whole search.

use super::colors::Colors;
use super::{LineFacts, Rendered, Spans, trim_ascii_prefix};
use lidx::search::parallel::{ChunkOutput, Render};
use lidx::search::{Kind, Line, Matcher, Sink};
use std::sync::Arc;

/// How to print (the flags of the standard format).
#[derive(Debug, Clone, Default)]
pub struct StandardOptions {
    /// Prefix each line with this path (several files, no heading).
    pub path: Option<Vec<u8>>,
    /// Follow the path with a NUL byte instead of the separator (`-0`).
    pub null: bool,
    /// Prefix line numbers (1-based).
    pub line_number: bool,
    /// Prefix the 1-based column of the first match (`--column`).
    pub column: bool,
    /// Prefix the 0-based byte offset of the line (of each part with `-o`).
    pub byte_offset: bool,
    /// Print only the matched parts, one per line (`-o`).
    pub only_matching: bool,
    /// One line per match (`--vimgrep`).
    pub per_match: bool,
    /// Replace every match with this (`-r`).
    pub replacement: Option<Vec<u8>>,
    /// Elide lines longer than this many bytes (`-M`).
    pub max_columns: Option<u64>,
    /// With `max_columns`: print the first columns, then a note.
    pub max_columns_preview: bool,
    /// Trim leading ASCII whitespace (`--trim`).
    pub trim: bool,
    /// Colours (`None`: no colour).
    pub colors: Option<Colors>,
    /// Context is on: print the separator between non-adjacent groups.
    pub context: bool,
    /// The separator between groups (`--context-separator`).
    pub separator_context: Option<Vec<u8>>,
    /// After fields of a selected line (`--field-match-separator`).
    pub separator_match: Vec<u8>,
    /// After fields of a context line (`--field-context-separator`).
    pub separator_context_field: Vec<u8>,
    /// Lines are selected when they do not match (`-v`).
    pub invert: bool,
    /// Count the matches in selected lines (`--stats`): they are then
    /// found in every selected line, as ripgrep's printer finds them (an
    /// elided long line then says how many it had).
    pub count_matches: bool,
}

/// Renders lines in ripgrep's standard format into a buffer.
pub struct Standard {
    opts: Arc<StandardOptions>,
    facts: Arc<LineFacts>,
    matcher: Arc<Matcher>,
    done: Rendered,
    /// Last printed line number, to place the separator.
    last: Option<u64>,
    spans: Spans,
    in_color: bool,
}

impl Standard {
    /// A printer for one chunk (or a whole sequential search).
    pub fn new(
        opts: Arc<StandardOptions>,
        facts: Arc<LineFacts>,
        matcher: Arc<Matcher>,
    ) -> Standard {
        Standard {
            opts,
            facts,
            matcher,
            done: Rendered::default(),
            last: None,
            spans: Spans::default(),
            in_color: false,
        }
    }

    /// Writes what was rendered so far and forgets it (a merged search
    /// prints each line as it comes).
    pub fn drain(&mut self, out: &mut impl std::io::Write) -> std::io::Result<u64> {
        out.write_all(&self.done.out)?;
        let n = self.done.out.len() as u64;
        self.done.out.clear();
        self.done.ends.clear();
        Ok(n)
    }

    /// Matches are printed in colour (colours are on, the match's spec is
    /// not empty).
    fn colors_matches(&self) -> bool {
        self.opts
            .colors
            .as_ref()
            .is_some_and(|c| c.matched.is_some())
    }

    /// As ripgrep: match positions are needed for colours, columns,
    /// replacements, `-o` and `--vimgrep`.
    fn needs_matches(&self) -> bool {
        let o = &self.opts;
        self.colors_matches()
            || o.column
            || o.replacement.is_some()
            || o.per_match
            || o.only_matching
    }

    fn term(&self) -> &'static [u8] {
        self.matcher.line_terminator()
    }

    fn render(&mut self, l: &Line<'_>) {
        if self.opts.context
            && let Some(last) = self.last
            && l.number > last + 1
            && let Some(sep) = &self.opts.separator_context
        {
            self.done.out.extend_from_slice(sep);
            self.done.out.extend_from_slice(self.term());
        }
        self.last = Some(l.number);
        let is_context = l.kind == Kind::Context;
        let want = if is_context {
            self.opts.invert && self.needs_matches()
        } else {
            self.needs_matches() || self.opts.count_matches
        };
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        if want {
            spans.find(&self.matcher, &self.facts, l);
            if let Some(r) = &self.opts.replacement {
                spans.replace(&self.matcher, &self.facts, l, r);
            }
        }
        if !is_context {
            self.done.matches += spans.original.len() as u64;
        }
        let (bytes, matches) = spans.sunk(l.bytes);
        let offset = self.facts.offset(l.offset);
        let number = self.facts.number(l.number);
        if matches.is_empty() {
            self.prelude(offset, number, None, is_context);
            self.write_line(bytes, &[], matches_original(&spans), is_context);
        } else if self.opts.only_matching {
            for &(s, e) in matches {
                self.prelude(offset + s as u64, number, Some(s as u64 + 1), is_context);
                let part = &bytes[s..e];
                self.colored_line(
                    &[(0, part.len())],
                    part,
                    matches_original(&spans),
                    is_context,
                );
            }
        } else if self.opts.per_match {
            for &m in matches {
                self.prelude(
                    offset + m.0 as u64,
                    number,
                    Some(m.0 as u64 + 1),
                    is_context,
                );
                self.colored_line(&[m], bytes, matches_original(&spans), is_context);
            }
        } else {
            let first = matches[0].0 as u64 + 1;
            self.prelude(offset, number, Some(first), is_context);
            self.colored_line(matches, bytes, matches_original(&spans), is_context);
        }
        self.spans = spans;
    }

    fn prelude(&mut self, offset: u64, number: u64, column: Option<u64>, is_context: bool) {
        let sep = if is_context {
            &self.opts.separator_context_field
        } else {
            &self.opts.separator_match
        };
        let colors = self.opts.colors.as_ref();
        if let Some(p) = &self.opts.path {
            spec(&mut self.done.out, colors.map(|c| &c.path[..]), p);
            if self.opts.null {
                self.done.out.push(0);
            } else {
                self.done.out.extend_from_slice(sep);
            }
        }
        if self.opts.line_number {
            spec(
                &mut self.done.out,
                colors.map(|c| &c.line[..]),
                number.to_string().as_bytes(),
            );
            self.done.out.extend_from_slice(sep);
        }
        if self.opts.column
            && let Some(c) = column
        {
            spec(
                &mut self.done.out,
                colors.map(|c| &c.column[..]),
                c.to_string().as_bytes(),
            );
            self.done.out.extend_from_slice(sep);
        }
        if self.opts.byte_offset {
            spec(
                &mut self.done.out,
                colors.map(|c| &c.column[..]),
                offset.to_string().as_bytes(),
            );
            self.done.out.extend_from_slice(sep);
        }
    }

    fn exceeds(&self, line: &[u8]) -> bool {
        self.opts.max_columns.is_some_and(|m| line.len() as u64 > m)
    }

    /// A line without colour (or with no match to colour).
    fn write_line(&mut self, line: &[u8], matches: &[(usize, usize)], original: usize, ctx: bool) {
        let line = if self.opts.trim {
            &line[trim_ascii_prefix(line, 0, line.len(), self.matcher.crlf())..]
        } else {
            line
        };
        if self.exceeds(line) {
            self.exceeded_line(line, (0, line.len()), matches, &mut 0, original, ctx);
        } else {
            self.done.out.extend_from_slice(line);
            if line.last() != Some(&b'\n') {
                self.done.out.extend_from_slice(self.term());
            }
        }
    }

    fn colored_line(
        &mut self,
        matches: &[(usize, usize)],
        bytes: &[u8],
        original: usize,
        ctx: bool,
    ) {
        if !self.colors_matches() {
            return self.write_line(bytes, matches, original, ctx);
        }
        let mut line = (0, bytes.len());
        if self.opts.trim {
            line.0 = trim_ascii_prefix(bytes, line.0, line.1, self.matcher.crlf());
        }
        if self.exceeds(bytes) {
            self.exceeded_line(bytes, line, matches, &mut 0, original, ctx);
        } else {
            self.colored_matches(bytes, line, matches, &mut 0);
            self.done.out.extend_from_slice(self.term());
        }
    }

    /// Writes `bytes[line]` (without its terminator) with the matches in
    /// colour.
    fn colored_matches(
        &mut self,
        bytes: &[u8],
        mut line: (usize, usize),
        matches: &[(usize, usize)],
        idx: &mut usize,
    ) {
        line.1 = content_end(bytes, line, self.matcher.crlf());
        if matches.is_empty() {
            self.done.out.extend_from_slice(&bytes[line.0..line.1]);
            return;
        }
        while line.0 < line.1 {
            if matches[*idx].1 <= line.0 {
                if *idx + 1 < matches.len() {
                    *idx += 1;
                    continue;
                }
                self.end_color();
                self.done.out.extend_from_slice(&bytes[line.0..line.1]);
                break;
            }
            let m = matches[*idx];
            if line.0 < m.0 {
                let upto = line.1.min(m.0);
                self.end_color();
                self.done.out.extend_from_slice(&bytes[line.0..upto]);
                line.0 = upto;
            } else {
                let upto = line.1.min(m.1);
                self.start_color();
                self.done.out.extend_from_slice(&bytes[line.0..upto]);
                line.0 = upto;
            }
        }
        self.end_color();
    }

    fn start_color(&mut self) {
        if !self.in_color
            && let Some(m) = self.opts.colors.as_ref().and_then(|c| c.matched.as_ref())
        {
            self.done.out.extend_from_slice(m);
            self.in_color = true;
        }
    }

    fn end_color(&mut self) {
        if self.in_color {
            self.done.out.extend_from_slice(super::RESET);
            self.in_color = false;
        }
    }

    /// A line longer than `-M`: a preview of its first columns with a note,
    /// or a note alone.
    fn exceeded_line(
        &mut self,
        bytes: &[u8],
        mut line: (usize, usize),
        matches: &[(usize, usize)],
        idx: &mut usize,
        original: usize,
        ctx: bool,
    ) {
        if self.opts.max_columns_preview {
            use bstr::ByteSlice;
            let original_line = line;
            let limit = self.opts.max_columns.unwrap_or(0) as usize;
            let end = bytes[line.0..line.1]
                .grapheme_indices()
                .map(|(_, end, _)| end)
                .take(limit)
                .last()
                .unwrap_or(0)
                + line.0;
            line.1 = end;
            self.colored_matches(bytes, line, matches, idx);
            if matches.is_empty() {
                self.done
                    .out
                    .extend_from_slice(b" [... omitted end of long line]");
            } else {
                let remaining = matches
                    .iter()
                    .filter(|m| m.0 >= line.1 && m.0 < original_line.1)
                    .count();
                let tense = if remaining == 1 { "match" } else { "matches" };
                self.done
                    .out
                    .extend_from_slice(format!(" [... {remaining} more {tense}]").as_bytes());
            }
            self.done.out.extend_from_slice(self.term());
            return;
        }
        let note = if original == 0 || self.opts.only_matching {
            if ctx {
                "[Omitted long context line]".to_string()
            } else {
                "[Omitted long matching line]".to_string()
            }
        } else {
            format!("[Omitted long line with {original} matches]")
        };
        self.done.out.extend_from_slice(note.as_bytes());
        self.done.out.extend_from_slice(self.term());
    }
}

/// How many matches the pattern found in the line (before replacement).
fn matches_original(spans: &Spans) -> usize {
    spans.original.len()
}

/// Where the content of `bytes[line]` ends: before its `\n` (and the `\r`
/// before it under `crlf`).
fn content_end(bytes: &[u8], line: (usize, usize), crlf: bool) -> usize {
    let mut end = line.1;
    if end > line.0 && bytes[end - 1] == b'\n' {
        end -= 1;
        if crlf && end > 0 && bytes[end - 1] == b'\r' {
            end -= 1;
        }
    }
    end.max(line.0)
}

/// Writes `text` in colour `spec` (then a reset), or plain.
pub fn spec(out: &mut Vec<u8>, spec: Option<&[u8]>, text: &[u8]) {
    match spec {
        Some(s) => {
            out.extend_from_slice(s);
            out.extend_from_slice(text);
            out.extend_from_slice(super::RESET);
        }
        None => out.extend_from_slice(text),
    }
}

impl Sink for Standard {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.render(l);
        self.done.rendered(l.kind);
        Ok(true)
    }
}

impl Render for Standard {
    fn finish(self) -> ChunkOutput {
        self.done.finish()
    }
}
