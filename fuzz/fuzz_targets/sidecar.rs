//! Arbitrary bytes as a sidecar of a small fixed source (plain text, or
//! its gzip archive): opening and every query must return a value or an
//! error, never panic, loop or allocate by an absurd header value; and when
//! `verify(true)` accepts the sidecar, every answer must be exact.
//!
//! Input: a mode byte (`common::FIX_CRCS`, `common::GZIP_SOURCE`), then the
//! sidecar bytes. With `FIX_CRCS` the CRCs are recomputed after mutation,
//! so the fuzzer explores what lies behind them: node parsing, tree
//! invariants, access-point records, compressed windows.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use lidx::io::MemSource;
use lidx::Index;
use std::sync::OnceLock;

static SOURCES: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (text, archive) = SOURCES.get_or_init(|| (common::text(), common::archive()));
    let mut sidecar = rest.to_vec();
    if mode & common::FIX_CRCS != 0 {
        common::fix_crcs(&mut sidecar);
    }
    let source = if mode & common::GZIP_SOURCE != 0 { archive } else { text };
    let Ok(index) = Index::from_parts(
        Box::new(MemSource::new(source.clone())),
        Box::new(MemSource::new(sidecar)),
        (0, 0),
        1 << 16,
    ) else {
        return;
    };
    // Exact answers are due only from an index that describes the source
    // as it is (a prefix of it would be an "appended" verdict).
    let verified = index.verify(true).is_ok() && index.verdict() == lidx::Verdict::Unchanged;
    // What a verified index describes: the archive's text when it is a
    // gzip sidecar over the archive, else the source bytes themselves.
    let gzip = index.superblock().source_kind == lidx::format::SOURCE_KIND_GZIP;
    let want: &[u8] = if gzip { text } else { source };
    let starts: Vec<u64> = std::iter::once(0)
        .chain(want.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i as u64 + 1))
        .filter(|&s| s < want.len() as u64)
        .collect();
    if verified {
        assert_eq!(index.line_count(), starts.len() as u64);
    }
    for line in 0..index.line_count().min(128) {
        let got = index.line_start(line);
        if verified {
            assert_eq!(got.unwrap(), starts[line as usize]);
        }
    }
    for off in 0..(want.len() as u64 + 2) {
        let got = index.line_at(off);
        if verified && off < want.len() as u64 {
            let want_line = starts.partition_point(|&s| s <= off) as u64 - 1;
            assert_eq!(got.unwrap(), want_line);
        } else if verified {
            assert!(got.is_err(), "offset {off} past the end");
        }
    }
    // Read the lines themselves (through the decoded spans for gzip).
    let mut out = Vec::new();
    let got = index.write_lines(0..index.line_count().min(128), false, &mut out);
    if verified {
        got.unwrap();
        assert_eq!(out, want);
    }
    let mut buf = lidx::LineBuf::new();
    let got = index.read_lines(0..index.line_count().min(128), &mut buf);
    if verified {
        got.unwrap();
        assert_eq!(buf.bytes(), want);
    }
    // Reads straight from the source at every third offset (through the
    // access points for gzip), past the end included.
    let mut small = [0u8; 7];
    for off in (0..(want.len() as u64 + 2)).step_by(3) {
        let got = index.source().read_full_at(&mut small, off);
        if verified {
            let n = got.unwrap();
            let at = (off as usize).min(want.len());
            assert_eq!(&small[..n], &want[at..(at + 7).min(want.len())]);
        }
    }
});
