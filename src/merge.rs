//! Several logs read as one, merged by time: a k-way merge of their lines
//! in time order, driven by each log's time index (every line's time is
//! its stamp's, or the last stamp's before it, so a stack trace stays with
//! its record). Ties keep the order of the inputs, then of the lines, so
//! the merge is stable and deterministic; lines before a log's first
//! stamp (no time) come first. Each input is a file's index or a rotation
//! family's members, each part with the base its line numbers start from.
//! A log whose times are not in order is still read in its own order: the
//! merge interleaves, it never sorts a log.
//!
//! Memory is a batch of lines per input (at most [`BATCH_LINES`] lines or
//! about [`BATCH_BYTES`] of text), whatever the logs' size.

use crate::error::Result;
use crate::index::{Index, LineBuf};
use crate::time::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

/// Lines read at a time from one input.
pub const BATCH_LINES: u64 = 4096;
/// Text read at a time from one input, about (a batch ends at the line
/// that crosses it, and holds at least one line).
pub const BATCH_BYTES: u64 = 1 << 20;

/// A part of an input: lines of one index.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// The index.
    pub index: &'a Index,
    /// Added to the index's line numbers (a family member's base line).
    pub base: u64,
    /// Added to the index's byte offsets (a family member's base byte).
    pub byte_base: u64,
    /// The lines to read, 0-based in the index.
    pub lines: Range<u64>,
}

/// One log of the merge: its parts in order.
#[derive(Debug, Clone, Default)]
pub struct Input<'a> {
    /// The parts, oldest first.
    pub parts: Vec<Part<'a>>,
}

/// A line of the merged view.
#[derive(Debug)]
pub struct MergedLine<'b> {
    /// Which input it comes from (its position in the inputs).
    pub input: usize,
    /// Its number in that input (0-based; a family's global number).
    pub line: u64,
    /// Its byte offset in that input (a family's global offset).
    pub offset: u64,
    /// Its time, `None` before the input's first stamp.
    pub time: Option<Nanos>,
    /// Its bytes, `\n` included when it has one.
    pub bytes: &'b [u8],
}

/// Where an input's reading is.
struct Cursor<'a> {
    parts: std::vec::IntoIter<Part<'a>>,
    part: Option<Part<'a>>,
    /// Next line of `part` to batch (0-based in its index).
    next: u64,
    buf: LineBuf,
    times: Vec<Option<Nanos>>,
    /// Position in the batch.
    at: usize,
    /// Times are read (a merge); else every time is `None`.
    timed: bool,
}

impl<'a> Cursor<'a> {
    fn new(input: &Input<'a>, timed: bool) -> Cursor<'a> {
        let mut parts = input.parts.clone().into_iter();
        let part = parts.next();
        let next = part.as_ref().map_or(0, |p| p.lines.start);
        Cursor {
            parts,
            part,
            next,
            buf: LineBuf::new(),
            times: Vec::new(),
            at: 0,
            timed,
        }
    }

    /// Makes the current line available; false at the end of the input.
    fn fill(&mut self) -> Result<bool> {
        while self.at >= self.buf.len() {
            let Some(part) = &self.part else {
                return Ok(false);
            };
            let end = part.lines.end.min(part.index.line_count());
            if self.next >= end {
                self.part = self.parts.next();
                self.next = self.part.as_ref().map_or(0, |p| p.lines.start);
                continue;
            }
            // Up to BATCH_LINES lines, fewer when they are long.
            let mut to = end.min(self.next + BATCH_LINES);
            let start = part.index.line_start(self.next)?;
            while to > self.next + 1 && part.index.line_end(to - 1)? - start > BATCH_BYTES {
                to = self.next + (to - self.next) / 2;
            }
            part.index.read_lines(self.next..to, &mut self.buf)?;
            self.times.clear();
            if self.timed {
                part.index.line_times(self.next..to, &mut self.times)?;
            } else {
                self.times.resize((to - self.next) as usize, None);
            }
            self.next = to;
            self.at = 0;
        }
        Ok(true)
    }

    fn time(&self) -> Option<Nanos> {
        self.times[self.at]
    }

    fn line(&self) -> u64 {
        let base = self.part.as_ref().map_or(0, |p| p.base);
        base + self.buf.first_line() + self.at as u64
    }

    fn offset(&self) -> u64 {
        let base = self.part.as_ref().map_or(0, |p| p.byte_base);
        base + self.buf.line_offset(self.at)
    }

    /// The current line, as given to the caller.
    fn current(&self, input: usize) -> MergedLine<'_> {
        MergedLine {
            input,
            line: self.line(),
            offset: self.offset(),
            time: self.time(),
            bytes: self.buf.line_with_terminator(self.at),
        }
    }
}

/// Calls `f` with every line of `inputs` in time order (module doc) until
/// it returns false; returns the lines given to it.
pub fn merge_by_time(
    inputs: &[Input<'_>],
    f: &mut dyn FnMut(&MergedLine<'_>) -> Result<bool>,
) -> Result<u64> {
    let mut cursors: Vec<Cursor<'_>> = inputs.iter().map(|i| Cursor::new(i, true)).collect();
    // (time, input): the smallest first; None (no stamp yet) before all.
    let key = |t: Option<Nanos>| t.map_or(i128::MIN, i128::from);
    let mut heap = BinaryHeap::new();
    for (i, c) in cursors.iter_mut().enumerate() {
        if c.fill()? {
            heap.push(Reverse((key(c.time()), i)));
        }
    }
    let mut given = 0;
    while let Some(Reverse((_, i))) = heap.pop() {
        let c = &mut cursors[i];
        given += 1;
        if !f(&c.current(i))? {
            break;
        }
        c.at += 1;
        if c.fill()? {
            heap.push(Reverse((key(c.time()), i)));
        }
    }
    Ok(given)
}

/// Calls `f` with every line of `inputs`, input after input, each in its
/// own order (no time index needed: every time is `None`), until it
/// returns false; returns the lines given to it.
pub fn each_line(
    inputs: &[Input<'_>],
    f: &mut dyn FnMut(&MergedLine<'_>) -> Result<bool>,
) -> Result<u64> {
    let mut given = 0;
    for (i, input) in inputs.iter().enumerate() {
        let mut c = Cursor::new(input, false);
        while c.fill()? {
            given += 1;
            if !f(&c.current(i))? {
                return Ok(given);
            }
            c.at += 1;
        }
    }
    Ok(given)
}
