//! In-process lookup latency: B+tree descent line→checkpoint and
//! offset→checkpoint with the page cache warm, at 10^4 … 10^8 checkpoints,
//! and the in-node Eytzinger search against `slice::partition_point`.
//!
//! `cargo bench --bench lookup [-- MAX_CHECKPOINTS]` (default 10^8; the
//! 10^8 case builds a 1.6 GB sidecar in memory from a 200 MB source).
//! Every configuration first checks its answers against an independent
//! computation, then times 5 batches of 10^6 random lookups and prints the
//! median nanoseconds per lookup.

use lidx::format::eytzinger;
use lidx::io::MemSource;
use lidx::{BuildOptions, Index};
use std::hint::black_box;
use std::time::Instant;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn median_ns(batches: usize, per_batch: usize, mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..batches)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64 / per_batch as f64
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// An index with exactly `n` checkpoints: `n` lines "x\n", spacing 1;
/// with a page-cache budget of `cache(sidecar bytes)`.
fn index_with(n: u64, cache: impl Fn(usize) -> usize) -> Index {
    let src = b"x\n".repeat(n as usize);
    let opts = BuildOptions {
        spacing: 1,
        ..BuildOptions::default()
    };
    let sidecar = lidx::build_to_vec(&MemSource::new(src.clone()), &opts).expect("build");
    let cache = cache(sidecar.len());
    Index::from_parts(
        Box::new(MemSource::new(src)),
        Box::new(MemSource::new(sidecar)),
        (0, 0),
        cache,
    )
    .expect("open")
}

/// ns per lookup by line, by offset, by line for nearby targets, and by
/// line when each target depends on the previous answer (latency, not
/// throughput: the next lookup cannot start before the last one ends).
fn time_lookups(index: &Index, n: u64) -> (f64, f64, f64, f64) {
    const Q: usize = 1_000_000;
    let mut rng = Rng(n);
    let lines: Vec<u64> = (0..Q).map(|_| rng.next() % n).collect();
    let offsets: Vec<u64> = (0..Q).map(|_| rng.next() % (2 * n)).collect();
    // Check (and warm every page touched), then make enough lookups for
    // the flat copy to be made where the budget has room for it (the
    // index makes it after 256 + n/16).
    for (&l, &o) in lines.iter().zip(&offsets) {
        let cp = index.checkpoint_for_line(l).unwrap();
        assert_eq!((cp.line, cp.offset), (l, 2 * l));
        let cp = index.checkpoint_for_offset(o).unwrap();
        assert_eq!((cp.line, cp.offset), (o / 2, o / 2 * 2));
    }
    for k in 0..(n / 16 + 512) as usize {
        black_box(index.checkpoint_for_line(lines[k % Q]).unwrap());
    }
    let by_line = median_ns(5, Q, || {
        for &l in &lines {
            black_box(index.checkpoint_for_line(black_box(l)).unwrap());
        }
    });
    let by_off = median_ns(5, Q, || {
        for &o in &offsets {
            black_box(index.checkpoint_for_offset(black_box(o)).unwrap());
        }
    });
    // A viewer's pattern: each target near the previous one (scrolling,
    // paging), so the path is mostly in CPU cache.
    let mut near = Vec::with_capacity(Q);
    let mut at = n / 2;
    for _ in 0..Q {
        at = (at + rng.next() % 2001).saturating_sub(1000).min(n - 1);
        near.push(at);
    }
    let local = median_ns(5, Q, || {
        for &l in &near {
            black_box(index.checkpoint_for_line(black_box(l)).unwrap());
        }
    });
    let chained = median_ns(5, Q, || {
        let mut prev = 0u64;
        for &l in &lines {
            // (n is even: l ^ 1 < n; an offset is 2 * line, so prev is 0,
            // which the compiler cannot know.)
            let cp = index.checkpoint_for_line(l ^ (prev & 1)).unwrap();
            prev = cp.offset;
        }
        black_box(prev);
    });
    (by_line, by_off, local, chained)
}

/// The B+tree alone (a budget that holds the sidecar but leaves no room
/// for a flat copy of its leaves: under half of it), against the flat
/// copy the index makes once lookups are hot (a budget with room: about
/// 20 bytes a checkpoint, twice over).
fn bench_tree(n: u64) {
    let t = Instant::now();
    let tree = index_with(n, |sidecar| sidecar + (64 << 10));
    let built = t.elapsed().as_secs_f64();
    assert_eq!(tree.superblock().checkpoint_count, n);
    let (tl, to, tn, tc) = time_lookups(&tree, n);
    let (pages, height) = (tree.superblock().page_count, tree.superblock().height);
    drop(tree);
    let flat = index_with(n, |sidecar| sidecar + 40 * n as usize + (64 << 20));
    let (fl, fo, fnear, fc) = time_lookups(&flat, n);
    println!(
        "| {n:>11} | {pages:>6} | {height} | {tl:>7.1} | {fl:>7.1} | {to:>7.1} | {fo:>7.1} | {tn:>7.1} | {fnear:>7.1} | {tc:>7.1} | {fc:>7.1} | {built:.1} s |",
    );
}

fn bench_node(keys: usize) {
    let mut rng = Rng(keys as u64);
    let mut sorted: Vec<u64> = (0..keys).map(|_| rng.next() % 1_000_000_000).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut eyt = vec![0u64; sorted.len()];
    eytzinger::layout(&sorted, &mut eyt);
    let eyt: Vec<u64> = eyt.iter().map(|k| k.to_le()).collect();
    const Q: usize = 1_000_000;
    let targets: Vec<u64> = (0..Q).map(|_| rng.next() % 1_000_000_000).collect();
    for &t in targets.iter().take(10_000) {
        let a = eytzinger::predecessor(&eyt, t).map(|i| u64::from_le(eyt[i]));
        let b = sorted
            .partition_point(|&k| k <= t)
            .checked_sub(1)
            .map(|i| sorted[i]);
        assert_eq!(a, b);
    }
    let e = median_ns(5, Q, || {
        for &t in &targets {
            black_box(eytzinger::predecessor(black_box(&eyt), t));
        }
    });
    let p = median_ns(5, Q, || {
        for &t in &targets {
            black_box(black_box(&sorted).partition_point(|&k| k <= t));
        }
    });
    println!(
        "| {:>5} | {e:>10.2} | {p:>10.2} | {:.2}x |",
        sorted.len(),
        p / e
    );
}

/// Memory latency: a dependent pointer chase through `bytes` of memory in
/// random order (one cache line per step). Independent support for what
/// binds a random lookup in a sidecar of that size.
fn chase(bytes: usize) -> f64 {
    let n = bytes / 64;
    let stride = 8; // u64s per 64-byte line
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Rng(bytes as u64);
    for i in (1..n).rev() {
        order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    let mut next = vec![0u64; n * stride];
    for w in 0..n {
        next[order[w] * stride] = (order[(w + 1) % n] * stride) as u64;
    }
    const STEPS: usize = 2_000_000;
    let mut p = 0usize;
    median_ns(3, STEPS, || {
        for _ in 0..STEPS {
            p = next[p] as usize;
        }
        black_box(p);
    })
}

/// Cost of a page-cache hit alone: `with_page` on resident pages.
fn bench_hit() -> f64 {
    let index = index_with(64 * 255, |s| s + (64 << 20));
    let cache = lidx::cache::PageCache::new(
        Box::new(MemSource::new(
            lidx::build_to_vec(
                &MemSource::new(b"x\n".repeat(64 * 255)),
                &BuildOptions {
                    spacing: 1,
                    ..BuildOptions::default()
                },
            )
            .unwrap(),
        )),
        4096,
        index.superblock().page_count,
        index.superblock().page_count,
        1 << 20,
    );
    let pages = index.superblock().page_count;
    let mut rng = Rng(7);
    const Q: usize = 1_000_000;
    let ids: Vec<u32> = (0..Q)
        .map(|_| 1 + (rng.next() % (pages as u64 - 1)) as u32)
        .collect();
    for &id in &ids {
        assert_eq!(cache.with_page(id, |p| p.id()).unwrap(), id);
    }
    median_ns(5, Q, || {
        for &id in &ids {
            black_box(cache.with_page(black_box(id), |p| p.id()).unwrap());
        }
    })
}

fn main() {
    let max: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000_000);
    println!("In-node search, ns per search (median of 5 x 10^6 random targets):\n");
    println!("| keys  | Eytzinger  | partition_point | ratio |");
    println!("|------:|-----------:|----------------:|------:|");
    for k in [31, 204, 255, 4096] {
        bench_node(k);
    }
    println!("\nMemory latency (dependent random loads, one per 64-byte line), ns per load:\n");
    println!("| working set | ns/load |");
    println!("|------------:|--------:|");
    for mb in [1usize, 16, 1600] {
        if (mb as u64) * 1_000_000 / 16_000 <= max {
            println!("| {mb:>8} MB | {:>7.1} |", chase(mb << 20));
        }
    }
    println!(
        "\nPage-cache hit (with_page on a resident page, random among 64), ns per call: {:.1}",
        bench_hit()
    );
    println!("\nTree lookups with the cache warm, ns per lookup (median of 5 x 10^6 targets;");
    println!("'nearby' = each target within ±1000 lines of the previous, as a viewer scrolls):\n");
    println!(
        "Each pair: the B+tree alone, then the flat copy of its leaves made once lookups are hot.\n"
    );
    println!(
        "| checkpoints |  pages | height | line→cp tree | flat | offset→cp tree | flat | nearby tree | flat | dependent tree | flat | build |"
    );
    println!(
        "|------------:|-------:|-------:|-------------:|-----:|---------------:|-----:|------------:|-----:|---------------:|-----:|------:|"
    );
    let mut n = 10_000;
    while n <= max {
        bench_tree(n);
        n *= 100;
    }
}
