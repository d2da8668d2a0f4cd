//! gzip sidecars (v1.1, spec §11): access-point records and window blobs.
//!
//! After the B+tree pages come `ap_pages` pages of kind 3 holding the
//! access-point records in increasing uncompressed offset, then `blob_pages`
//! pages of kind 4 whose payloads, concatenated, form the blob stream that
//! holds each access point's window, raw-deflate-compressed. Every page has
//! the usual 16-byte header (`count` = records, or payload bytes used) and
//! CRC.

use super::{PAGE_HEADER_LEN, PageHeader, PageKind, seal_page};

/// Bytes per access-point record.
pub const AP_RECORD_LEN: usize = 40;
/// The longest compressed window a record may hold: twice the
/// largest window plus 1 KiB.
pub const MAX_BLOB_LEN: u32 = 2 * 32768 + 1024;
/// Flag: the access point is a member's first block.
pub const AP_MEMBER_START: u16 = 1;

/// One access-point record (spec §11, table 19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ApRecord {
    /// Uncompressed offset.
    pub uncomp: u64,
    /// Compressed bit offset of the next deflate block.
    pub comp_bit: u64,
    /// Offset of the compressed window in the blob stream.
    pub blob_offset: u64,
    /// Length of the compressed window (0 for an empty window).
    pub blob_len: u32,
    /// Length of the window once decompressed (0..=32768).
    pub window_len: u16,
    /// [`AP_MEMBER_START`] or 0.
    pub flags: u16,
    /// CRC-32 of the text from this access point to the next one (or to
    /// the end): checked after decoding a span, so damage that still
    /// decodes (a flipped literal) is an error, not wrong lines.
    pub span_crc: u32,
    /// With piece CRCs (v1.5, §11.9): the slot of this span's first
    /// piece, the number of pieces of the spans before it; else 0.
    pub first_piece: u32,
}

impl ApRecord {
    /// Encodes into 40 bytes.
    pub fn encode(&self, b: &mut [u8]) {
        b[0..8].copy_from_slice(&self.uncomp.to_le_bytes());
        b[8..16].copy_from_slice(&self.comp_bit.to_le_bytes());
        b[16..24].copy_from_slice(&self.blob_offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.blob_len.to_le_bytes());
        b[28..30].copy_from_slice(&self.window_len.to_le_bytes());
        b[30..32].copy_from_slice(&self.flags.to_le_bytes());
        b[32..36].copy_from_slice(&self.span_crc.to_le_bytes());
        b[36..40].copy_from_slice(&self.first_piece.to_le_bytes());
    }

    /// Decodes 40 bytes.
    pub fn decode(b: &[u8]) -> ApRecord {
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        ApRecord {
            uncomp: u64_at(0),
            comp_bit: u64_at(8),
            blob_offset: u64_at(16),
            blob_len: u32::from_le_bytes(b[24..28].try_into().expect("4 bytes")),
            window_len: u16::from_le_bytes(b[28..30].try_into().expect("2 bytes")),
            flags: u16::from_le_bytes(b[30..32].try_into().expect("2 bytes")),
            span_crc: u32::from_le_bytes(b[32..36].try_into().expect("4 bytes")),
            first_piece: u32::from_le_bytes(b[36..40].try_into().expect("4 bytes")),
        }
    }
}

/// Pieces of a span of `len` bytes with pieces of `2^shift` bytes:
/// none when the span is no longer than one piece (its `span_crc` is the
/// piece's CRC), else one per started piece.
pub fn pieces_of(len: u64, shift: u8) -> u64 {
    if len <= 1u64 << shift {
        0
    } else {
        len.div_ceil(1u64 << shift)
    }
}

/// Piece CRCs per blob page.
pub fn pieces_per_page(page_size: u32) -> usize {
    blob_payload(page_size) / 4
}

/// Records per access-point page.
pub fn records_per_page(page_size: u32) -> usize {
    (page_size as usize - PAGE_HEADER_LEN) / AP_RECORD_LEN
}

/// Payload bytes per blob page.
pub fn blob_payload(page_size: u32) -> usize {
    page_size as usize - PAGE_HEADER_LEN
}

/// Encodes a page of `kind` (3 or 4) with `count` and `body` (placed after
/// the header), zero-filled and sealed.
pub fn encode_page(page: &mut [u8], kind: PageKind, page_id: u32, count: u16, body: &[u8]) {
    page.fill(0);
    PageHeader {
        crc: 0,
        kind: kind as u8,
        level: 0,
        count,
        page_id,
    }
    .encode(page);
    page[PAGE_HEADER_LEN..PAGE_HEADER_LEN + body.len()].copy_from_slice(body);
    seal_page(page);
}

/// Checks a raw page's header for `kind` and `page_id`; returns `count`.
pub fn check_page(
    page: &[u8],
    kind: PageKind,
    page_id: u32,
    max_count: usize,
) -> Result<usize, String> {
    let h = PageHeader::decode(page);
    if h.page_id != page_id {
        return Err(format!("page claims to be page {}", h.page_id));
    }
    if h.kind != kind as u8 || h.level != 0 {
        return Err(format!(
            "page kind {} level {} where a {kind:?} page was expected",
            h.kind, h.level
        ));
    }
    let n = h.count as usize;
    if n == 0 || n > max_count {
        return Err(format!("count {n} not in 1..={max_count}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trip() {
        let r = ApRecord {
            uncomp: 1 << 40,
            comp_bit: 12345,
            blob_offset: 99,
            blob_len: 7000,
            window_len: 32768,
            flags: 1,
            span_crc: 0xdead_beef,
            first_piece: 77,
        };
        let mut b = [0u8; AP_RECORD_LEN];
        r.encode(&mut b);
        assert_eq!(ApRecord::decode(&b), r);
        assert_eq!(records_per_page(4096), 102);
        assert_eq!(pieces_of(0, 16), 0);
        assert_eq!(pieces_of(65536, 16), 0);
        assert_eq!(pieces_of(65537, 16), 2);
        assert_eq!(pieces_of(1 << 20, 16), 16);
    }
}
