//! Range-restricted search: grep over a line range, through the index.
//!
//! A line range maps through the index to a byte range; only that part of
//! the source is read ([`scan`]). Because every checkpoint knows its line
//! number, a range splits at checkpoints into chunks that workers scan in
//! parallel and still report exact line numbers, in order ([`parallel`]).
//! [`matcher`] compiles the patterns with ripgrep's semantics. This module
//! does not format output: it pushes lines to a [`Sink`].

pub mod matcher;
pub mod parallel;
pub mod scan;

pub use matcher::{Matcher, MatcherOptions};
pub use scan::{Chunk, Kind, Line, ScanOptions, Search, Sink};

use crate::Index;
use crate::error::Result;
use std::ops::Range;

impl Index {
    /// The [`Chunk`] covering lines `lines` (0-based, half-open, clamped to
    /// the line count).
    pub fn chunk_for_lines(&self, lines: Range<u64>) -> Result<Chunk> {
        let span = self.lines_span(lines.clone())?;
        Ok(Chunk {
            start: span.start,
            end: span.end,
            first_line: lines.start.min(self.line_count()),
        })
    }

    /// The [`Chunk`] of the lines that overlap bytes `bytes` (clamped to the
    /// source).
    pub fn chunk_for_bytes(&self, bytes: Range<u64>) -> Result<Chunk> {
        let len = self.source_len();
        let (a, b) = (bytes.start.min(len), bytes.end.min(len));
        if a >= b {
            return Ok(Chunk {
                start: len,
                end: len,
                first_line: self.line_count(),
            });
        }
        let first = self.line_at(a)?;
        let last = self.line_at(b - 1)?;
        self.chunk_for_lines(first..last + 1)
    }

    /// Searches lines `lines` (0-based, half-open) on the calling thread,
    /// pushing selected (and context) lines to `sink` in file order. Returns
    /// the number of selected lines. A viewer uses this to search the
    /// visible region, or the region after the cursor.
    ///
    /// ```
    /// # fn main() -> lidx::Result<()> {
    /// use lidx::search::{Line, Matcher, MatcherOptions, ScanOptions, Sink};
    /// struct Numbers(Vec<u64>);
    /// impl Sink for Numbers {
    ///     fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
    ///         self.0.push(l.number);
    ///         Ok(true)
    ///     }
    /// }
    /// let src = lidx::io::MemSource::new(b"ok\nerror: x\nok\nerror: y\n".to_vec());
    /// let index = lidx::Index::build_in_memory(Box::new(src), &Default::default())?;
    /// let m = Matcher::new(&["^error".to_string()], &MatcherOptions::default())?;
    /// let mut hits = Numbers(Vec::new());
    /// index.search(2..4, &m, &ScanOptions::default(), &mut hits)?;
    /// assert_eq!(hits.0, [3]);
    /// # Ok(()) }
    /// ```
    pub fn search(
        &self,
        lines: Range<u64>,
        matcher: &Matcher,
        opts: &ScanOptions,
        sink: &mut dyn Sink,
    ) -> Result<u64> {
        let chunk = self.chunk_for_lines(lines)?;
        let mut buf = Vec::new();
        scan::scan(self.source(), chunk, matcher, opts, &mut buf, sink)
    }

    /// Splits `chunk` at checkpoints into pieces of about `target` bytes
    /// (each piece starts at a line start with its exact line number).
    pub fn split_chunk(&self, chunk: Chunk, target: u64) -> Result<Vec<Chunk>> {
        let mut out = Vec::new();
        let mut cur = chunk;
        let target = target.max(1);
        while cur.end - cur.start > target {
            let cp = self.checkpoint_for_offset(cur.start + target)?;
            if cp.offset <= cur.start || cp.offset >= cur.end {
                break;
            }
            out.push(Chunk {
                start: cur.start,
                end: cp.offset,
                first_line: cur.first_line,
            });
            cur = Chunk {
                start: cp.offset,
                end: cur.end,
                first_line: cp.line,
            };
        }
        out.push(cur);
        Ok(out)
    }
}
