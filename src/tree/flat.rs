//! A flat copy of the leaf level, for hot lookups: every checkpoint as a
//! `(line, offset)` pair in one sorted array, with a radix table per
//! column that maps a target's top bits to the few pairs that can hold
//! its predecessor.
//!
//! A B+tree descent costs two or three node searches and a page-cache hit
//! per level (a lock's two atomic operations each); here a lookup is one
//! read of the table and a search among a handful of pairs, whose payload
//! (the other column) sits in the same cache line as the key. It is built
//! from leaf pages read through the page cache, so from CRC-checked bytes
//! only, and kept only when the keys it decodes are strictly increasing in
//! both columns (else the tree answers, and reports the damage).

use super::Checkpoint;

/// Pairs per radix bucket, on average: a bucket's pairs share one or two
/// cache lines.
const PER_BUCKET: usize = 4;

/// The leaf level, decoded.
#[derive(Debug)]
pub(crate) struct Flat {
    pairs: Vec<Checkpoint>,
    by_line: Radix,
    by_offset: Radix,
}

/// A column's keys start at 0 (a flat copy's first pair is line 0,
/// offset 0): bucket `t >> shift` holds the first pair whose key is in
/// that bucket's range or above at `starts[b]`, so the predecessor of `t`
/// lies in `starts[b] - 1 ..= starts[b + 1] - 1`.
#[derive(Debug)]
struct Radix {
    shift: u32,
    starts: Vec<u32>,
}

impl Radix {
    /// The table of `n` sorted keys from 0 to `max`.
    fn new(keys: impl Iterator<Item = u64>, n: usize, max: u64) -> Radix {
        // The fewest bits that give at most n / PER_BUCKET buckets over
        // 0..=max.
        let want = (n / PER_BUCKET).max(1) as u64;
        let mut shift = 0u32;
        while shift < 63 && (max >> shift) >= want {
            shift += 1;
        }
        let buckets = ((max >> shift) + 1) as usize;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut i = 0u32;
        let mut keys = keys.peekable();
        for b in 0..buckets as u64 {
            while keys.peek().is_some_and(|&k| k >> shift < b) {
                keys.next();
                i += 1;
            }
            starts.push(i);
        }
        starts.push(n as u32);
        Radix { shift, starts }
    }

    /// The pairs `lo..hi` among which the last key `<= t` is: those of
    /// `t`'s bucket, and the one before.
    #[inline(always)]
    fn window(&self, t: u64) -> (usize, usize) {
        let b = (t >> self.shift) as usize;
        let b = b.min(self.starts.len() - 2);
        let lo = (self.starts[b] as usize).saturating_sub(1);
        (lo, self.starts[b + 1] as usize)
    }
}

impl Flat {
    /// The flat copy of `pairs` (the leaves' checkpoints in order), or
    /// `None` when they are not strictly increasing in both columns, or
    /// do not start at line 0, offset 0.
    pub fn new(pairs: Vec<Checkpoint>) -> Option<Flat> {
        let first = pairs.first()?;
        if (first.line, first.offset) != (0, 0)
            || pairs.len() >= u32::MAX as usize
            || pairs
                .windows(2)
                .any(|w| w[1].line <= w[0].line || w[1].offset <= w[0].offset)
        {
            return None;
        }
        let (n, last) = (pairs.len(), pairs[pairs.len() - 1]);
        let by_line = Radix::new(pairs.iter().map(|c| c.line), n, last.line);
        let by_offset = Radix::new(pairs.iter().map(|c| c.offset), n, last.offset);
        Some(Flat {
            pairs,
            by_line,
            by_offset,
        })
    }

    /// The checkpoint with the largest line `<= line`.
    #[inline]
    pub fn for_line(&self, line: u64) -> Checkpoint {
        let (lo, hi) = self.by_line.window(line);
        self.last_at_or_below(lo, hi, line, |c| c.line)
    }

    /// The checkpoint with the largest offset `<= offset`.
    #[inline]
    pub fn for_offset(&self, offset: u64) -> Checkpoint {
        let (lo, hi) = self.by_offset.window(offset);
        self.last_at_or_below(lo, hi, offset, |c| c.offset)
    }

    /// Bytes held.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.pairs.capacity() * size_of::<Checkpoint>()
            + (self.by_line.starts.capacity() + self.by_offset.starts.capacity()) * 4
    }

    /// Bytes a flat copy of `n` checkpoints may hold: the pairs, and the
    /// two tables (at most n / PER_BUCKET + 2 entries each) counted twice
    /// over.
    pub fn bytes_for(n: u64) -> u64 {
        n * size_of::<Checkpoint>() as u64 + 2 * (n / PER_BUCKET as u64 + 2) * 4 * 2
    }

    #[inline(always)]
    fn last_at_or_below(
        &self,
        lo: usize,
        hi: usize,
        t: u64,
        key: impl Fn(&Checkpoint) -> u64,
    ) -> Checkpoint {
        // The first pair (line 0, offset 0) is at or below every target.
        let in_window = self.pairs[lo..hi].partition_point(|c| key(c) <= t);
        self.pairs[lo + in_window - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Index;
    use crate::io::MemSource;

    /// Every target's answer against a scan of the pairs, for columns
    /// that are even, skewed (long lines, a jump) and tiny.
    #[test]
    fn answers_match_a_scan() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let shapes: Vec<Vec<Checkpoint>> = vec![
            vec![Checkpoint { line: 0, offset: 0 }],
            (0..1000)
                .map(|i| Checkpoint {
                    line: i * 3,
                    offset: i * 65_536 + i % 7,
                })
                .collect(),
            {
                let (mut l, mut o) = (0, 0);
                (0..5000)
                    .map(|i| {
                        let c = Checkpoint { line: l, offset: o };
                        l += 1 + next() % 50;
                        o += if i == 2000 {
                            1 << 40
                        } else {
                            1 + next() % 100_000
                        };
                        c
                    })
                    .collect()
            },
        ];
        for pairs in shapes {
            let f = Flat::new(pairs.clone()).unwrap();
            assert!(f.bytes() as u64 <= Flat::bytes_for(pairs.len() as u64));
            let last = *pairs.last().unwrap();
            let scan = |t: u64, key: fn(&Checkpoint) -> u64| {
                *pairs.iter().rev().find(|c| key(c) <= t).unwrap()
            };
            let mut targets = vec![0, 1, u64::MAX, last.line, last.offset];
            for c in &pairs {
                targets.extend([c.line, c.line + 1, c.offset.saturating_sub(1), c.offset]);
            }
            targets.extend((0..2000).map(|_| next() % (last.offset + 10)));
            for t in targets {
                assert_eq!(f.for_line(t), scan(t, |c| c.line), "line {t}");
                assert_eq!(f.for_offset(t), scan(t, |c| c.offset), "offset {t}");
            }
        }
    }

    /// A text of short lines and lines longer than the spacing, its line
    /// starts, and its sidecar (spacing 64: several hundred checkpoints
    /// over a tree of height 2).
    fn sample() -> (Vec<u8>, Vec<u64>, Vec<u8>) {
        let mut text = Vec::new();
        let mut starts = Vec::new();
        for i in 0..6000u64 {
            starts.push(text.len() as u64);
            let len = if i % 97 == 0 { 300 } else { i % 23 };
            text.extend((0..len).map(|k| b'a' + (k % 26) as u8));
            text.push(b'\n');
        }
        let opts = crate::BuildOptions {
            spacing: 64,
            ..crate::BuildOptions::default()
        };
        let sidecar = crate::build_to_vec(&MemSource::new(text.clone()), &opts).unwrap();
        (text, starts, sidecar)
    }

    fn open(text: &[u8], sidecar: Vec<u8>, cache: usize) -> Index {
        Index::from_parts(
            Box::new(MemSource::new(text.to_vec())),
            Box::new(MemSource::new(sidecar)),
            (0, 0),
            cache,
        )
        .unwrap()
    }

    /// Lookups answer the same before and after the leaves are copied
    /// flat, and as an index whose budget leaves no room for the copy
    /// (the tree alone); line starts and offsets' lines are the text's.
    #[test]
    fn an_index_answers_alike_through_the_tree_and_the_flat_copy() {
        let (text, starts, sidecar) = sample();
        let flat = open(&text, sidecar.clone(), crate::index::DEFAULT_CACHE_BYTES);
        let tree = open(&text, sidecar.clone(), sidecar.len() + 4096);
        assert!(tree.superblock().height >= 2);
        for round in 0..2 {
            for l in 0..starts.len() as u64 {
                let cp = flat.checkpoint_for_line(l).unwrap();
                assert_eq!(cp, tree.checkpoint_for_line(l).unwrap(), "line {l}");
                assert!(cp.line <= l && starts[cp.line as usize] == cp.offset);
                assert_eq!(flat.line_start(l).unwrap(), starts[l as usize]);
            }
            for o in (0..text.len() as u64 + 3).step_by(7) {
                let cp = flat.checkpoint_for_offset(o).unwrap();
                assert_eq!(cp, tree.checkpoint_for_offset(o).unwrap(), "offset {o}");
                if o < text.len() as u64 {
                    let want = starts.partition_point(|&s| s <= o) as u64 - 1;
                    assert_eq!(flat.line_at(o).unwrap(), want, "offset {o}");
                }
            }
            // Made within the first round (its first few hundred lookups
            // went through the tree); never without room in the budget.
            assert_eq!(
                (flat.flat_made(), tree.flat_made()),
                (Some(true), None),
                "round {round}"
            );
        }
    }

    /// A leaf page whose CRC fails: lookups that need it are errors
    /// before and after the lookups are hot (no flat copy is made from an
    /// unchecked page), and every other lookup still answers.
    #[test]
    fn a_damaged_leaf_is_never_copied() {
        let (text, starts, mut sidecar) = sample();
        let sb = open(&text, sidecar.clone(), 1 << 20).superblock().clone();
        let leaf = sb.first_leaf + (sb.last_leaf - sb.first_leaf) / 2;
        sidecar[leaf as usize * sb.page_size as usize + 100] ^= 0x10;
        let index = open(&text, sidecar, crate::index::DEFAULT_CACHE_BYTES);
        let answers = |index: &Index| -> Vec<Option<Checkpoint>> {
            (0..starts.len() as u64)
                .map(|l| index.checkpoint_for_line(l).ok())
                .collect()
        };
        let first = answers(&index);
        let failed = first.iter().filter(|a| a.is_none()).count();
        assert!(failed > 0 && failed < starts.len(), "{failed}");
        for _ in 0..3 {
            assert_eq!(answers(&index), first);
        }
        assert_eq!(index.flat_made(), Some(false));
    }

    #[test]
    fn keys_out_of_order_are_refused() {
        let c = |line, offset| Checkpoint { line, offset };
        assert!(Flat::new(vec![]).is_none());
        assert!(Flat::new(vec![c(0, 0), c(5, 10), c(5, 20)]).is_none());
        assert!(Flat::new(vec![c(0, 0), c(5, 10), c(6, 10)]).is_none());
        assert!(Flat::new(vec![c(1, 0), c(5, 10)]).is_none());
        assert!(Flat::new(vec![c(0, 0), c(5, 10)]).is_some());
    }
}
