//! S3-FIFO eviction policy (Yang et al., SOSP 2023) over dense `u32` ids.
//!
//! Three FIFO queues: *small* (about 10% of the capacity) receives new ids;
//! *main* receives ids that were hit while in small, or that come back while
//! remembered in *ghost* (ids recently evicted from small, no data). Each
//! resident id has a 2-bit frequency (0..=3) bumped on hits without touching
//! the queues. Eviction from small moves an id with frequency > 0 to main,
//! else drops it into ghost; eviction from main re-inserts an id with
//! frequency > 0 (decrementing it), else evicts it. A one-time scan therefore
//! flows through small and never displaces the hot ids in main.
//!
//! Per-id metadata lives outside the policy, behind [`Meta`], so the page
//! cache can keep frequencies in its slots and bump them without a lock.

use std::collections::VecDeque;

/// Where an id currently is, as far as the policy knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Loc {
    /// Not tracked.
    None = 0,
    /// Resident, in the small queue.
    Small = 1,
    /// Resident, in the main queue.
    Main = 2,
    /// Not resident; remembered in the ghost queue.
    Ghost = 3,
}

impl Loc {
    /// Decodes the byte stored by [`Meta`].
    pub fn from_u8(v: u8) -> Loc {
        match v {
            1 => Loc::Small,
            2 => Loc::Main,
            3 => Loc::Ghost,
            _ => Loc::None,
        }
    }
}

/// Per-id metadata the policy reads and writes.
pub trait Meta {
    /// Access frequency, 0..=3.
    fn freq(&self, id: u32) -> u8;
    /// Sets the access frequency.
    fn set_freq(&self, id: u32, f: u8);
    /// Location byte.
    fn loc(&self, id: u32) -> Loc;
    /// Sets the location.
    fn set_loc(&self, id: u32, loc: Loc);
    /// Sequence number of the id's newest ghost entry.
    fn ghost_seq(&self, id: u32) -> u32;
    /// Sets the ghost sequence number.
    fn set_ghost_seq(&self, id: u32, seq: u32);
}

/// Records a hit: frequency saturates at 3.
#[inline]
pub fn on_hit<M: Meta + ?Sized>(meta: &M, id: u32) {
    let f = meta.freq(id);
    if f < 3 {
        meta.set_freq(id, f + 1);
    }
}

/// The S3-FIFO queues for a cache of `capacity` entries.
#[derive(Debug, Clone)]
pub struct S3Fifo {
    small: VecDeque<u32>,
    main: VecDeque<u32>,
    ghost: VecDeque<(u32, u32)>,
    capacity: usize,
    small_cap: usize,
    ghost_cap: usize,
    ghost_seq: u32,
}

impl S3Fifo {
    /// A policy holding at most `capacity` (>= 1) resident ids.
    pub fn new(capacity: usize) -> S3Fifo {
        let capacity = capacity.max(1);
        let small_cap = (capacity / 10).max(1);
        S3Fifo {
            small: VecDeque::new(),
            main: VecDeque::new(),
            ghost: VecDeque::new(),
            capacity,
            small_cap,
            ghost_cap: capacity - small_cap.min(capacity - 1),
            ghost_seq: 0,
        }
    }

    /// Maximum resident ids.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Resident ids (small + main).
    pub fn len(&self) -> usize {
        self.small.len() + self.main.len()
    }

    /// True when nothing is resident.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Inserts a non-resident id after a miss; pushes the ids evicted to
    /// make room onto `evicted` (never the inserted id itself).
    pub fn insert<M: Meta + ?Sized>(&mut self, meta: &M, id: u32, evicted: &mut Vec<u32>) {
        debug_assert!(!matches!(meta.loc(id), Loc::Small | Loc::Main));
        while self.len() >= self.capacity {
            self.evict(meta, evicted);
        }
        meta.set_freq(id, 0);
        if meta.loc(id) == Loc::Ghost {
            meta.set_loc(id, Loc::Main);
            self.main.push_back(id);
        } else {
            meta.set_loc(id, Loc::Small);
            self.small.push_back(id);
        }
    }

    fn evict<M: Meta + ?Sized>(&mut self, meta: &M, evicted: &mut Vec<u32>) {
        if (self.small.len() >= self.small_cap || self.main.is_empty())
            && self.evict_small(meta, evicted)
        {
            return;
        }
        self.evict_main(meta, evicted);
    }

    /// Returns true if an id left the cache.
    fn evict_small<M: Meta + ?Sized>(&mut self, meta: &M, evicted: &mut Vec<u32>) -> bool {
        while let Some(id) = self.small.pop_front() {
            if meta.freq(id) > 0 {
                meta.set_freq(id, 0);
                meta.set_loc(id, Loc::Main);
                self.main.push_back(id);
            } else {
                self.ghost_seq = self.ghost_seq.wrapping_add(1);
                meta.set_loc(id, Loc::Ghost);
                meta.set_ghost_seq(id, self.ghost_seq);
                self.ghost.push_back((id, self.ghost_seq));
                while self.ghost.len() > self.ghost_cap {
                    let (g, seq) = self.ghost.pop_front().expect("non-empty");
                    if meta.loc(g) == Loc::Ghost && meta.ghost_seq(g) == seq {
                        meta.set_loc(g, Loc::None);
                    }
                }
                evicted.push(id);
                return true;
            }
        }
        false
    }

    fn evict_main<M: Meta + ?Sized>(&mut self, meta: &M, evicted: &mut Vec<u32>) {
        while let Some(id) = self.main.pop_front() {
            let f = meta.freq(id);
            if f > 0 {
                meta.set_freq(id, f - 1);
                self.main.push_back(id);
            } else {
                meta.set_loc(id, Loc::None);
                evicted.push(id);
                return;
            }
        }
    }

    /// The queues front (oldest) to back, for tests and debugging.
    pub fn dump(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        (
            self.small.iter().copied().collect(),
            self.main.iter().copied().collect(),
            self.ghost.iter().map(|g| g.0).collect(),
        )
    }

    /// Checks the invariants against `meta` (tests and fuzzing only).
    #[cfg(any(test, fuzzing))]
    pub fn validate<M: Meta + ?Sized>(&self, meta: &M) {
        assert!(self.len() <= self.capacity, "over capacity");
        for &id in &self.small {
            assert_eq!(meta.loc(id), Loc::Small, "id {id} in small");
        }
        for &id in &self.main {
            assert_eq!(meta.loc(id), Loc::Main, "id {id} in main");
        }
        let mut seen = std::collections::HashSet::new();
        for &id in self.small.iter().chain(self.main.iter()) {
            assert!(seen.insert(id), "id {id} resident twice");
        }
    }
}

/// A simple in-memory [`Meta`] for simulations and tests.
#[derive(Debug, Default)]
pub struct VecMeta {
    freq: std::cell::RefCell<Vec<u8>>,
    loc: std::cell::RefCell<Vec<u8>>,
    seq: std::cell::RefCell<Vec<u32>>,
}

impl VecMeta {
    /// Metadata for ids `0..n`.
    pub fn new(n: usize) -> VecMeta {
        VecMeta {
            freq: vec![0; n].into(),
            loc: vec![0; n].into(),
            seq: vec![0; n].into(),
        }
    }
}

impl Meta for VecMeta {
    fn freq(&self, id: u32) -> u8 {
        self.freq.borrow()[id as usize]
    }
    fn set_freq(&self, id: u32, f: u8) {
        self.freq.borrow_mut()[id as usize] = f;
    }
    fn loc(&self, id: u32) -> Loc {
        Loc::from_u8(self.loc.borrow()[id as usize])
    }
    fn set_loc(&self, id: u32, loc: Loc) {
        self.loc.borrow_mut()[id as usize] = loc as u8;
    }
    fn ghost_seq(&self, id: u32) -> u32 {
        self.seq.borrow()[id as usize]
    }
    fn set_ghost_seq(&self, id: u32, seq: u32) {
        self.seq.borrow_mut()[id as usize] = seq;
    }
}

/// A complete simulated cache (policy + metadata) for traces: returns hits.
#[derive(Debug)]
pub struct Simulator {
    /// The policy.
    pub policy: S3Fifo,
    /// Its metadata.
    pub meta: VecMeta,
    evicted: Vec<u32>,
}

impl Simulator {
    /// A cache of `capacity` entries over ids `0..universe`.
    pub fn new(capacity: usize, universe: usize) -> Simulator {
        Simulator {
            policy: S3Fifo::new(capacity),
            meta: VecMeta::new(universe),
            evicted: Vec::new(),
        }
    }

    /// Accesses `id`; returns true on a hit.
    pub fn access(&mut self, id: u32) -> bool {
        match self.meta.loc(id) {
            Loc::Small | Loc::Main => {
                on_hit(&self.meta, id);
                true
            }
            _ => {
                self.evicted.clear();
                self.policy.insert(&self.meta, id, &mut self.evicted);
                false
            }
        }
    }

    /// Ids evicted by the last miss.
    pub fn last_evicted(&self) -> &[u32] {
        &self.evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_eviction_order() {
        // Capacity 4: small's target share is 1 entry, ghost remembers 3.
        // Each step: (id, hit?, evicted, small, main, ghost) after the access.
        type Step = (
            u32,
            bool,
            &'static [u32],
            &'static [u32],
            &'static [u32],
            &'static [u32],
        );
        let steps: &[Step] = &[
            (1, false, &[], &[1], &[], &[]),
            (1, true, &[], &[1], &[], &[]),
            (2, false, &[], &[1, 2], &[], &[]),
            (3, false, &[], &[1, 2, 3], &[], &[]),
            (4, false, &[], &[1, 2, 3, 4], &[], &[]),
            // Full: small's head 1 was hit, so it moves to main; 2 was not,
            // so it leaves for ghost.
            (5, false, &[2], &[3, 4, 5], &[1], &[2]),
            // 2 returns while remembered: straight into main; 3 is evicted.
            (2, false, &[3], &[4, 5], &[1, 2], &[2, 3]),
            (1, true, &[], &[4, 5], &[1, 2], &[2, 3]),
            (1, true, &[], &[4, 5], &[1, 2], &[2, 3]),
            (6, false, &[4], &[5, 6], &[1, 2], &[2, 3, 4]),
            // The ghost queue overflows; its stale entry for 2 is dropped.
            (7, false, &[5], &[6, 7], &[1, 2], &[3, 4, 5]),
            (6, true, &[], &[6, 7], &[1, 2], &[3, 4, 5]),
            (7, true, &[], &[6, 7], &[1, 2], &[3, 4, 5]),
            // 6 and 7 (hit) move to main, small empties, so main evicts:
            // 1 (freq 2) gets a second chance, 2 (freq 0) goes.
            (8, false, &[2], &[8], &[6, 7, 1], &[3, 4, 5]),
        ];
        let mut c = Simulator::new(4, 100);
        for (i, &(id, hit, evicted, small, main, ghost)) in steps.iter().enumerate() {
            assert_eq!(c.access(id), hit, "step {i}: access {id}");
            if !hit {
                assert_eq!(c.last_evicted(), evicted, "step {i}: evicted");
            }
            let (s, m, g) = c.policy.dump();
            assert_eq!(
                (&s[..], &m[..], &g[..]),
                (small, main, ghost),
                "step {i}: queues"
            );
            c.policy.validate(&c.meta);
        }
    }

    #[test]
    fn scan_does_not_evict_hot_set() {
        let mut c = Simulator::new(100, 100_000);
        // A hot set of 50 ids, each accessed several times.
        for _ in 0..4 {
            for id in 0..50 {
                c.access(id);
            }
        }
        // A one-time scan of 10,000 other ids.
        for id in 1000..11_000 {
            c.access(id);
            assert!(c.policy.len() <= 100);
        }
        let hits = (0..50).filter(|&id| c.access(id)).count();
        assert_eq!(hits, 50, "the scan displaced hot ids");
        c.policy.validate(&c.meta);
    }

    #[test]
    fn capacity_one_works() {
        let mut c = Simulator::new(1, 10);
        for id in [0, 1, 0, 2, 2, 3] {
            c.access(id);
            assert!(c.policy.len() <= 1);
            c.policy.validate(&c.meta);
        }
    }
}
