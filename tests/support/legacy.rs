//! Sidecars in the layout of format 1.0 and 1.1, as the writers of those
//! versions wrote them, so that tests keep old files covered: a reader of
//! 1.2 must still open, verify and extend them (spec §9).
//!
//! Before 1.2, the canonical bulk load wrote each node as soon as it
//! was complete, so internal pages lie between the leaves and the root is
//! the last page of the tree; the superblock has `version_minor` 0 (plain)
//! or 1 (gzip), no compatible feature bit and zero in bytes 116..120. The
//! node contents are the same as in 1.2, and so are the access-point and
//! blob pages of a gzip sidecar, which follow the tree at the same page
//! numbers (the tree has as many pages in both layouts).
//!
//! [`to_legacy`] rebuilds that file from a 1.2 sidecar with the old
//! writer's bulk loader, copied here; `tests/spec.rs` checks that it gives
//! back, byte for byte, the 1.1 vectors kept in `tests/data/vectors-1.1.md`.

#![allow(dead_code)]

use lidx::format::node::{self, NodeView};
use lidx::format::{self, PageKind, Superblock};

/// One pending node per level: its entries and how many pages of its
/// level were written.
#[derive(Default)]
struct Level {
    lines: Vec<u64>,
    offsets: Vec<u64>,
    children: Vec<u32>,
    pages_written: u64,
}

/// The bulk loader of the 1.0 and 1.1 writers (R-61 before 1.2).
struct OldBuilder {
    leaf_cap: usize,
    internal_cap: usize,
    levels: Vec<Level>,
    page: Vec<u8>,
    next_id: u32,
    first_leaf: u32,
    last_leaf: u32,
    out: Vec<u8>,
}

impl OldBuilder {
    fn new(page_size: u32) -> OldBuilder {
        OldBuilder {
            leaf_cap: format::leaf_capacity(page_size),
            internal_cap: format::internal_capacity(page_size),
            levels: vec![Level::default()],
            page: vec![0; page_size as usize],
            next_id: 1,
            first_leaf: 0,
            last_leaf: 0,
            out: vec![0; page_size as usize],
        }
    }

    fn cap(&self, level: usize) -> usize {
        if level == 0 {
            self.leaf_cap
        } else {
            self.internal_cap
        }
    }

    fn push_at(&mut self, level: usize, line: u64, offset: u64, child: u32) {
        if self.levels[level].lines.len() == self.cap(level) {
            let (id, first_line, first_off) = self.flush(level);
            if self.levels.len() == level + 1 {
                self.levels.push(Level::default());
            }
            self.push_at(level + 1, first_line, first_off, id);
        }
        let l = &mut self.levels[level];
        l.lines.push(line);
        l.offsets.push(offset);
        if level > 0 {
            l.children.push(child);
        }
    }

    fn flush(&mut self, level: usize) -> (u32, u64, u64) {
        let id = self.next_id;
        self.next_id += 1;
        let l = &mut self.levels[level];
        node::encode(
            &mut self.page,
            id,
            level as u8,
            &l.lines,
            &l.offsets,
            &l.children,
        );
        self.out.extend_from_slice(&self.page);
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
        first
    }

    /// Returns (pages from page 0 on, root page).
    fn finish(mut self) -> (Vec<u8>, u32, u32, u32) {
        let mut level = 0;
        loop {
            let top = level + 1 == self.levels.len();
            let (id, line, off) = self.flush(level);
            if top && self.levels[level].pages_written == 1 {
                return (self.out, id, self.first_leaf, self.last_leaf);
            }
            if top {
                self.levels.push(Level::default());
            }
            self.push_at(level + 1, line, off, id);
            level += 1;
        }
    }
}

/// The checkpoints of a sidecar of any layout, leaf by leaf.
pub fn checkpoints(sidecar: &[u8]) -> Vec<(u64, u64)> {
    let sb = Superblock::decode(&sidecar[..format::SUPERBLOCK_LEN]).expect("superblock");
    let p = sb.page_size as usize;
    let mut out = Vec::new();
    for id in sb.first_leaf..=sb.last_leaf {
        let words: Vec<u64> = sidecar[id as usize * p..(id as usize + 1) * p]
            .chunks(8)
            .map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let v = NodeView::parse(&words, id).expect("node page");
        if v.kind == PageKind::Leaf {
            out.extend(v.sorted_entries().iter().map(|e| (e.0, e.1)));
        }
    }
    out
}

/// The sidecar a 1.0 (plain) or 1.1 (gzip) writer wrote for the same
/// source and parameters as the 1.2 sidecar `sidecar`.
pub fn to_legacy(sidecar: &[u8]) -> Vec<u8> {
    let mut sb = Superblock::decode(&sidecar[..format::SUPERBLOCK_LEN]).expect("superblock");
    assert!(sb.head_first(), "a 1.2 sidecar");
    let p = sb.page_size as usize;
    let gzip = sb.source_kind == format::SOURCE_KIND_GZIP;
    let tree_end = if gzip {
        sb.gzip.ap_first_page
    } else {
        sb.page_count
    };
    let mut b = OldBuilder::new(sb.page_size);
    for (line, offset) in checkpoints(sidecar) {
        b.push_at(0, line, offset, 0);
    }
    let (mut out, root, first_leaf, last_leaf) = b.finish();
    assert_eq!(out.len(), tree_end as usize * p, "as many tree pages");
    // Access-point and blob pages: the same pages at the same numbers.
    out.extend_from_slice(&sidecar[tree_end as usize * p..]);
    sb.version_minor = if gzip { 1 } else { 0 };
    sb.compat_features = 0;
    sb.head_pages = 0;
    sb.root_page = root;
    sb.first_leaf = first_leaf;
    sb.last_leaf = last_leaf;
    out[..format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
    out[format::SUPERBLOCK_LEN..p].copy_from_slice(&sidecar[format::SUPERBLOCK_LEN..p]);
    out
}
