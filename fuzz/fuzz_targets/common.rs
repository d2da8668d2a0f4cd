//! What the `sidecar` target and the seed maker share: the fixed source
//! text, its gzip archive, the mode byte, and the CRC fix-up.
#![allow(dead_code)]

use std::io::Write;

/// The text every sidecar input is a sidecar of: 70 short lines (CRLF, NUL,
/// invalid UTF-8, an empty line), the last without a newline. With 512-byte
/// pages and spacing 1 its tree has three leaves under a root.
pub fn text() -> Vec<u8> {
    let mut t = Vec::new();
    for i in 0..69u32 {
        match i % 7 {
            0 => t.extend_from_slice(b"alpha\n"),
            1 => t.extend_from_slice(b"beta\r\n"),
            2 => t.extend_from_slice(b"\n"),
            3 => t.extend_from_slice(b"\x00gamma\xff\n"),
            _ => t.extend_from_slice(format!("line {i}\n").as_bytes()),
        }
    }
    t.extend_from_slice(b"last line without newline");
    t
}

/// `text()` gzip-compressed with a sync flush every 48 bytes: a block
/// boundary, hence an access point, about every span of 32 bytes.
pub fn archive() -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    for piece in text().chunks(48) {
        e.write_all(piece).unwrap();
        e.flush().unwrap();
    }
    e.finish().unwrap()
}

/// Mode bit: recompute the superblock CRC and every page CRC before
/// opening, so that mutations reach the parsing and validation behind the
/// CRCs (a crafted sidecar, as in redb's fuzzing).
pub const FIX_CRCS: u8 = 1;
/// Mode bit: the source is `archive()`, not `text()`.
pub const GZIP_SOURCE: u8 = 2;

/// Makes every CRC of `sidecar` match its bytes (as far as its superblock's
/// page size is plausible).
pub fn fix_crcs(sidecar: &mut [u8]) {
    if sidecar.len() < lidx::format::SUPERBLOCK_LEN {
        return;
    }
    let crc = lidx::format::crc32(&sidecar[..252]);
    sidecar[252..256].copy_from_slice(&crc.to_le_bytes());
    let page = u32::from_le_bytes(sidecar[12..16].try_into().unwrap());
    if !lidx::format::valid_page_size(page) {
        return;
    }
    for p in sidecar.chunks_exact_mut(page as usize).skip(1) {
        let crc = lidx::format::crc32(&p[4..]);
        p[..4].copy_from_slice(&crc.to_le_bytes());
    }
}
