//! Scanning byte ranges of the source for selected lines, with ripgrep's
//! searcher semantics (selection, `-v`, context, `-m`, `--passthru`).
//!
//! A range starts at a line start whose line number is known (from the
//! index), so line numbers stay exact without counting from the start of the
//! file. Reads are sequential `pread`s into one reused buffer; a line that
//! crosses a buffer boundary is carried to the front of the buffer (the
//! buffer grows only for a line longer than itself).
//!
//! One [`Search`] carries its state (selected count, pending context) from
//! range to range, so a search over several ranges behaves as one search
//! (used for context, which crosses ranges); a parallel search gives every
//! range a fresh `Search`.
//!
//! Where nothing needs lines one by one (no `-v`, no pending context, no
//! `--passthru`), the matcher runs over whole buffers and lines without a
//! match are never looked at one by one.
//!
//! The rules, as ripgrep's searcher applies them:
//! - a line is selected when the pattern matches it (without its
//!   terminator), or with `invert` when it does not;
//! - `before` context: the unreported lines just before a selected line;
//!   `after` context: the lines after a selected line, until the next one;
//! - `max_count`: after that many selected lines, only the after context of
//!   the last one is reported, and a line in it that would be selected is
//!   reported as selected (it does not extend the context or count);
//! - `passthru`: every line is reported, unselected ones as context; with
//!   `max_count`, lines past the limit are context (with `invert`: selected).

use super::matcher::Matcher;
use crate::error::Result;
use crate::io::{READ_ALIGN, ReadAt, aligned_start};
use std::collections::VecDeque;

/// A byte range of whole lines: `start` is a line start, `end` is a line
/// start or the end of the source, and `first_line` is the 0-based number
/// of the line at `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Offset of the first byte.
    pub start: u64,
    /// Offset just past the last byte.
    pub end: u64,
    /// 0-based line number of the line starting at `start`.
    pub first_line: u64,
}

/// What the scan reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A selected line (a match, or with `invert` a non-matching line).
    Match,
    /// A context line around a selected one (or, with `passthru`, any
    /// line not selected).
    Context,
}

/// One reported line.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// Match or context.
    pub kind: Kind,
    /// 0-based line number (not the line's when
    /// [`ScanOptions::skip_line_numbers`] is set).
    pub number: u64,
    /// Byte offset of the line's start.
    pub offset: u64,
    /// The line's bytes, `\n` included when present.
    pub bytes: &'a [u8],
}

/// Receives lines in file order (a push model, like ripgrep's sink: the
/// scanner owns the buffer, the sink sees borrowed lines).
pub trait Sink {
    /// Handles one line; returns `false` to stop the scan.
    fn line(&mut self, line: &Line<'_>) -> Result<bool>;
}

/// Scan parameters beyond the pattern.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScanOptions {
    /// Select non-matching lines (`-v`).
    pub invert: bool,
    /// Context lines before each selected line (`-B`).
    pub before: u64,
    /// Context lines after each selected line (`-A`).
    pub after: u64,
    /// Stop after this many selected lines (`-m`).
    pub max_count: Option<u64>,
    /// Report every line, unselected ones as context (`--passthru`).
    pub passthru: bool,
    /// Nothing needs the lines' numbers (a count, a file name, output
    /// without `-n`): the scan does not count the lines it skips between
    /// candidate matches, and [`Line::number`] is then not the line's
    /// number. Scans with context, `invert` or `passthru` count anyway.
    pub skip_line_numbers: bool,
}

/// Initial read buffer size (the buffer grows for longer lines).
pub const SCAN_BUFFER: usize = 128 * 1024;

/// The largest scan buffer kept between chunks.
pub const SCAN_BUFFER_KEPT: usize = 8 * SCAN_BUFFER;

/// Scans `chunk` of `src` as one whole search; returns the number of
/// selected lines reported. `buf` is reused across calls (see
/// [`Search::scan`]).
pub fn scan(
    src: &dyn ReadAt,
    chunk: Chunk,
    matcher: &Matcher,
    opts: &ScanOptions,
    buf: &mut Vec<u8>,
    sink: &mut dyn Sink,
) -> Result<u64> {
    let mut s = Search::new(matcher, *opts);
    s.scan(src, chunk, buf, sink)?;
    Ok(s.selected())
}

/// A line read but not reported yet: a candidate for before context.
struct Pending {
    number: u64,
    offset: u64,
    bytes: Vec<u8>,
}

/// One search, possibly over several chunks in file order.
pub struct Search<'m> {
    matcher: &'m Matcher,
    opts: ScanOptions,
    /// Selected lines so far (what `max_count` limits).
    count: u64,
    /// Lines selected or reported as selected (what a printer counts).
    reported: u64,
    after_left: u64,
    /// Unreported lines of earlier buffers (at most `before`), for the
    /// before context of a selected line early in the next buffer.
    ring: VecDeque<Pending>,
    /// The number of the line after the last one scanned (to notice a gap
    /// between chunks).
    next_line: Option<u64>,
    done: bool,
    /// Bytes searched, as ripgrep counts them (see [`Search::bytes_searched`]).
    searched: u64,
    /// Where the current chunk's search stands, as ripgrep counts it.
    pos: u64,
    /// With `invert`: the position waits for the next matching line.
    pos_waits_for_match: bool,
    /// Read on after the limit to place `pos` exactly (invert, no context).
    exact_pos: bool,
}

impl<'m> Search<'m> {
    /// A new search.
    pub fn new(matcher: &'m Matcher, opts: ScanOptions) -> Search<'m> {
        Search {
            matcher,
            opts,
            count: 0,
            reported: 0,
            after_left: 0,
            ring: VecDeque::new(),
            next_line: None,
            done: opts.max_count == Some(0),
            searched: 0,
            pos: 0,
            pos_waits_for_match: false,
            exact_pos: false,
        }
    }

    /// Makes [`Search::bytes_searched`] exact where ripgrep's count depends
    /// on the line after the point where `-v -m` stops: the search then
    /// reads on to the next matching line (without reporting anything).
    pub fn exact_bytes_searched(&mut self, yes: bool) {
        self.exact_pos = yes;
    }

    /// Lines reported as selected ([`Kind::Match`]) so far.
    pub fn selected(&self) -> u64 {
        self.reported
    }

    /// True once the search has stopped (`max_count` and its context done,
    /// or a sink asked to stop): later chunks are not read.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Bytes searched, as ripgrep's statistics count them: every chunk
    /// read to its end, and where the search stopped, up to the end of the
    /// last line reported as selected (with `-v`, of the first matching
    /// line after the last selected one).
    pub fn bytes_searched(&self) -> u64 {
        self.searched
    }

    fn exceeded(&self) -> bool {
        self.opts.max_count.is_some_and(|m| self.count >= m)
    }

    /// Scans `chunk` of `src`, continuing this search. `buf` is reused
    /// across calls. A line is matched whole, so the buffer grows to hold
    /// the longest line of the chunk (as in grep and ripgrep); once the
    /// chunk is done, a buffer grown past [`SCAN_BUFFER_KEPT`] is given
    /// back, so one huge line does not pin its memory for the rest of the
    /// search.
    pub fn scan(
        &mut self,
        src: &dyn ReadAt,
        chunk: Chunk,
        buf: &mut Vec<u8>,
        sink: &mut dyn Sink,
    ) -> Result<()> {
        let result = self.scan_chunk(src, chunk, buf, sink);
        if buf.len() > SCAN_BUFFER_KEPT {
            *buf = Vec::new();
        }
        result
    }

    fn scan_chunk(
        &mut self,
        src: &dyn ReadAt,
        chunk: Chunk,
        buf: &mut Vec<u8>,
        sink: &mut dyn Sink,
    ) -> Result<()> {
        if self.done || chunk.start >= chunk.end {
            return Ok(());
        }
        if self.next_line != Some(chunk.first_line) {
            // Not adjacent to what came before: no context crosses the gap.
            self.after_left = 0;
            self.ring.clear();
        }
        if buf.len() < SCAN_BUFFER + READ_ALIGN {
            buf.resize(SCAN_BUFFER + READ_ALIGN, 0);
        }
        self.pos = chunk.start;
        self.pos_waits_for_match = false;
        let mut line_no = chunk.first_line;
        let mut at = chunk.start;
        let mut carry = 0usize;
        // The carried bytes start at `buf[lead]`, placed so that the next
        // read lands on a 64-byte boundary (see `io::aligned_start`).
        let mut lead = 0usize;
        let mut stopped = false;
        while at < chunk.end || carry > 0 {
            if carry + 2 * READ_ALIGN >= buf.len() {
                let n = buf.len() * 2;
                buf.resize(n, 0);
            }
            let to = aligned_start(buf, carry);
            buf.copy_within(lead..lead + carry, to);
            lead = to;
            let room = buf.len() - lead - carry;
            let want = room.min((chunk.end - at) as usize);
            let n = src.read_full_at(&mut buf[lead + carry..lead + carry + want], at)?;
            if n < want {
                return Err(crate::Error::SourceChanged {
                    path: src.path().to_path_buf(),
                    what: "source shorter than indexed".into(),
                });
            }
            let filled = carry + n;
            let base = at - carry as u64;
            at += n as u64;
            let data = &buf[lead..lead + filled];
            let complete = if at >= chunk.end {
                filled
            } else {
                match memchr::memrchr(b'\n', data) {
                    Some(i) => i + 1,
                    None => {
                        carry = filled;
                        continue;
                    }
                }
            };
            let mut r = Region {
                bytes: &data[..complete],
                base,
                line_no,
            };
            if !self.region(&mut r, sink)? {
                stopped = true;
                line_no = r.line_no;
                break;
            }
            line_no = r.line_no;
            lead += complete;
            carry = filled - complete;
        }
        // Uncounted lines leave the number unknown: no context follows
        // into the next chunk (there is none to follow).
        let counted = !self.opts.skip_line_numbers || self.opts.before > 0 || self.opts.after > 0;
        self.next_line = counted.then_some(line_no);
        if stopped {
            self.done = true;
            if self.pos_waits_for_match {
                self.pos = chunk.end;
            }
        } else {
            self.pos = chunk.end;
        }
        self.searched += self.pos - chunk.start;
        Ok(())
    }

    /// Handles one region of whole lines; false when the search stops.
    fn region(&mut self, r: &mut Region<'_>, sink: &mut dyn Sink) -> Result<bool> {
        let bytes = r.bytes;
        // Lines from `unreported` on have not been reported (before
        // context candidates, with `ring` for earlier regions).
        let mut unreported = 0usize;
        let mut at = 0usize;
        let fast = !self.opts.invert && !self.opts.passthru && self.matcher.buffer_search();
        // Counting the lines skipped is the one cost of the fast path
        // beyond the matcher's; without context nothing else needs it.
        let numbered = !self.opts.skip_line_numbers || self.opts.before > 0 || self.opts.after > 0;
        while at < bytes.len() {
            let mut known = None;
            if fast && self.after_left == 0 && !self.exceeded() {
                // Skip to the next line that may match.
                let Some((p, confirmed)) = self.matcher.find_candidate(bytes, at) else {
                    if numbered {
                        r.line_no += count_lines(&bytes[at..]);
                    }
                    break;
                };
                if p >= bytes.len() && bytes.last().is_none_or(|&b| b == b'\n') {
                    // Past the last line (an empty match after the final
                    // newline): nothing in this region.
                    if numbered {
                        r.line_no += count_lines(&bytes[at..]);
                    }
                    break;
                }
                let ls = memchr::memrchr(b'\n', &bytes[at..p.min(bytes.len())])
                    .map_or(at, |i| at + i + 1);
                let le = line_end(bytes, ls);
                if numbered {
                    r.line_no += count_lines(&bytes[at..ls]);
                }
                at = ls;
                if !confirmed && !self.matcher.is_line_match(&bytes[ls..le]) {
                    r.line_no += 1;
                    at = le;
                    continue;
                }
                known = Some(true);
            }
            let le = line_end(bytes, at);
            let number = r.line_no;
            r.line_no += 1;
            let line = &bytes[at..le];
            let offset = r.base + at as u64;
            let start = at;
            at = le;
            let gap = &bytes[unreported..start];
            match self.one_line(line, known, number, offset, gap, r, sink)? {
                Step::Reported => unreported = le,
                Step::Unreported => {}
                Step::Stop => return Ok(false),
            }
        }
        if self.opts.before > 0 {
            self.keep_pending(&bytes[unreported..], r);
        }
        Ok(true)
    }

    /// Applies the rules to one line (`matched`: whether the pattern
    /// matches it, when already known). `gap` holds the unreported lines of
    /// this region just before it (before-context candidates).
    #[allow(clippy::too_many_arguments)]
    fn one_line(
        &mut self,
        line: &[u8],
        matched: Option<bool>,
        number: u64,
        offset: u64,
        gap: &[u8],
        r: &Region<'_>,
        sink: &mut dyn Sink,
    ) -> Result<Step> {
        let end = offset + line.len() as u64;
        let exceeded = self.exceeded();
        if self.opts.passthru {
            let matched = !exceeded && self.matcher.is_line_match(line);
            self.pos = end;
            if matched != self.opts.invert {
                self.count += 1;
                if !self.before_context(gap, number, r, sink)? {
                    return Ok(Step::Stop);
                }
                self.after_left = self.opts.after;
                return self.report(Kind::Match, line, number, offset, sink);
            }
            if self.after_left > 0 {
                self.after_left -= 1;
            }
            return self.report(Kind::Context, line, number, offset, sink);
        }
        let matched = matched.unwrap_or_else(|| self.matcher.is_line_match(line));
        let selected = matched != self.opts.invert;
        if exceeded {
            // The after context of the last selected line; past it, stop
            // (but see `exact_pos`).
            if self.after_left == 0 {
                if self.pos_waits_for_match && !selected {
                    self.pos = end;
                    self.pos_waits_for_match = false;
                }
                return Ok(if self.pos_waits_for_match {
                    Step::Unreported
                } else {
                    Step::Stop
                });
            }
            self.after_left -= 1;
            let kind = if selected {
                self.pos = end;
                self.pos_waits_for_match = false;
                Kind::Match
            } else {
                if self.pos_waits_for_match {
                    self.pos = end;
                    self.pos_waits_for_match = false;
                }
                Kind::Context
            };
            let step = self.report(kind, line, number, offset, sink)?;
            if self.after_left == 0 && !self.pos_waits_for_match {
                return Ok(Step::Stop);
            }
            return Ok(step);
        }
        if selected {
            self.count += 1;
            if !self.before_context(gap, number, r, sink)? {
                return Ok(Step::Stop);
            }
            if self.opts.invert {
                self.pos_waits_for_match = true;
            } else {
                self.pos = end;
            }
            self.after_left = self.opts.after;
            let step = self.report(Kind::Match, line, number, offset, sink)?;
            if self.exceeded() && self.after_left == 0 {
                if self.opts.invert && self.exact_pos {
                    // Read on to the next matching line (ripgrep's position).
                    return Ok(step);
                }
                return Ok(Step::Stop);
            }
            return Ok(step);
        }
        if self.opts.invert && self.pos_waits_for_match {
            self.pos = end;
            self.pos_waits_for_match = false;
        }
        if self.after_left > 0 {
            self.after_left -= 1;
            return self.report(Kind::Context, line, number, offset, sink);
        }
        Ok(Step::Unreported)
    }

    /// Reports one line; clears the pending before-context lines.
    fn report(
        &mut self,
        kind: Kind,
        bytes: &[u8],
        number: u64,
        offset: u64,
        sink: &mut dyn Sink,
    ) -> Result<Step> {
        self.ring.clear();
        if kind == Kind::Match {
            self.reported += 1;
        }
        let go_on = sink.line(&Line {
            kind,
            number,
            offset,
            bytes,
        })?;
        Ok(if go_on { Step::Reported } else { Step::Stop })
    }

    /// Reports up to `before` unreported lines just before line `number`:
    /// from `gap` (this region) and, if it holds fewer, from the ring.
    fn before_context(
        &mut self,
        gap: &[u8],
        number: u64,
        r: &Region<'_>,
        sink: &mut dyn Sink,
    ) -> Result<bool> {
        let want = self.opts.before as usize;
        if want == 0 {
            return Ok(true);
        }
        let starts = last_line_starts(gap, want);
        let from_ring = want - starts.len();
        let skip = self.ring.len().saturating_sub(from_ring);
        let ring: Vec<Pending> = self.ring.drain(..).skip(skip).collect();
        for p in &ring {
            if self.report(Kind::Context, &p.bytes, p.number, p.offset, sink)? == Step::Stop {
                return Ok(false);
            }
        }
        let gap_start = gap.as_ptr() as usize - r.bytes.as_ptr() as usize;
        let first = number - starts.len() as u64;
        for (i, &s) in starts.iter().enumerate() {
            let e = line_end(gap, s);
            let offset = r.base + (gap_start + s) as u64;
            if self.report(Kind::Context, &gap[s..e], first + i as u64, offset, sink)? == Step::Stop
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// At the end of a region: keeps its last unreported lines (at most
    /// `before`) for a selected line early in the next region.
    fn keep_pending(&mut self, tail: &[u8], r: &Region<'_>) {
        let want = self.opts.before as usize;
        let starts = last_line_starts(tail, want);
        if starts.is_empty() {
            return;
        }
        let tail_start = tail.as_ptr() as usize - r.bytes.as_ptr() as usize;
        let first = r.line_no - starts.len() as u64;
        for (i, &s) in starts.iter().enumerate() {
            if self.ring.len() == want {
                self.ring.pop_front();
            }
            let e = line_end(tail, s);
            self.ring.push_back(Pending {
                number: first + i as u64,
                offset: r.base + (tail_start + s) as u64,
                bytes: tail[s..e].to_vec(),
            });
        }
    }
}

/// Whole lines being scanned: `bytes` starts at source offset `base`, and
/// `line_no` counts lines as the scan advances.
struct Region<'a> {
    bytes: &'a [u8],
    base: u64,
    line_no: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Reported,
    Unreported,
    Stop,
}

/// The end of the line starting at `start` (past its `\n`, if any).
fn line_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1)
}

/// Lines in `bytes` (a final line without `\n` counts).
fn count_lines(bytes: &[u8]) -> u64 {
    let n = memchr::memchr_iter(b'\n', bytes).count() as u64;
    n + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// The starts of the last `n` lines of `bytes` (whole lines), in order.
fn last_line_starts(bytes: &[u8], n: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut end = bytes.len();
    while starts.len() < n && end > 0 {
        let s = memchr::memrchr(b'\n', &bytes[..end - 1]).map_or(0, |i| i + 1);
        starts.push(s);
        end = s;
    }
    starts.reverse();
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_lines() {
        assert_eq!(last_line_starts(b"a\nbb\nc\n", 2), [2, 5]);
        assert_eq!(last_line_starts(b"a\nbb\nc\n", 5), [0, 2, 5]);
        assert_eq!(last_line_starts(b"a\nb", 1), [2]);
        assert_eq!(last_line_starts(b"", 3), Vec::<usize>::new());
        assert_eq!(last_line_starts(b"\n\n", 3), [0, 1]);
    }

    #[test]
    fn lines_counted() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
    }
}
