//! Arbitrary bytes as a sidecar of a small fixed source: opening and every
//! query must return a value or an error, never panic, loop or allocate by
//! an absurd header value; and when `verify(true)` accepts the sidecar,
//! every answer must be exact.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lidx::io::MemSource;
use lidx::Index;

const SOURCE: &[u8] = b"alpha\nbeta\r\n\n\x00gamma\xff\nlast line without newline";

fuzz_target!(|data: &[u8]| {
    let Ok(index) = Index::from_parts(
        Box::new(MemSource::new(SOURCE.to_vec())),
        Box::new(MemSource::new(data.to_vec())),
        (0, 0),
        1 << 16,
    ) else {
        return;
    };
    let verified = index.verify(true).is_ok();
    let starts: Vec<u64> = std::iter::once(0)
        .chain(SOURCE.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i as u64 + 1))
        .filter(|&s| s < SOURCE.len() as u64)
        .collect();
    for line in 0..index.line_count().min(64) {
        let got = index.line_start(line);
        if verified {
            assert_eq!(got.unwrap(), starts[line as usize]);
        }
    }
    for off in 0..SOURCE.len() as u64 {
        let got = index.line_at(off);
        if verified {
            let want = starts.partition_point(|&s| s <= off) as u64 - 1;
            assert_eq!(got.unwrap(), want);
        }
    }
});
