//! Node pages of the B+tree: decoding a page in place into a [`NodeView`],
//! and encoding sorted entries into a page (spec §4).
//!
//! Body layout after the 16-byte header, for `n` entries in Eytzinger order:
//! `lines: [u64; n]`, `offsets: [u64; n]`, and for internal nodes
//! `children: [u32; n]`; the rest of the page is zero. In a leaf, entry `i`
//! is a checkpoint: line `lines[i]` starts at byte `offsets[i]`. In an
//! internal node, entry `i` is the first checkpoint of child `children[i]`.
//! Both columns are strictly increasing together, so one Eytzinger
//! permutation orders both and either column can be searched.

use super::{PAGE_HEADER_LEN, PageHeader, PageKind, eytzinger, internal_capacity, leaf_capacity};

/// A decoded view of a node page, borrowing the page's words.
#[derive(Debug, Clone, Copy)]
pub struct NodeView<'a> {
    /// Leaf or internal.
    pub kind: PageKind,
    /// 0 for leaves.
    pub level: u8,
    /// Line column (little-endian words, Eytzinger order).
    pub lines: &'a [u64],
    /// Offset column (little-endian words, Eytzinger order).
    pub offsets: &'a [u64],
    /// Child page numbers (little-endian, Eytzinger order); empty in leaves.
    pub children: &'a [u32],
}

impl<'a> NodeView<'a> {
    /// Parses a page whose CRC has already been checked. `words` is the page
    /// as 8-byte words (so the key arrays are aligned). Returns a description
    /// of the damage when the header is impossible.
    pub fn parse(words: &'a [u64], page_id: u32) -> Result<NodeView<'a>, String> {
        let bytes: &[u8] = bytemuck::cast_slice(words);
        let page_size = bytes.len() as u32;
        let h = PageHeader::decode(bytes);
        if h.page_id != page_id {
            return Err(format!("page claims to be page {}", h.page_id));
        }
        let n = h.count as usize;
        let (kind, cap) = match h.kind {
            1 => (PageKind::Leaf, leaf_capacity(page_size)),
            2 => (PageKind::Internal, internal_capacity(page_size)),
            k => return Err(format!("unknown page kind {k}")),
        };
        if n == 0 || n > cap {
            return Err(format!("entry count {n} not in 1..={cap}"));
        }
        if (kind == PageKind::Leaf) != (h.level == 0) {
            return Err(format!("{kind:?} page at level {}", h.level));
        }
        Ok(NodeView::from_checked(words, kind, h.level, n))
    }

    /// Builds the view of a page that [`NodeView::parse`] has already
    /// accepted with these header values (no checks: the hot path).
    #[inline]
    pub fn from_checked(words: &'a [u64], kind: PageKind, level: u8, n: usize) -> NodeView<'a> {
        let w = PAGE_HEADER_LEN / 8;
        let lines = &words[w..w + n];
        let offsets = &words[w + n..w + 2 * n];
        let children: &[u32] = if kind == PageKind::Internal {
            let halves: &[u32] = bytemuck::cast_slice(words);
            let start = (PAGE_HEADER_LEN + 16 * n) / 4;
            &halves[start..start + n]
        } else {
            &[]
        };
        NodeView {
            kind,
            level,
            lines,
            offsets,
            children,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Always false: a valid node has at least one entry.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Entries in sorted order as (line, offset, child or 0).
    pub fn sorted_entries(&self) -> Vec<(u64, u64, u32)> {
        let n = self.len();
        let mut out = Vec::with_capacity(n);
        if n == 0 {
            return out;
        }
        let mut at = first_index(n);
        while let Some(e) = at {
            let child = self.children.get(e).map_or(0, |c| u32::from_le(*c));
            out.push((
                u64::from_le(self.lines[e]),
                u64::from_le(self.offsets[e]),
                child,
            ));
            at = eytzinger::successor(n, e);
        }
        out
    }
}

/// Stored index of the smallest key (leftmost node) for `n` entries.
fn first_index(n: usize) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let mut k = 1;
    while 2 * k <= n {
        k *= 2;
    }
    Some(k - 1)
}

/// Encodes sorted entries into `page` (zeroed first) and seals its CRC.
/// `children` must be empty for a leaf and as long as `lines` otherwise.
pub fn encode(
    page: &mut [u8],
    page_id: u32,
    level: u8,
    lines: &[u64],
    offsets: &[u64],
    children: &[u32],
) {
    let n = lines.len();
    debug_assert_eq!(offsets.len(), n);
    debug_assert!(children.is_empty() || children.len() == n);
    page.fill(0);
    let kind = if level == 0 {
        PageKind::Leaf
    } else {
        PageKind::Internal
    };
    PageHeader {
        crc: 0,
        kind: kind as u8,
        level,
        count: n as u16,
        page_id,
    }
    .encode(page);
    let mut order = vec![0usize; n];
    eytzinger::permutation(&mut order);
    let mut at = PAGE_HEADER_LEN;
    for &r in &order {
        page[at..at + 8].copy_from_slice(&lines[r].to_le_bytes());
        at += 8;
    }
    for &r in &order {
        page[at..at + 8].copy_from_slice(&offsets[r].to_le_bytes());
        at += 8;
    }
    if !children.is_empty() {
        for &r in &order {
            page[at..at + 4].copy_from_slice(&children[r].to_le_bytes());
            at += 4;
        }
    }
    super::seal_page(page);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<u64> {
        bytes
            .chunks(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn leaf_round_trip() {
        let mut page = vec![0u8; 512];
        let lines: Vec<u64> = (0..31).map(|i| i * 10).collect();
        let offs: Vec<u64> = (0..31).map(|i| i * 1000 + 7).collect();
        encode(&mut page, 5, 0, &lines, &offs, &[]);
        let w = words(&page);
        let v = NodeView::parse(&w, 5).unwrap();
        assert_eq!(v.kind, PageKind::Leaf);
        let got: Vec<(u64, u64)> = v.sorted_entries().iter().map(|e| (e.0, e.1)).collect();
        let want: Vec<(u64, u64)> = lines.iter().copied().zip(offs.iter().copied()).collect();
        assert_eq!(got, want);
        assert!(NodeView::parse(&w, 6).is_err());
    }

    #[test]
    fn internal_round_trip() {
        let mut page = vec![0u8; 4096];
        let n = 204;
        let lines: Vec<u64> = (0..n).map(|i| i * 3).collect();
        let offs: Vec<u64> = (0..n).map(|i| i * 5).collect();
        let kids: Vec<u32> = (0..n as u32).map(|i| i + 100).collect();
        encode(&mut page, 9, 2, &lines, &offs, &kids);
        let w = words(&page);
        let v = NodeView::parse(&w, 9).unwrap();
        let got = v.sorted_entries();
        for (i, e) in got.iter().enumerate() {
            assert_eq!(*e, (lines[i], offs[i], kids[i]));
        }
    }
}
