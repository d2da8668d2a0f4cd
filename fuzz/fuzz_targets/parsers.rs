//! The parsers of bytes that come from outside, each fed arbitrary input:
//! the zstd seek table's footer and entries and the sidecar's frame
//! records (what parses encodes back to the same bytes), gzip member
//! headers (a length inside the input), and the time grammar of
//! `--since`/`--until` (a value or an error, never a panic). Mode byte
//! first.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lidx::format::zstd::{FOOTER_LEN, FRAME_RECORD_LEN, FrameRecord, SeekTable};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, input)) = data.split_first() else { return };
    match mode % 4 {
        0 => {
            if input.len() < FOOTER_LEN {
                return;
            }
            let (entries, footer) = input.split_at(input.len() - FOOTER_LEN);
            let Ok(f) = SeekTable::parse_footer(footer.try_into().unwrap()) else { return };
            if let Ok(t) = SeekTable::parse_entries(&f, entries) {
                // The skippable frame that encodes it parses back the same.
                let enc = t.encode();
                let foot: [u8; FOOTER_LEN] = enc[enc.len() - FOOTER_LEN..].try_into().unwrap();
                let f2 = SeekTable::parse_footer(&foot).expect("encoded footer parses");
                let body = &enc[8..enc.len() - FOOTER_LEN];
                let t2 = SeekTable::parse_entries(&f2, body).expect("encoded entries parse");
                assert_eq!(t2.entries, t.entries);
            }
        }
        1 => {
            if input.len() < FRAME_RECORD_LEN {
                return;
            }
            let b = &input[..FRAME_RECORD_LEN];
            if let Some(r) = FrameRecord::decode(b) {
                let mut out = [0u8; FRAME_RECORD_LEN];
                r.encode(&mut out);
                assert_eq!(&out[..], b);
            }
        }
        2 => {
            if let Ok(n) = lidx::gzip::header::parse(input) {
                assert!(n >= 10 && n <= input.len(), "header of {n} bytes in {}", input.len());
            }
        }
        _ => {
            let s = String::from_utf8_lossy(input);
            for tz in ["UTC", "Europe/Paris"] {
                let _ = lidx::time::parse_expr(&s, tz, 1_800_000_000_000_000_000);
            }
        }
    }
});
