//! Scanning one byte range of the source for matching lines.
//!
//! The range starts at a line start whose line number is known (from the
//! index), so line numbers stay exact without counting from the start of the
//! file. Reads are sequential `pread`s into one reused buffer; a line that
//! crosses a buffer boundary is carried to the front of the buffer (the
//! buffer grows only for a line longer than itself).
//!
//! Fast path (no `-v`, no context): the regex runs over whole buffers; at a
//! match the line's bounds are found with `memchr`, the line is reported,
//! and the search resumes at the next line — lines without a match are
//! never looked at one by one. A match that crosses a line end (a class such
//! as `\s` can match `\n`) is re-checked on its line alone, so a line
//! matches exactly when the regex matches within it. With `-v` or context
//! the scan goes line by line.

use super::matcher::Matcher;
use crate::error::Result;
use crate::io::ReadAt;
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
    /// A context line around a selected one.
    Context,
}

/// One reported line.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// Match or context.
    pub kind: Kind,
    /// 0-based line number.
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
}

/// Initial read buffer size (the buffer grows for longer lines).
pub const SCAN_BUFFER: usize = 128 * 1024;

/// Scans `chunk` of `src`; returns the number of selected lines reported.
/// `buf` is reused across calls. A line is matched whole, so the buffer
/// grows to hold the longest line of the chunk (as in grep and ripgrep);
/// once the chunk is done, a buffer grown past [`SCAN_BUFFER_KEPT`] is
/// given back, so one huge line does not pin its memory for the rest of
/// the search.
pub fn scan(
    src: &dyn ReadAt,
    chunk: Chunk,
    matcher: &Matcher,
    opts: &ScanOptions,
    buf: &mut Vec<u8>,
    sink: &mut dyn Sink,
) -> Result<u64> {
    let result = scan_chunk(src, chunk, matcher, opts, buf, sink);
    if buf.len() > SCAN_BUFFER_KEPT {
        *buf = Vec::new();
    }
    result
}

/// The largest scan buffer kept between chunks.
pub const SCAN_BUFFER_KEPT: usize = 8 * SCAN_BUFFER;

fn scan_chunk(
    src: &dyn ReadAt,
    chunk: Chunk,
    matcher: &Matcher,
    opts: &ScanOptions,
    buf: &mut Vec<u8>,
    sink: &mut dyn Sink,
) -> Result<u64> {
    if buf.len() < SCAN_BUFFER {
        buf.resize(SCAN_BUFFER, 0);
    }
    let mut st = State {
        matcher,
        opts,
        line_no: chunk.first_line,
        selected: 0,
        after_left: 0,
        ring: VecDeque::new(),
        last_reported: None,
    };
    if opts.max_count == Some(0) {
        return Ok(0);
    }
    let line_by_line = opts.invert || opts.before > 0 || opts.after > 0;
    let mut pos = chunk.start;
    let mut carry = 0usize;
    while pos < chunk.end || carry > 0 {
        if carry == buf.len() {
            let n = buf.len() * 2;
            buf.resize(n, 0);
        }
        let want = (buf.len() - carry).min((chunk.end - pos) as usize);
        let n = src.read_full_at(&mut buf[carry..carry + want], pos)?;
        if n < want {
            return Err(crate::Error::SourceChanged {
                path: src.path().to_path_buf(),
                what: "source shorter than indexed".into(),
            });
        }
        let filled = carry + n;
        let base = pos - carry as u64;
        pos += n as u64;
        let complete = if pos >= chunk.end {
            filled
        } else {
            match memchr::memrchr(b'\n', &buf[..filled]) {
                Some(i) => i + 1,
                None => {
                    carry = filled;
                    continue;
                }
            }
        };
        let region = &buf[..complete];
        let go_on = if line_by_line {
            st.lines(region, base, sink)?
        } else {
            st.fast(region, base, sink)?
        };
        if !go_on {
            return Ok(st.selected);
        }
        buf.copy_within(complete..filled, 0);
        carry = filled - complete;
    }
    Ok(st.selected)
}

struct State<'m> {
    matcher: &'m Matcher,
    opts: &'m ScanOptions,
    /// Line number of the line starting at the scan position.
    line_no: u64,
    selected: u64,
    after_left: u64,
    /// Last `before` lines not reported: (number, offset, bytes).
    ring: VecDeque<(u64, u64, Vec<u8>)>,
    last_reported: Option<u64>,
}

fn content(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

/// Reports one line to `sink`; false when the sink wants no more.
fn emit(sink: &mut dyn Sink, kind: Kind, number: u64, offset: u64, bytes: &[u8]) -> Result<bool> {
    sink.line(&Line {
        kind,
        number,
        offset,
        bytes,
    })
}

impl State<'_> {
    fn max_reached(&self) -> bool {
        self.opts.max_count.is_some_and(|m| self.selected >= m)
    }

    /// Whole-buffer search: returns false when the sink or `-m` stops us.
    fn fast(&mut self, region: &[u8], base: u64, sink: &mut dyn Sink) -> Result<bool> {
        let mut at = 0usize;
        let mut counted = 0usize;
        while at < region.len() {
            let Some((ms, me)) = self.matcher.find_candidate(region, at) else {
                break;
            };
            if ms == region.len() && region.last().is_none_or(|&b| b == b'\n') {
                // An empty match after the region's final newline: that is
                // the start of the next region's first line (or nothing at
                // the end of the range), not a line of this region.
                break;
            }
            let ls = memchr::memrchr(b'\n', &region[at..ms]).map_or(at, |i| at + i + 1);
            let le = memchr::memchr(b'\n', &region[ms..]).map_or(region.len(), |i| ms + i + 1);
            let line = &region[ls..le];
            let body = content(line);
            let inside = me <= ls + body.len();
            if inside || self.matcher.is_match(body) {
                self.line_no += memchr::memchr_iter(b'\n', &region[counted..ls]).count() as u64;
                counted = ls;
                self.selected += 1;
                if !emit(sink, Kind::Match, self.line_no, base + ls as u64, line)?
                    || self.max_reached()
                {
                    return Ok(false);
                }
            }
            at = le;
        }
        self.line_no += memchr::memchr_iter(b'\n', &region[counted..]).count() as u64;
        Ok(true)
    }

    /// Line-by-line scan for `-v` and context.
    fn lines(&mut self, region: &[u8], base: u64, sink: &mut dyn Sink) -> Result<bool> {
        let mut s = 0usize;
        while s < region.len() {
            let e = memchr::memchr(b'\n', &region[s..]).map_or(region.len(), |i| s + i + 1);
            let line = &region[s..e];
            let number = self.line_no;
            let offset = base + s as u64;
            self.line_no += 1;
            s = e;
            if self.max_reached() {
                // Past -m: only the trailing context of the last selected
                // line is reported, as context (a printer may still mark
                // the ones that would be selected, as ripgrep 13 does).
                if self.after_left == 0 {
                    return Ok(false);
                }
                self.after_left -= 1;
                if !emit(sink, Kind::Context, number, offset, line)? || self.after_left == 0 {
                    return Ok(false);
                }
                continue;
            }
            let selected = self.matcher.is_match(content(line)) != self.opts.invert;
            if selected {
                while let Some((n, o, bytes)) = self.ring.pop_front() {
                    if !emit(sink, Kind::Context, n, o, &bytes)? {
                        return Ok(false);
                    }
                }
                self.selected += 1;
                self.last_reported = Some(number);
                if !emit(sink, Kind::Match, number, offset, line)? {
                    return Ok(false);
                }
                self.after_left = self.opts.after;
                if self.max_reached() && self.after_left == 0 {
                    return Ok(false);
                }
            } else if self.after_left > 0 {
                self.after_left -= 1;
                self.last_reported = Some(number);
                if !emit(sink, Kind::Context, number, offset, line)? {
                    return Ok(false);
                }
                if self.max_reached() && self.after_left == 0 {
                    return Ok(false);
                }
            } else if self.max_reached() {
                return Ok(false);
            } else if self.opts.before > 0 {
                let mut slot = if self.ring.len() as u64 == self.opts.before {
                    self.ring.pop_front().map(|r| r.2).unwrap_or_default()
                } else {
                    Vec::new()
                };
                slot.clear();
                slot.extend_from_slice(line);
                self.ring.push_back((number, offset, slot));
            }
        }
        Ok(true)
    }
}
