//! Arbitrary source bytes with a fuzzer-chosen spacing, page size and read
//! buffer, as a plain file or (mode bit) as a gzip archive of them with a
//! sync flush every few bytes and a tiny span: every answer of the built
//! index must equal the naive oracle (split on `\n`), the lines read back
//! must be the bytes, and `verify(true)` must pass.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lidx::io::MemSource;
use lidx::{BuildOptions, Index};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let spacing = 1 + u16::from_le_bytes([data[0], data[1]]) as u64 % 300;
    let page_size = if data[2] & 1 == 0 { 512 } else { 4096 };
    let gzip = data[2] & 2 != 0;
    let src = &data[3..];
    let source = if gzip {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(data[0] as u32 % 10));
        for piece in src.chunks(1 + data[1] as usize % 200) {
            e.write_all(piece).unwrap();
            e.flush().unwrap();
        }
        e.finish().unwrap()
    } else {
        src.to_vec()
    };
    let opts = BuildOptions {
        spacing,
        page_size,
        buffer_size: 1 + (data[2] >> 2) as usize,
        span: 1 + data[1] as u64 % 100,
        // Pieces of 512 bytes (spec §11.9) where a span is longer, or none.
        piece_shift: if data[2] & 0x80 != 0 { 9 } else { 0 },
        // Plain mode indexes the bytes as they are, even `1F 8B ...`.
        plain: !gzip,
        time: None,
        // The parallel scan (workers > 1) must give the same index.
        threads: 1 + (data[2] & 3) as usize,
    };
    let index = Index::build_in_memory(Box::new(MemSource::new(source)), &opts).expect("build");
    let lines: Vec<&[u8]> = src.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(index.line_count(), lines.len() as u64);
    let mut at = 0u64;
    for (i, l) in lines.iter().enumerate() {
        let span = index.line_span(i as u64).unwrap();
        assert_eq!(span, at..at + l.len() as u64);
        for off in span.clone() {
            assert_eq!(index.line_at(off).unwrap(), i as u64);
        }
        at = span.end;
    }
    assert!(index.line_span(lines.len() as u64).is_err());
    let mut out = Vec::new();
    index.write_lines(0..lines.len() as u64, false, &mut out).unwrap();
    assert_eq!(out, src);
    index.verify(true).unwrap();
});
