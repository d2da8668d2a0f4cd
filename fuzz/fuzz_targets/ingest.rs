//! Arbitrary source bytes with a fuzzer-chosen spacing and page size: every
//! answer of the built index must equal the naive oracle (split on `\n`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lidx::io::MemSource;
use lidx::{BuildOptions, Index};

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let spacing = 1 + u16::from_le_bytes([data[0], data[1]]) as u64 % 300;
    let page_size = if data[2] & 1 == 0 { 512 } else { 4096 };
    let src = &data[3..];
    // A source starting with the gzip magic is treated as gzip; the plain
    // path is what this target checks.
    if src.starts_with(&[0x1f, 0x8b]) {
        return;
    }
    let opts = BuildOptions { spacing, page_size, buffer_size: 1 + data[2] as usize, ..BuildOptions::default() };
    let index = Index::build_in_memory(Box::new(MemSource::new(src.to_vec())), &opts).expect("build");
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
    index.verify(true).unwrap();
});
