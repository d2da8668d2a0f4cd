//! The C ABI's overhead per call: the same lookups (line → span, offset →
//! line, a 40-line page into a buffer, and the line count, which does no
//! I/O and so shows the boundary's own cost) on the same file, through the Rust
//! API in this process and through `lidx.h` in `abi_overhead.c`, linked
//! against the release `liblidx.so` (built here with `cargo build
//! --release -p lidx-capi --lib`). Both sides run one warm-up pass, then
//! time N calls on the same pseudo-random sequence; their checksums must
//! agree before any time is reported.
//!
//! ```sh
//! cargo bench -p lidx-capi --no-default-features --bench abi_overhead [-- FILE [N]]
//! ```
//!
//! Without FILE, a 64 MiB log is generated in a temporary directory.
//! `--no-default-features` leaves out the remote sources (object_store), which
//! lookups on a local file do not use and which take long to build.

use lidx_core::{Index, OpenOptions};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const SEED: u64 = 0x2545_F491_4F6C_DD1D;

fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Nanoseconds per call and the checksum, as abi_overhead.c computes them.
fn rust_side(index: &Index, n: u64) -> Vec<(String, f64, u64)> {
    let lines = index.line_count();
    let size = index.source_len();
    let mut page = vec![0u8; 1 << 20];
    let mut out = Vec::new();
    let ops = ["line_span", "line_at", "read_40_lines", "line_count"];
    for (op, name) in ops.iter().enumerate() {
        let mut sum = 0u64;
        let mut t0 = Instant::now();
        for pass in 0..2 {
            let mut s = SEED;
            sum = 0;
            if pass == 1 {
                t0 = Instant::now();
            }
            for _ in 0..n {
                let r = next(&mut s);
                sum = sum.wrapping_add(match op {
                    0 => {
                        let span = index.line_span(r % lines).expect("line_span");
                        span.start ^ span.end
                    }
                    1 => index.line_at(r % size).expect("line_at"),
                    3 => black_box(index).line_count() ^ r,
                    _ => {
                        let l = r % lines;
                        let got = index
                            .read_lines_into(l..l + 40, black_box(&mut page))
                            .expect("read_lines_into");
                        assert!(got.read, "a 40-line page fits in 1 MiB");
                        got.len + got.lines
                    }
                });
            }
        }
        let ns = t0.elapsed().as_nanos() as f64 / n as f64;
        out.push((name.to_string(), ns, sum));
    }
    out
}

fn generate(path: &Path, bytes: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut s = SEED;
    let mut written = 0;
    let mut i = 0u64;
    while written < bytes {
        let r = next(&mut s);
        let line = format!(
            "2026-11-30T12:{:02}:{:02}Z INFO worker-{} request {i} took {} ms{}\n",
            (i / 60) % 60,
            i % 60,
            r % 8,
            r % 997,
            " pad".repeat((r >> 20) as usize % 30)
        );
        f.write_all(line.as_bytes()).unwrap();
        written += line.len();
        i += 1;
    }
    f.flush().unwrap();
}

/// The release liblidx.so, built with this benchmark's features.
fn release_library(dir: &Path) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "-p", "lidx-capi", "--lib"])
        .current_dir(dir);
    if !cfg!(feature = "remote") {
        cmd.arg("--no-default-features");
    }
    let st = cmd.status().expect("run cargo build --release");
    assert!(st.success(), "cargo build --release -p lidx-capi failed");
    // target/release/deps/abi_overhead-HASH -> target/release/liblidx.so
    let exe = std::env::current_exe().unwrap();
    let release = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    let so = release.join("liblidx.so");
    assert!(so.is_file(), "{} not built", so.display());
    so
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let file = match args.first() {
        Some(f) => PathBuf::from(f),
        None => {
            let f = tmp.path().join("bench.log");
            generate(&f, 64 << 20);
            f
        }
    };
    let n: u64 = args.get(1).map_or(200_000, |s| s.parse().expect("N"));
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let so = release_library(manifest);
    let exe = tmp.path().join("abi_overhead");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let libdir = so.parent().unwrap().display().to_string();
    let st = Command::new(&cc)
        .args(["-O2", "-std=c11", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(format!("-I{}", manifest.join("include").display()))
        .arg(manifest.join("benches/abi_overhead.c"))
        .arg(format!("-L{libdir}"))
        .arg("-llidx")
        .arg(format!("-Wl,-rpath,{libdir}"))
        .status()
        .expect("run cc");
    assert!(st.success(), "cc abi_overhead.c failed");

    // The sidecar is built here (untimed); both sides then open it fresh.
    let index = OpenOptions::new().open(&file).expect("open").index;
    let rust = rust_side(&index, n);
    let out = Command::new(&exe)
        .arg(&file)
        .arg(n.to_string())
        .arg(SEED.to_string())
        .output()
        .expect("run abi_overhead");
    assert!(
        out.status.success(),
        "abi_overhead: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: Vec<(String, f64, u64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(c.len(), rust.len(), "C printed {c:?}");
    println!(
        "{} ({} bytes, {} lines), {n} calls after a warm-up pass",
        file.display(),
        index.source_len(),
        index.line_count()
    );
    println!("| operation | Rust API ns/call | C ABI ns/call | overhead ns |");
    println!("|---|---:|---:|---:|");
    for ((name, r_ns, r_sum), (c_name, c_ns, c_sum)) in rust.iter().zip(&c) {
        assert_eq!((name, r_sum), (c_name, c_sum), "different answers");
        println!("| {name} | {r_ns:.1} | {c_ns:.1} | {:+.1} |", c_ns - r_ns);
    }
}
