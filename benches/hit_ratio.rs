//! Hit-ratio comparison: S3-FIFO (the page cache's policy) against plain
//! FIFO and LRU, on Zipf traces and on a Zipf trace polluted by one-time
//! sequential scans.
//!
//! Run with `cargo bench --bench hit_ratio`; prints a markdown table. The
//! traces come from a fixed-seed PRNG, so the numbers are the same on every
//! run.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use lidx::cache::s3fifo::Simulator as S3FifoSim;

/// Distinct ids in the Zipf workload.
const UNIVERSE: usize = 100_000;
/// Zipf accesses per trace.
const ACCESSES: usize = 2_000_000;
/// In the scan-polluted trace: a scan starts after every this many Zipf
/// accesses...
const SCAN_EVERY: usize = 10_000;
/// ...and touches this many never-seen ids, sequentially.
const SCAN_LEN: usize = 20_000;

// ---------------------------------------------------------------------------
// Deterministic randomness.

/// SplitMix64 (Steele, Lea, Flood 2014).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Zipf over ids `0..n`: id `i` has weight `1 / (i + 1)^alpha`. Sampled by
/// inverse CDF: binary search of a uniform draw in the cumulative weights.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, alpha: f64) -> Zipf {
        let mut total = 0.0;
        let cumulative = (0..n)
            .map(|i| {
                total += 1.0 / ((i + 1) as f64).powf(alpha);
                total
            })
            .collect();
        Zipf { cumulative }
    }

    fn sample(&self, rng: &mut SplitMix64) -> u32 {
        let total = *self.cumulative.last().expect("non-empty");
        let u = rng.next_f64() * total;
        // First index whose cumulative weight exceeds u; u < total, so this
        // is always a valid index (the min guards against rounding).
        let i = self.cumulative.partition_point(|&c| c <= u);
        i.min(self.cumulative.len() - 1) as u32
    }
}

fn zipf_trace(alpha: f64, len: usize, seed: u64) -> Vec<u32> {
    let zipf = Zipf::new(UNIVERSE, alpha);
    let mut rng = SplitMix64(seed);
    (0..len).map(|_| zipf.sample(&mut rng)).collect()
}

/// `zipf` with a scan of `SCAN_LEN` fresh ids (numbered from `UNIVERSE` up,
/// never repeated) inserted after every `SCAN_EVERY` accesses. Returns the
/// trace and its id universe.
fn scan_polluted(zipf: &[u32]) -> (Vec<u32>, usize) {
    let scans = zipf.len() / SCAN_EVERY;
    let mut trace = Vec::with_capacity(zipf.len() + scans * SCAN_LEN);
    let mut next_fresh = UNIVERSE as u32;
    for chunk in zipf.chunks(SCAN_EVERY) {
        trace.extend_from_slice(chunk);
        if chunk.len() == SCAN_EVERY {
            trace.extend(next_fresh..next_fresh + SCAN_LEN as u32);
            next_fresh += SCAN_LEN as u32;
        }
    }
    (trace, next_fresh as usize)
}

// ---------------------------------------------------------------------------
// Reference policies.

trait Cache {
    /// Accesses `id`; returns true on a hit.
    fn access(&mut self, id: u32) -> bool;
}

/// FIFO: evicts the id inserted longest ago; hits do not reorder.
struct Fifo {
    queue: VecDeque<u32>,
    resident: Vec<bool>,
    capacity: usize,
}

impl Fifo {
    fn new(capacity: usize, universe: usize) -> Fifo {
        Fifo {
            queue: VecDeque::with_capacity(capacity),
            resident: vec![false; universe],
            capacity: capacity.max(1),
        }
    }
}

impl Cache for Fifo {
    fn access(&mut self, id: u32) -> bool {
        if self.resident[id as usize] {
            return true;
        }
        if self.queue.len() == self.capacity {
            let old = self.queue.pop_front().expect("full queue");
            self.resident[old as usize] = false;
        }
        self.queue.push_back(id);
        self.resident[id as usize] = true;
        false
    }
}

/// LRU as a doubly linked list threaded through per-id `prev`/`next`
/// arrays: head = most recent, tail = least recent.
struct Lru {
    prev: Vec<u32>,
    next: Vec<u32>,
    resident: Vec<bool>,
    head: u32,
    tail: u32,
    len: usize,
    capacity: usize,
}

const NIL: u32 = u32::MAX;

impl Lru {
    fn new(capacity: usize, universe: usize) -> Lru {
        Lru {
            prev: vec![NIL; universe],
            next: vec![NIL; universe],
            resident: vec![false; universe],
            head: NIL,
            tail: NIL,
            len: 0,
            capacity: capacity.max(1),
        }
    }

    fn unlink(&mut self, id: u32) {
        let (p, n) = (self.prev[id as usize], self.next[id as usize]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.len -= 1;
    }

    fn push_front(&mut self, id: u32) {
        self.prev[id as usize] = NIL;
        self.next[id as usize] = self.head;
        if self.head == NIL {
            self.tail = id;
        } else {
            self.prev[self.head as usize] = id;
        }
        self.head = id;
        self.len += 1;
    }
}

impl Cache for Lru {
    fn access(&mut self, id: u32) -> bool {
        if self.resident[id as usize] {
            self.unlink(id);
            self.push_front(id);
            return true;
        }
        if self.len == self.capacity {
            let victim = self.tail;
            self.unlink(victim);
            self.resident[victim as usize] = false;
        }
        self.push_front(id);
        self.resident[id as usize] = true;
        false
    }
}

/// A second, deliberately naive LRU (recency stamps in a `BTreeMap`), used
/// only to cross-check [`Lru`] on a short trace.
struct NaiveLru {
    stamp_of: HashMap<u32, u64>,
    by_stamp: BTreeMap<u64, u32>,
    clock: u64,
    capacity: usize,
}

impl Cache for NaiveLru {
    fn access(&mut self, id: u32) -> bool {
        self.clock += 1;
        let hit = match self.stamp_of.remove(&id) {
            Some(old) => {
                self.by_stamp.remove(&old);
                true
            }
            None => {
                if self.stamp_of.len() == self.capacity {
                    let (_, victim) = self.by_stamp.pop_first().expect("full");
                    self.stamp_of.remove(&victim);
                }
                false
            }
        };
        self.stamp_of.insert(id, self.clock);
        self.by_stamp.insert(self.clock, id);
        hit
    }
}

impl Cache for S3FifoSim {
    fn access(&mut self, id: u32) -> bool {
        let hit = S3FifoSim::access(self, id);
        debug_assert!(self.policy.len() <= self.policy.capacity());
        hit
    }
}

// ---------------------------------------------------------------------------
// Running.

fn hits(cache: &mut impl Cache, trace: &[u32]) -> usize {
    trace.iter().filter(|&&id| cache.access(id)).count()
}

/// Hit ratios (FIFO, LRU, S3-FIFO) of `trace` at `capacity`.
fn ratios(trace: &[u32], universe: usize, capacity: usize) -> [f64; 3] {
    let n = trace.len() as f64;
    let r = [
        hits(&mut Fifo::new(capacity, universe), trace) as f64 / n,
        hits(&mut Lru::new(capacity, universe), trace) as f64 / n,
        hits(&mut S3FifoSim::new(capacity, universe), trace) as f64 / n,
    ];
    for x in r {
        assert!((0.0..=1.0).contains(&x), "hit ratio {x} out of range");
    }
    r
}

fn sanity_checks() {
    // Tiny hand-checked sequences, capacity 2.
    // FIFO: 1 2 1(hit) 3(evicts 1) 1(miss, evicts 2) 2(miss).
    let seq = [1, 2, 1, 3, 1, 2];
    let got: Vec<bool> = {
        let mut c = Fifo::new(2, 4);
        seq.iter().map(|&id| c.access(id)).collect()
    };
    assert_eq!(got, [false, false, true, false, false, false], "FIFO");
    // LRU: 1 2 1(hit) 3(evicts 2) 1(hit) 2(miss, evicts 3).
    let got: Vec<bool> = {
        let mut c = Lru::new(2, 4);
        seq.iter().map(|&id| c.access(id)).collect()
    };
    assert_eq!(got, [false, false, true, false, true, false], "LRU");

    // The linked-list LRU agrees access-by-access with the naive one.
    let short = zipf_trace(0.9, 50_000, 7);
    for capacity in [1, 10, 300] {
        let mut fast = Lru::new(capacity, UNIVERSE);
        let mut naive = NaiveLru {
            stamp_of: HashMap::new(),
            by_stamp: BTreeMap::new(),
            clock: 0,
            capacity,
        };
        for (i, &id) in short.iter().enumerate() {
            assert_eq!(fast.access(id), naive.access(id), "LRU access {i}");
        }
    }

    // LRU is a stack algorithm: a bigger cache never hits less.
    let mut prev = 0;
    for capacity in [1, 10, 100, 1000, 10_000] {
        let h = hits(&mut Lru::new(capacity, UNIVERSE), &short);
        assert!(h >= prev, "LRU not monotone at capacity {capacity}");
        prev = h;
    }

    // A pure scan (every id new) never hits, whatever the policy.
    let scan: Vec<u32> = (0..50_000).collect();
    for capacity in [10, 1000] {
        assert_eq!(ratios(&scan, scan.len(), capacity), [0.0; 3], "scan");
    }
    // LRU also gets nothing from a cyclic scan just larger than the cache.
    let cyclic: Vec<u32> = (0..10).flat_map(|_| 0..1001).collect();
    assert_eq!(hits(&mut Lru::new(1000, 1001), &cyclic), 0, "cyclic LRU");

    // With the cache as large as the universe only compulsory misses remain,
    // identically for every policy.
    let distinct = short.iter().collect::<HashSet<_>>().len();
    let expected = (short.len() - distinct) as f64 / short.len() as f64;
    for capacity in [UNIVERSE, 2 * UNIVERSE] {
        assert_eq!(ratios(&short, UNIVERSE, capacity), [expected; 3], "huge");
    }
}

fn main() {
    sanity_checks();

    let zipf08 = zipf_trace(0.8, ACCESSES, 0x5EED_0008);
    let zipf10 = zipf_trace(1.0, ACCESSES, 0x5EED_0010);
    let (scanned, scanned_universe) = scan_polluted(&zipf10);
    let traces: [(&str, &[u32], usize); 3] = [
        ("Zipf α=0.8", &zipf08, UNIVERSE),
        ("Zipf α=1.0", &zipf10, UNIVERSE),
        ("Zipf α=1.0 + scans", &scanned, scanned_universe),
    ];
    let sizes = [UNIVERSE / 1000, UNIVERSE / 100, UNIVERSE / 10];

    let mut rows = Vec::new();
    for (name, trace, universe) in traces {
        for capacity in sizes {
            let r = ratios(trace, universe, capacity);
            if universe != UNIVERSE && capacity == SCAN_EVERY {
                // Each scan (longer than the cache) leaves only scan ids
                // resident, in the same order for FIFO and LRU; the next
                // SCAN_EVERY misses at most evict exactly those, so the two
                // policies hit identically.
                assert_eq!(r[0], r[1], "FIFO and LRU differ after scans");
            }
            rows.push((name, capacity, r));
        }
    }

    println!(
        "Hit ratios, universe {UNIVERSE} ids, {ACCESSES} Zipf accesses per trace; \
         scan trace: {SCAN_LEN} fresh ids after every {SCAN_EVERY} Zipf accesses \
         ({} accesses in all, scan accesses never hit, so at most {:.2}%).\n",
        scanned.len(),
        ACCESSES as f64 * 100.0 / scanned.len() as f64
    );
    println!("| trace | cache size | FIFO | LRU | S3-FIFO |");
    println!("|---|---:|---:|---:|---:|");
    for (name, capacity, [fifo, lru, s3]) in rows {
        let pct = capacity as f64 * 100.0 / UNIVERSE as f64;
        println!(
            "| {name} | {capacity} ({pct}%) | {:.2} | {:.2} | {:.2} |",
            fifo * 100.0,
            lru * 100.0,
            s3 * 100.0
        );
    }
}
