//! Ingest read-buffer size, measured warm and cold: the scan of a real file
//! with `pread` buffers of 64 KiB … 4 MiB (pages written to memory, so only
//! the read and the newline count are timed).
//!
//! `cargo bench --bench ingest_buffer -- FILE` (a multi-GB file, e.g. the
//! one `benches/compare.sh` generates). Cold runs evict FILE from the page
//! cache before each run with `benches/evict.py` (posix_fadvise DONTNEED).
//! Every run's sidecar must be byte-identical to the first one's.

use lidx::ingest::{self, BuildOptions, SourceInfo};
use lidx::io::FileSource;
use std::path::Path;
use std::time::Instant;

fn run(path: &Path, buffer_size: usize) -> (f64, Vec<u8>) {
    let src = FileSource::open(path).expect("open");
    let info = SourceInfo {
        mtime: (0, 0),
        name: Vec::new(),
    };
    let opts = BuildOptions {
        buffer_size,
        ..BuildOptions::default()
    };
    let mut pages = vec![0u8; opts.page_size as usize];
    let t = Instant::now();
    let sb = ingest::build(&src, &info, &opts, &mut pages, &mut |_| true).expect("build");
    let secs = t.elapsed().as_secs_f64();
    pages[..256].copy_from_slice(&sb.encode());
    (secs, pages)
}

fn evict(path: &Path) {
    let ok = std::process::Command::new("python3")
        .arg("benches/evict.py")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "benches/evict.py failed");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let Some(file) = std::env::args().skip(1).find(|a| !a.starts_with('-')) else {
        eprintln!("usage: cargo bench --bench ingest_buffer -- FILE");
        return;
    };
    let path = Path::new(&file);
    let size = std::fs::metadata(path).expect("stat").len() as f64;
    let (_, reference) = run(path, ingest::BUFFER_SIZE);
    println!("| buffer | warm median of 3 | warm GB/s | cold median of 3 | cold GB/s |");
    println!("|-------:|-----------------:|----------:|-----------------:|----------:|");
    for kib in [64usize, 128, 256, 1024, 4096] {
        let mut warm = Vec::new();
        let mut cold = Vec::new();
        for _ in 0..3 {
            let (t, pages) = run(path, kib << 10);
            assert!(
                pages == reference,
                "buffer {kib} KiB built a different sidecar"
            );
            warm.push(t);
        }
        for _ in 0..3 {
            evict(path);
            let (t, pages) = run(path, kib << 10);
            assert!(
                pages == reference,
                "buffer {kib} KiB built a different sidecar"
            );
            cold.push(t);
        }
        let (w, c) = (median(warm), median(cold));
        println!(
            "| {kib:>4} KiB | {:>13.0} ms | {:>9.2} | {:>13.0} ms | {:>9.2} |",
            w * 1e3,
            size / w / 1e9,
            c * 1e3,
            size / c / 1e9
        );
    }
}
