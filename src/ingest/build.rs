//! Bulk loading of the B+tree in one streaming pass, written head-first
//! (spec §8.2, R-61, R-63).
//!
//! Checkpoints arrive in order and fill leaves, which are written as they
//! fill, with provisional page numbers `1, 2, …`; the first key of each leaf
//! is kept (16 bytes per leaf). When the input ends, the internal levels are
//! derived from those keys: every node but the last of its level is full
//! . Their number `I` is known only then, so the leaves are moved `I`
//! pages up (last leaf first, so nothing unread is overwritten, each with
//! its new page number and CRC), and the internal nodes are written into
//! pages `1..=I`, root first, level by level, left to right. Memory:
//! one leaf plus 16 bytes per leaf (about 1/250 of the tree at the default
//! page size); the move reads and writes the leaves once more, which costs
//! little next to the scan of the source (about 4,000 times larger at the
//! default spacing).

use crate::error::{Error, Result};
use crate::format::{self, node};
use crate::tree::Checkpoint;

/// Where finished pages go. Page 0 (the superblock) is written separately at
/// the end. Pages are mostly appended in order, but the builder also reads
/// back pages it wrote and writes over them or past the end (see the module
/// doc): a sink is random-access storage of whole pages.
pub trait PageSink {
    /// Writes `pages`, a whole number of pages of `page_size` bytes, as pages
    /// `id, id + 1, …`, over earlier ones or past the end (a gap between the
    /// end and `id` is filled later).
    fn write_pages(&mut self, id: u32, page_size: usize, pages: &[u8]) -> Result<()>;

    /// Reads pages `id, id + 1, …`, all written before, into `pages`, a
    /// whole number of pages of `page_size` bytes.
    fn read_pages(&mut self, id: u32, page_size: usize, pages: &mut [u8]) -> Result<()>;

    /// Writes one page (`page.len()` bytes) as page `id`.
    fn write_page(&mut self, id: u32, page: &[u8]) -> Result<()> {
        self.write_pages(id, page.len(), page)
    }
}

impl PageSink for Vec<u8> {
    fn write_pages(&mut self, id: u32, page_size: usize, pages: &[u8]) -> Result<()> {
        debug_assert_eq!(pages.len() % page_size, 0);
        let at = id as usize * page_size;
        if self.len() < at + pages.len() {
            self.resize(at + pages.len(), 0);
        }
        self[at..at + pages.len()].copy_from_slice(pages);
        Ok(())
    }

    fn read_pages(&mut self, id: u32, page_size: usize, pages: &mut [u8]) -> Result<()> {
        let at = id as usize * page_size;
        pages.copy_from_slice(&self[at..at + pages.len()]);
        Ok(())
    }
}

/// The shape of a finished tree, for the superblock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeShape {
    /// Root page number: always 1.
    pub root: u32,
    /// Levels (1 = root is a leaf).
    pub height: u32,
    /// Leaf pages.
    pub leaf_count: u32,
    /// First leaf page number (`1 + I`, `I` internal nodes).
    pub first_leaf: u32,
    /// Last leaf page number (`I + leaf_count`).
    pub last_leaf: u32,
    /// Pages including the superblock.
    pub page_count: u32,
    /// Pages `0..head_pages` hold the superblock, the root and every other
    /// internal node: `first_leaf`, or 2 for a leaf-only tree.
    pub head_pages: u32,
    /// Checkpoints stored.
    pub checkpoints: u64,
}

/// Leaves moved per read and write when the internal nodes make room.
const MOVE_BATCH_PAGES: usize = 64;

fn too_many_pages() -> Error {
    Error::InvalidArgument("sidecar would exceed 2^32 pages; use a larger --spacing".into())
}

/// Streaming builder (see the module doc).
#[derive(Debug)]
pub struct TreeBuilder {
    leaf_cap: usize,
    internal_cap: usize,
    /// The tree's pages are numbered from `base + 1` (0 for the line tree;
    /// the time tree follows it, spec §12).
    base: u32,
    /// Keys must strictly increase (the line tree) or only not decrease
    /// (the time tree's running extremes).
    strict: bool,
    /// The leaf being filled, in key order.
    lines: Vec<u64>,
    offsets: Vec<u64>,
    /// The first key of every leaf written so far: leaf `j` is provisional
    /// page `1 + j`.
    leaf_keys: Vec<(u64, u64)>,
    page: Vec<u8>,
    checkpoints: u64,
    last: Option<Checkpoint>,
}

impl TreeBuilder {
    /// A builder for pages of `page_size` bytes (validated by the caller).
    pub fn new(page_size: u32) -> TreeBuilder {
        TreeBuilder {
            leaf_cap: format::leaf_capacity(page_size),
            internal_cap: format::internal_capacity(page_size),
            base: 0,
            strict: true,
            lines: Vec::new(),
            offsets: Vec::new(),
            leaf_keys: Vec::new(),
            page: vec![0; page_size as usize],
            checkpoints: 0,
            last: None,
        }
    }

    /// A builder of the time tree (spec §12): its pages are numbered from
    /// `base + 1`, and its two columns need only not decrease.
    pub fn for_time(page_size: u32, base: u32) -> TreeBuilder {
        TreeBuilder {
            base,
            strict: false,
            ..TreeBuilder::new(page_size)
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
            && (cp.line < prev.line
                || cp.offset < prev.offset
                || (self.strict && (cp.line == prev.line || cp.offset == prev.offset)))
        {
            return Err(Error::InvalidArgument(format!(
                "checkpoints out of order: {prev:?} then {cp:?}"
            )));
        }
        if self.lines.len() == self.leaf_cap {
            self.flush_leaf(sink)?;
        }
        self.last = Some(cp);
        self.checkpoints += 1;
        self.lines.push(cp.line);
        self.offsets.push(cp.offset);
        Ok(())
    }

    /// Writes the pending leaf as the next provisional page.
    fn flush_leaf(&mut self, sink: &mut impl PageSink) -> Result<()> {
        // Page 0, the leaves and at least one internal node above two
        // leaves must stay below 2^32 pages.
        let id = u32::try_from(self.leaf_keys.len() as u64 + 1 + self.base as u64)
            .ok()
            .filter(|&id| id < u32::MAX - 1)
            .ok_or_else(too_many_pages)?;
        node::encode(&mut self.page, id, 0, &self.lines, &self.offsets, &[]);
        sink.write_page(id, &self.page)?;
        self.leaf_keys.push((self.lines[0], self.offsets[0]));
        self.lines.clear();
        self.offsets.clear();
        Ok(())
    }

    /// Writes the last leaf and the internal nodes, moving the leaves after
    /// them, and returns the tree's shape. At least one checkpoint
    /// must have been pushed.
    pub fn finish(mut self, sink: &mut impl PageSink) -> Result<TreeShape> {
        assert!(self.checkpoints > 0, "a tree needs at least one checkpoint");
        self.flush_leaf(sink)?;
        let leaves = self.leaf_keys.len() as u32;
        // keys[k]: the first key of every node of level k, left to right
        // each node of level k + 1 takes `internal_cap` of them).
        let mut keys = vec![std::mem::take(&mut self.leaf_keys)];
        while keys[keys.len() - 1].len() > 1 {
            let below = &keys[keys.len() - 1];
            let up = below.iter().step_by(self.internal_cap).copied().collect();
            keys.push(up);
        }
        let height = keys.len() as u32;
        let b = self.base;
        if height == 1 {
            return Ok(TreeShape {
                root: b + 1,
                height,
                leaf_count: 1,
                first_leaf: b + 1,
                last_leaf: b + 1,
                page_count: b + 2,
                head_pages: 2,
                checkpoints: self.checkpoints,
            });
        }
        let internal: u64 = keys[1..].iter().map(|k| k.len() as u64).sum();
        let internal = u32::try_from(internal).map_err(|_| too_many_pages())?;
        let page_count = leaves
            .checked_add(internal)
            .and_then(|n| n.checked_add(1 + b))
            .ok_or_else(too_many_pages)?;
        self.move_leaves(sink, leaves, internal)?;
        // first[k]: the page of level k's first node; the root is page 1
        // (of the tree: `base + 1`).
        let mut first = vec![0u32; keys.len()];
        let mut next = 1 + b;
        for k in (0..keys.len()).rev() {
            first[k] = next;
            next += keys[k].len() as u32;
        }
        debug_assert_eq!(next, page_count);
        let mut children = Vec::with_capacity(self.internal_cap);
        for k in (1..keys.len()).rev() {
            let below = &keys[k - 1];
            for (i, chunk) in below.chunks(self.internal_cap).enumerate() {
                let c0 = i * self.internal_cap;
                self.lines.clear();
                self.offsets.clear();
                children.clear();
                for (c, &(line, offset)) in chunk.iter().enumerate() {
                    self.lines.push(line);
                    self.offsets.push(offset);
                    children.push(first[k - 1] + (c0 + c) as u32);
                }
                let id = first[k] + i as u32;
                node::encode(
                    &mut self.page,
                    id,
                    k as u8,
                    &self.lines,
                    &self.offsets,
                    &children,
                );
                sink.write_page(id, &self.page)?;
            }
        }
        Ok(TreeShape {
            root: 1 + b,
            height,
            leaf_count: leaves,
            first_leaf: first[0],
            last_leaf: page_count - 1,
            page_count,
            head_pages: first[0],
            checkpoints: self.checkpoints,
        })
    }

    /// Moves leaves `1..=leaves` (provisional pages) to `1 + by..=leaves +
    /// by`, last first, so that no leaf is overwritten before it is read,
    /// rewriting each one's `page_id` and CRC.
    fn move_leaves(&mut self, sink: &mut impl PageSink, leaves: u32, by: u32) -> Result<()> {
        let p = self.page.len();
        let mut buf = vec![0u8; p * MOVE_BATCH_PAGES.min(leaves as usize)];
        let mut end = leaves + 1 + self.base;
        while end > 1 + self.base {
            let n = (end - 1 - self.base).min(MOVE_BATCH_PAGES as u32);
            let from = end - n;
            let batch = &mut buf[..n as usize * p];
            sink.read_pages(from, p, batch)?;
            for (i, page) in batch.chunks_mut(p).enumerate() {
                let id = from + by + i as u32;
                page[8..12].copy_from_slice(&id.to_le_bytes());
                format::seal_page(page);
            }
            sink.write_pages(from + by, p, batch)?;
            end = from;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::node::NodeView;
    use crate::format::{PageHeader, PageKind};

    fn words(page: &[u8]) -> Vec<u64> {
        page.chunks(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// Builds a tree of `n` checkpoints; returns the pages and the shape.
    fn build(n: u64, page_size: u32) -> (Vec<u8>, TreeShape) {
        let mut sink = vec![0u8; page_size as usize];
        let mut t = TreeBuilder::new(page_size);
        for i in 0..n {
            let cp = Checkpoint {
                line: i,
                offset: 3 * i,
            };
            t.push(cp, &mut sink).unwrap();
        }
        let shape = t.finish(&mut sink).unwrap();
        (sink, shape)
    }

    /// page numbers in breadth-first order from the root at
    /// page 1, the leaves contiguous after the internal nodes, every node
    /// but the last of its level full, every checkpoint in its place.
    #[test]
    fn head_first_layout() {
        let p = 512usize;
        let (lc, ic) = (31u64, 24u64);
        for n in [
            1,
            lc,
            lc + 1,
            lc * ic,
            lc * ic + 1,
            lc * ic * ic,
            lc * ic * ic + 1,
            lc * ic * ic + 5 * lc + 3,
        ] {
            let (pages, shape) = build(n, p as u32);
            assert_eq!(pages.len(), shape.page_count as usize * p, "{n}");
            assert_eq!(shape.root, 1);
            assert_eq!(shape.leaf_count as u64, n.div_ceil(lc), "{n}");
            assert_eq!(shape.last_leaf, shape.page_count - 1);
            assert_eq!(shape.last_leaf - shape.first_leaf + 1, shape.leaf_count);
            let head = if shape.height == 1 {
                2
            } else {
                shape.first_leaf
            };
            assert_eq!(shape.head_pages, head, "{n}");
            // Breadth-first: the children of the pages, in page order, are
            // pages 2, 3, 4, ... in turn, levels decreasing by one.
            let mut next_child = 2u32;
            let mut cps = Vec::new();
            let mut level_of = vec![None; shape.page_count as usize];
            level_of[1] = Some(shape.height as u8 - 1);
            for id in 1..shape.page_count {
                let w = words(&pages[id as usize * p..(id as usize + 1) * p]);
                let bytes: &[u8] = bytemuck::cast_slice(&w);
                assert_eq!(format::page_crc(bytes), PageHeader::decode(bytes).crc);
                let v = NodeView::parse(&w, id).unwrap();
                assert_eq!(Some(v.level), level_of[id as usize], "{n}: page {id}");
                let cap = if v.kind == PageKind::Leaf { lc } else { ic };
                let last_of_level = id + 1 == shape.page_count
                    || id + 1 == shape.first_leaf
                    || level_of.get(id as usize + 1).copied().flatten() != Some(v.level);
                if !last_of_level {
                    assert_eq!(v.len() as u64, cap, "{n}: page {id} not full");
                }
                for (line, offset, child) in v.sorted_entries() {
                    if v.kind == PageKind::Leaf {
                        assert!(id >= shape.first_leaf);
                        cps.push((line, offset));
                    } else {
                        assert!(id < shape.first_leaf);
                        assert_eq!(child, next_child, "{n}: page {id}");
                        level_of[child as usize] = Some(v.level - 1);
                        next_child += 1;
                    }
                }
            }
            if shape.height > 1 {
                assert_eq!(next_child, shape.page_count, "{n}");
            }
            let want: Vec<(u64, u64)> = (0..n).map(|i| (i, 3 * i)).collect();
            assert_eq!(cps, want, "{n}");
        }
    }

    /// The number of internal levels for a given number of leaves: a level
    /// of `m > 1` nodes gets `⌈m / ic⌉` parents.
    #[test]
    fn heights() {
        let lc = 31u64;
        for (leaves, height, internal) in [
            (1, 1, 0),
            (2, 2, 1),
            (24, 2, 1),
            (25, 3, 3),
            (576, 3, 25),
            (577, 4, 25 + 2 + 1),
        ] {
            let (_, shape) = build(leaves * lc, 512);
            assert_eq!(
                (shape.height, shape.first_leaf - 1),
                (height, if height == 1 { 0 } else { internal }),
                "{leaves} leaves"
            );
        }
    }
}
