//! Pure encode/decode of the on-disk sidecar bytes: no I/O here.
//!
//! The layout is specified in `format-spec/sidecar-v1.md`; the comments in
//! this module cite its requirement numbers (`R-n`) instead of repeating it.
//! A sidecar is a sequence of fixed-size pages: page 0 holds the
//! [`Superblock`], every other page is a B+tree node ([`node`]) with a
//! 16-byte [`PageHeader`] whose CRC covers the rest of the page (a gzip
//! sidecar adds access-point and blob pages, [`gzip`]). Since format 1.2
//! the internal nodes come first, root at page 1, then the leaves
//! ([`COMPAT_HEAD_FIRST`], R-19, R-63); files of 1.0 and 1.1, whose
//! internal nodes lie among the leaves, are read the same way, by page
//! number.
//!
//! [`compressed`] is not sidecar bytes: it names the compression formats a
//! source may be in that lidx refuses, for the error messages.

pub mod compressed;
pub mod eytzinger;
pub mod family;
pub mod gzip;
pub mod node;
mod superblock;
pub mod time;
pub mod verdict;
pub mod zstd;

pub use superblock::{
    FINGERPRINT_BLOCK, Fingerprint, GzipFields, SOURCE_NAME_MAX, Superblock, SuperblockError,
};

/// The 8 magic bytes that open every sidecar.
pub const MAGIC: [u8; 8] = *b"\x89LIDX\r\n\x1a";
/// Major format version written and read by this build.
pub const VERSION_MAJOR: u16 = 1;
/// Minor format version written by this build, for plain and gzip sources
/// alike: 2, the head-first layout ([`COMPAT_HEAD_FIRST`]).
pub const VERSION_MINOR: u16 = 2;
/// Minor format version of zstd sidecars (§13, new in 1.3): readers of
/// 1.2 refuse them by their incompatible feature bit ([`INCOMPAT_ZSTD`]).
pub const VERSION_MINOR_ZSTD: u16 = 3;
/// Default page size in bytes.
pub const DEFAULT_PAGE_SIZE: u32 = 4096;
/// Smallest allowed page size.
pub const MIN_PAGE_SIZE: u32 = 512;
/// Largest allowed page size.
pub const MAX_PAGE_SIZE: u32 = 65536;
/// Length of the superblock record at the start of page 0.
pub const SUPERBLOCK_LEN: usize = 256;
/// Length of the header at the start of every node page.
pub const PAGE_HEADER_LEN: usize = 16;

/// Key kind 1: keys are line numbers and byte offsets, stored as themselves.
pub const KEY_KIND_LINE_OFFSET: u8 = 1;
/// Source kind 0: the source is plain bytes.
pub const SOURCE_KIND_PLAIN: u8 = 0;
/// Source kind 1: the source is gzip; line numbers and offsets are those of
/// the uncompressed text (format v1.1, spec §11).
pub const SOURCE_KIND_GZIP: u8 = 1;

/// Source kind 2: the source is a zstd seekable archive; line numbers and
/// offsets are those of the uncompressed text (format v1.3, spec §13).
pub const SOURCE_KIND_ZSTD: u8 = 2;

/// Incompatible feature bit 0: gzip source with access points (v1.1).
pub const INCOMPAT_GZIP: u32 = 1;
/// Incompatible feature bit 1: zstd seekable source with frame records
/// (v1.3, spec §13).
pub const INCOMPAT_ZSTD: u32 = 2;
/// Incompatible feature bits understood by this build.
pub const INCOMPAT_KNOWN: u32 = INCOMPAT_GZIP | INCOMPAT_ZSTD;
/// Compatible feature bit 0, *HEAD_FIRST* (v1.2, spec ): the
/// superblock and every internal node lie in pages `0..head_pages`, root
/// first, and the leaves follow them, contiguous and in key order. A reader
/// may fetch the head in one read; it never needs the bit to read the file.
pub const COMPAT_HEAD_FIRST: u32 = 1;
/// Compatible feature bit 1, *TIME_INDEX* (v1.2, spec §12): the sidecar
/// holds a time index, whose header is page `time_page`; its pages lie
/// between the last leaf of the line tree and the end of the node pages.
/// A reader that ignores the bit reads the line index as before.
pub const COMPAT_TIME_INDEX: u32 = 2;
/// Compatible feature bit 2, *PIECE_CRCS* (v1.5, spec §11.9): a gzip
/// sidecar's blob stream ends with the CRC-32 of every piece of
/// `2^piece_shift` bytes of the spans longer than that, so a reader can
/// check the text it decodes piece by piece and stop where its answer
/// ends. A reader that ignores the bit checks whole spans as before.
pub const COMPAT_PIECE_CRCS: u32 = 4;
/// Minor format version of a sidecar with [`COMPAT_PIECE_CRCS`].
pub const VERSION_MINOR_PIECES: u16 = 5;
/// The shortest piece a sidecar may record: 2^9 = 512 bytes.
pub const MIN_PIECE_SHIFT: u8 = 9;
/// The longest piece: 2^30 bytes.
pub const MAX_PIECE_SHIFT: u8 = 30;

/// CRC-32/ISO-HDLC (the zlib/PNG CRC), as computed by `crc32fast`.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// The kind byte of a node page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// A leaf: checkpoints (line, offset).
    Leaf = 1,
    /// An internal node: separators and child page numbers.
    Internal = 2,
    /// gzip: a page of access-point records (spec §11).
    AccessPoints = 3,
    /// gzip: a page of the window blob stream (spec §11).
    Blob = 4,
    /// The time index's header (spec §12).
    TimeHeader = 5,
    /// zstd: a page of frame records (spec §13).
    Frames = 6,
}

/// The 16-byte header of every node page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageHeader {
    /// CRC-32 of bytes `4..page_size` of the page.
    pub crc: u32,
    /// Raw kind byte (see [`PageKind`]).
    pub kind: u8,
    /// 0 for leaves, parent level = child level + 1.
    pub level: u8,
    /// Number of entries in the node.
    pub count: u16,
    /// The page's own number, so a page copied to the wrong place is caught.
    pub page_id: u32,
}

impl PageHeader {
    /// Decodes the header from the first 16 bytes of a page.
    pub fn decode(page: &[u8]) -> PageHeader {
        PageHeader {
            crc: u32::from_le_bytes(page[0..4].try_into().expect("4 bytes")),
            kind: page[4],
            level: page[5],
            count: u16::from_le_bytes(page[6..8].try_into().expect("2 bytes")),
            page_id: u32::from_le_bytes(page[8..12].try_into().expect("4 bytes")),
        }
    }

    /// Encodes the header (CRC field as given) into the first 16 bytes.
    pub fn encode(&self, page: &mut [u8]) {
        page[0..4].copy_from_slice(&self.crc.to_le_bytes());
        page[4] = self.kind;
        page[5] = self.level;
        page[6..8].copy_from_slice(&self.count.to_le_bytes());
        page[8..12].copy_from_slice(&self.page_id.to_le_bytes());
        page[12..16].fill(0);
    }
}

/// Computes the CRC a node page must carry: over bytes `4..`.
pub fn page_crc(page: &[u8]) -> u32 {
    crc32(&page[4..])
}

/// Stores the CRC of `page[4..]` into `page[0..4]`.
pub fn seal_page(page: &mut [u8]) {
    let crc = page_crc(page);
    page[0..4].copy_from_slice(&crc.to_le_bytes());
}

/// Entries per leaf for a page size: each entry is 16 bytes (line, offset).
pub fn leaf_capacity(page_size: u32) -> usize {
    (page_size as usize - PAGE_HEADER_LEN) / 16
}

/// Children per internal node: each child is 20 bytes (line, offset, page).
pub fn internal_capacity(page_size: u32) -> usize {
    (page_size as usize - PAGE_HEADER_LEN) / 20
}

/// True when `page_size` is a power of two within the allowed bounds.
pub fn valid_page_size(page_size: u32) -> bool {
    page_size.is_power_of_two() && (MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&page_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_is_iso_hdlc() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn capacities() {
        assert_eq!(leaf_capacity(4096), 255);
        assert_eq!(internal_capacity(4096), 204);
        assert_eq!(leaf_capacity(512), 31);
        assert_eq!(internal_capacity(512), 24);
    }

    #[test]
    fn header_round_trip() {
        let h = PageHeader {
            crc: 0xdead_beef,
            kind: 2,
            level: 3,
            count: 77,
            page_id: 9,
        };
        let mut p = [0u8; 16];
        h.encode(&mut p);
        assert_eq!(PageHeader::decode(&p), h);
    }
}
