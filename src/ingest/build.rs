//! Bulk loading of the B+tree, bottom-up, in one streaming pass.
//!
//! Checkpoints arrive in order. Level 0 collects them into a leaf; when a
//! leaf is full and another entry arrives, the leaf is written (page numbers
//! are assigned in write order) and its first key and page number go up to
//! level 1 as a separator, and so on up. Memory: one node per level. When the
//! input ends, the partial node of each level is written bottom-up; the
//! first level that has never written a page and holds a single pending node
//! with nothing above it is the root. Nothing is rewritten in place.

use crate::error::Result;
use crate::format::{self, node};
use crate::tree::Checkpoint;

/// Where finished pages go. Pages arrive with ids `1, 2, 3, ...` in order;
/// page 0 (the superblock) is written separately at the end.
pub trait PageSink {
    /// Appends page `id` (always the next id).
    fn write_page(&mut self, id: u32, bytes: &[u8]) -> Result<()>;
}

impl PageSink for Vec<u8> {
    fn write_page(&mut self, id: u32, bytes: &[u8]) -> Result<()> {
        let at = id as usize * bytes.len();
        if self.len() < at {
            self.resize(at, 0);
        }
        debug_assert_eq!(self.len(), at);
        self.extend_from_slice(bytes);
        Ok(())
    }
}

#[derive(Debug, Default)]
struct Level {
    lines: Vec<u64>,
    offsets: Vec<u64>,
    children: Vec<u32>,
    pages_written: u64,
}

/// The shape of a finished tree, for the superblock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeShape {
    /// Root page number.
    pub root: u32,
    /// Levels (1 = root is a leaf).
    pub height: u32,
    /// Leaf pages.
    pub leaf_count: u32,
    /// First and last leaf page numbers.
    pub first_leaf: u32,
    /// Last leaf page number.
    pub last_leaf: u32,
    /// Pages including the superblock.
    pub page_count: u32,
    /// Checkpoints stored.
    pub checkpoints: u64,
}

/// Streaming bottom-up builder.
#[derive(Debug)]
pub struct TreeBuilder {
    leaf_cap: usize,
    internal_cap: usize,
    levels: Vec<Level>,
    page: Vec<u8>,
    next_id: u32,
    first_leaf: u32,
    last_leaf: u32,
    checkpoints: u64,
    last: Option<Checkpoint>,
}

impl TreeBuilder {
    /// A builder for pages of `page_size` bytes (validated by the caller).
    pub fn new(page_size: u32) -> TreeBuilder {
        TreeBuilder {
            leaf_cap: format::leaf_capacity(page_size),
            internal_cap: format::internal_capacity(page_size),
            levels: vec![Level::default()],
            page: vec![0; page_size as usize],
            next_id: 1,
            first_leaf: 0,
            last_leaf: 0,
            checkpoints: 0,
            last: None,
        }
    }

    /// The last checkpoint pushed.
    pub fn last(&self) -> Option<Checkpoint> {
        self.last
    }

    /// Appends a checkpoint; both its line and offset must exceed the
    /// previous one's.
    pub fn push(&mut self, cp: Checkpoint, sink: &mut impl PageSink) -> Result<()> {
        if let Some(prev) = self.last
            && (cp.line <= prev.line || cp.offset <= prev.offset)
        {
            return Err(crate::Error::InvalidArgument(format!(
                "checkpoints out of order: {prev:?} then {cp:?}"
            )));
        }
        self.last = Some(cp);
        self.checkpoints += 1;
        self.push_at(0, cp.line, cp.offset, 0, sink)
    }

    fn cap(&self, level: usize) -> usize {
        if level == 0 {
            self.leaf_cap
        } else {
            self.internal_cap
        }
    }

    fn push_at(
        &mut self,
        level: usize,
        line: u64,
        offset: u64,
        child: u32,
        sink: &mut impl PageSink,
    ) -> Result<()> {
        if self.levels[level].lines.len() == self.cap(level) {
            let (id, first_line, first_off) = self.flush(level, sink)?;
            if self.levels.len() == level + 1 {
                self.levels.push(Level::default());
            }
            self.push_at(level + 1, first_line, first_off, id, sink)?;
        }
        let l = &mut self.levels[level];
        l.lines.push(line);
        l.offsets.push(offset);
        if level > 0 {
            l.children.push(child);
        }
        Ok(())
    }

    /// Writes the pending node of `level`; returns its page and first key.
    fn flush(&mut self, level: usize, sink: &mut impl PageSink) -> Result<(u32, u64, u64)> {
        let id = self.next_id;
        self.next_id = self.next_id.checked_add(1).ok_or_else(|| {
            crate::Error::InvalidArgument(
                "sidecar would exceed 2^32 pages; use a larger --spacing".into(),
            )
        })?;
        let l = &mut self.levels[level];
        node::encode(
            &mut self.page,
            id,
            level as u8,
            &l.lines,
            &l.offsets,
            &l.children,
        );
        sink.write_page(id, &self.page)?;
        let first = (id, l.lines[0], l.offsets[0]);
        l.lines.clear();
        l.offsets.clear();
        l.children.clear();
        l.pages_written += 1;
        if level == 0 {
            if self.first_leaf == 0 {
                self.first_leaf = id;
            }
            self.last_leaf = id;
        }
        Ok(first)
    }

    /// Writes the remaining nodes and returns the tree's shape. At least
    /// one checkpoint must have been pushed.
    pub fn finish(mut self, sink: &mut impl PageSink) -> Result<TreeShape> {
        assert!(self.checkpoints > 0, "a tree needs at least one checkpoint");
        let mut level = 0;
        loop {
            let top = level + 1 == self.levels.len();
            let (id, line, off) = self.flush(level, sink)?;
            if top && self.levels[level].pages_written == 1 {
                return Ok(TreeShape {
                    root: id,
                    height: level as u32 + 1,
                    leaf_count: self.levels[0].pages_written as u32,
                    first_leaf: self.first_leaf,
                    last_leaf: self.last_leaf,
                    page_count: self.next_id,
                    checkpoints: self.checkpoints,
                });
            }
            if top {
                self.levels.push(Level::default());
            }
            self.push_at(level + 1, line, off, id, sink)?;
            level += 1;
        }
    }
}
