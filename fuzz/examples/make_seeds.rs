//! Writes the `sidecar` target's seeds into `seeds/sidecar/`: intact
//! sidecars of the fixed text and of its gzip archive (512-byte pages,
//! spacing 1 and 4, span 32), each with and without the CRC fix-up mode.
//! (It leaves the `*-1.1` seeds alone: the same sidecars in the layout of
//! format 1.1, which this version no longer writes.)
//!
//! Run from `fuzz/`: `cargo run --example make_seeds`.

#[path = "../fuzz_targets/common.rs"]
mod common;

use lidx::io::MemSource;
use lidx::BuildOptions;

fn main() {
    let dir = std::path::Path::new("seeds/sidecar");
    std::fs::create_dir_all(dir).unwrap();
    let plain = BuildOptions { spacing: 1, page_size: 512, ..BuildOptions::default() };
    let gzip = BuildOptions { spacing: 4, page_size: 512, span: 32, ..BuildOptions::default() };
    let cases = [
        ("plain", 0, lidx::build_to_vec(&MemSource::new(common::text()), &plain).unwrap()),
        ("gzip", common::GZIP_SOURCE, lidx::build_to_vec(&MemSource::new(common::archive()), &gzip).unwrap()),
    ];
    for (name, mode, sidecar) in cases {
        for (suffix, extra) in [("", 0), ("-fix", common::FIX_CRCS)] {
            let mut seed = vec![mode | extra];
            seed.extend_from_slice(&sidecar);
            let path = dir.join(format!("{name}{suffix}"));
            std::fs::write(&path, &seed).unwrap();
            println!("{}: {} bytes", path.display(), seed.len());
        }
    }
}
