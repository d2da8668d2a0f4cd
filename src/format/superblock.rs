//! The superblock: the 256-byte record at the start of page 0 (spec §3).

use super::*;

/// Bytes hashed at each end of the source for the fingerprint.
pub const FINGERPRINT_BLOCK: u64 = 65536;
/// Longest source basename stored in the superblock (longer names are cut).
pub const SOURCE_NAME_MAX: usize = 96;

/// What binds a sidecar to its source (spec §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fingerprint {
    /// Source size in bytes when indexed (= the indexed prefix).
    pub size: u64,
    /// Modification time, seconds since the Unix epoch.
    pub mtime_sec: i64,
    /// Modification time, nanoseconds part.
    pub mtime_nsec: u32,
    /// CRC-32 of bytes `0..min(size, 64 KiB)`.
    pub head_crc: u32,
    /// CRC-32 of bytes `size.saturating_sub(64 KiB)..size`: the indexed
    /// prefix's last block, recomputable on a grown file.
    pub tail_crc: u32,
}

/// Superblock fields of gzip sidecars (bytes 224..252; zero for plain
/// sources). Spec §11. A zstd sidecar (§13) uses the same bytes: the text
/// length, the longest frame's text as `span`, the frame records as the
/// access points, no blob pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GzipFields {
    /// Length of the uncompressed text.
    pub text_len: u64,
    /// Target bytes of text between access points.
    pub span: u32,
    /// Number of access points (at least 1: offset 0).
    pub ap_count: u32,
    /// First access-point page.
    pub ap_first_page: u32,
    /// Number of access-point pages.
    pub ap_pages: u32,
    /// Number of blob pages (they follow the access-point pages).
    pub blob_pages: u32,
    /// With [`super::COMPAT_PIECE_CRCS`] (v1.5, §11.9): the piece length
    /// is `2^piece_shift` bytes (byte 26); else 0.
    pub piece_shift: u8,
    /// With [`super::COMPAT_PIECE_CRCS`]: the blob page where the piece
    /// CRCs start (bytes 124..128); else 0.
    pub piece_page: u32,
}

/// Decoded superblock. Field meanings: spec §3, table 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Superblock {
    /// Major format version.
    pub version_major: u16,
    /// Minor format version.
    pub version_minor: u16,
    /// Page size in bytes (power of two, 512..=65536).
    pub page_size: u32,
    /// Incompatible feature bits: a reader must refuse unknown ones.
    pub incompat_features: u32,
    /// Compatible feature bits: unknown ones may be ignored.
    pub compat_features: u32,
    /// Key kind ([`KEY_KIND_LINE_OFFSET`]).
    pub key_kind: u8,
    /// Source kind ([`SOURCE_KIND_PLAIN`], [`SOURCE_KIND_GZIP`] or
    /// [`SOURCE_KIND_ZSTD`]).
    pub source_kind: u8,
    /// Number of lines in the indexed prefix.
    pub line_count: u64,
    /// Checkpoint spacing in bytes used at ingest.
    pub spacing: u64,
    /// Number of checkpoints (leaf entries) in the tree.
    pub checkpoint_count: u64,
    /// Page number of the tree root.
    pub root_page: u32,
    /// Number of levels (1 = the root is a leaf).
    pub height: u32,
    /// Number of leaf pages.
    pub leaf_count: u32,
    /// Total pages in the file, superblock included.
    pub page_count: u32,
    /// Lowest page number holding a leaf.
    pub first_leaf: u32,
    /// Highest page number holding a leaf.
    pub last_leaf: u32,
    /// Pages at the start of the file that hold the superblock, the root
    /// and every other internal node (v1.2, R-19): a reader that fetches
    /// `head_pages × page_size` bytes from offset 0 in one read can descend
    /// to any leaf without another read of the upper tree. Meaningful only
    /// when [`COMPAT_HEAD_FIRST`] is set ([`Superblock::head_first`]); 0 in
    /// sidecars of format 1.0 and 1.1 (see [`Superblock::head_len`]).
    pub head_pages: u32,
    /// Page number of the time index's header when [`COMPAT_TIME_INDEX`]
    /// is set (v1.2, §12), else 0.
    pub time_page: u32,
    /// The source fingerprint.
    pub fingerprint: Fingerprint,
    /// Basename of the source at ingest (at most [`SOURCE_NAME_MAX`] bytes).
    pub source_name: Vec<u8>,
    /// gzip and zstd sources only (zero otherwise).
    pub gzip: GzipFields,
}

/// Why a superblock could not be decoded (mapped to [`crate::Error`] by the
/// caller, which knows the path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SuperblockError {
    /// Too short or wrong magic.
    NotAnIndex,
    /// Major version differs.
    Version(u16, u16),
    /// CRC mismatch (stored, computed).
    Checksum(u32, u32),
    /// Unknown incompatible features.
    Features(u32),
    /// A field holds an impossible value.
    Invalid(String),
}

impl Superblock {
    /// Encodes into exactly [`SUPERBLOCK_LEN`] bytes, CRC included.
    pub fn encode(&self) -> [u8; SUPERBLOCK_LEN] {
        let mut b = [0u8; SUPERBLOCK_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&self.version_major.to_le_bytes());
        b[10..12].copy_from_slice(&self.version_minor.to_le_bytes());
        b[12..16].copy_from_slice(&self.page_size.to_le_bytes());
        b[16..20].copy_from_slice(&self.incompat_features.to_le_bytes());
        b[20..24].copy_from_slice(&self.compat_features.to_le_bytes());
        b[24] = self.key_kind;
        b[25] = self.source_kind;
        b[26] = self.gzip.piece_shift;
        b[32..40].copy_from_slice(&self.line_count.to_le_bytes());
        b[40..48].copy_from_slice(&self.fingerprint.size.to_le_bytes());
        b[48..56].copy_from_slice(&self.spacing.to_le_bytes());
        b[56..64].copy_from_slice(&self.checkpoint_count.to_le_bytes());
        b[64..68].copy_from_slice(&self.root_page.to_le_bytes());
        b[68..72].copy_from_slice(&self.height.to_le_bytes());
        b[72..76].copy_from_slice(&self.leaf_count.to_le_bytes());
        b[76..80].copy_from_slice(&self.page_count.to_le_bytes());
        b[80..84].copy_from_slice(&self.first_leaf.to_le_bytes());
        b[84..88].copy_from_slice(&self.last_leaf.to_le_bytes());
        b[88..92].copy_from_slice(&(FINGERPRINT_BLOCK as u32).to_le_bytes());
        b[92..96].copy_from_slice(&self.fingerprint.mtime_nsec.to_le_bytes());
        b[96..104].copy_from_slice(&self.fingerprint.mtime_sec.to_le_bytes());
        b[104..108].copy_from_slice(&self.fingerprint.head_crc.to_le_bytes());
        b[108..112].copy_from_slice(&self.fingerprint.tail_crc.to_le_bytes());
        let name = &self.source_name[..self.source_name.len().min(SOURCE_NAME_MAX)];
        b[112] = name.len() as u8;
        b[116..120].copy_from_slice(&self.head_pages.to_le_bytes());
        b[120..124].copy_from_slice(&self.time_page.to_le_bytes());
        b[124..128].copy_from_slice(&self.gzip.piece_page.to_le_bytes());
        b[128..128 + name.len()].copy_from_slice(name);
        b[224..232].copy_from_slice(&self.gzip.text_len.to_le_bytes());
        b[232..236].copy_from_slice(&self.gzip.span.to_le_bytes());
        b[236..240].copy_from_slice(&self.gzip.ap_count.to_le_bytes());
        b[240..244].copy_from_slice(&self.gzip.ap_first_page.to_le_bytes());
        b[244..248].copy_from_slice(&self.gzip.ap_pages.to_le_bytes());
        b[248..252].copy_from_slice(&self.gzip.blob_pages.to_le_bytes());
        let crc = crc32(&b[..252]);
        b[252..256].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Length of the indexed text: the source size for plain sources, the
    /// uncompressed length for gzip and zstd sources.
    pub fn text_len(&self) -> u64 {
        if self.compressed() {
            self.gzip.text_len
        } else {
            self.fingerprint.size
        }
    }

    /// True for a compressed source (gzip or zstd), whose text is read
    /// through access points stored after the node pages.
    pub fn compressed(&self) -> bool {
        self.source_kind == SOURCE_KIND_GZIP || self.source_kind == SOURCE_KIND_ZSTD
    }

    /// True for a zstd seekable source (§13).
    pub fn is_zstd(&self) -> bool {
        self.source_kind == SOURCE_KIND_ZSTD
    }

    /// Where the node pages (line tree, time tree) end: at the first
    /// access-point page of a compressed source, else at the end.
    pub fn nodes_end(&self) -> u32 {
        if self.compressed() {
            self.gzip.ap_first_page
        } else {
            self.page_count
        }
    }

    /// True when the sidecar promises the head-first layout (compatible
    /// feature bit 0, R-19): pages `0..head_pages` are the superblock and
    /// all internal nodes, root first; the leaves follow them.
    pub fn head_first(&self) -> bool {
        self.compat_features & COMPAT_HEAD_FIRST != 0
    }

    /// Bytes a reader fetching the sidecar by ranges should take in its
    /// first read to hold the superblock and the whole upper tree: `head_pages
    /// × page_size` for a head-first sidecar. `None` for a sidecar
    /// without that layout (format 1.0 and 1.1), whose internal nodes may be
    /// anywhere: a reader takes the superblock's page, then the root.
    pub fn head_len(&self) -> Option<u64> {
        self.head_first()
            .then(|| self.head_pages as u64 * self.page_size as u64)
    }

    /// Decodes and validates, in the order the spec gives (§3.2): length,
    /// magic, major version, CRC, feature bits, field sanity.
    pub fn decode(b: &[u8]) -> Result<Superblock, SuperblockError> {
        if b.len() < MAGIC.len() || b[0..8] != MAGIC {
            return Err(SuperblockError::NotAnIndex);
        }
        if b.len() < SUPERBLOCK_LEN {
            return Err(SuperblockError::Invalid(format!(
                "truncated: {} of {SUPERBLOCK_LEN} superblock bytes",
                b.len()
            )));
        }
        let u16_at = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().expect("2 bytes"));
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let (major, minor) = (u16_at(8), u16_at(10));
        if major != VERSION_MAJOR {
            return Err(SuperblockError::Version(major, minor));
        }
        let stored = u32_at(252);
        let computed = crc32(&b[..252]);
        if stored != computed {
            return Err(SuperblockError::Checksum(stored, computed));
        }
        let incompat = u32_at(16);
        if incompat & !INCOMPAT_KNOWN != 0 {
            return Err(SuperblockError::Features(incompat & !INCOMPAT_KNOWN));
        }
        let name_len = b[112] as usize;
        if name_len > SOURCE_NAME_MAX {
            return Err(SuperblockError::Invalid(format!(
                "source name length {name_len} exceeds {SOURCE_NAME_MAX}"
            )));
        }
        let sb = Superblock {
            version_major: major,
            version_minor: minor,
            page_size: u32_at(12),
            incompat_features: incompat,
            compat_features: u32_at(20),
            key_kind: b[24],
            source_kind: b[25],
            line_count: u64_at(32),
            spacing: u64_at(48),
            checkpoint_count: u64_at(56),
            root_page: u32_at(64),
            height: u32_at(68),
            leaf_count: u32_at(72),
            page_count: u32_at(76),
            first_leaf: u32_at(80),
            last_leaf: u32_at(84),
            head_pages: u32_at(116),
            time_page: if u32_at(20) & COMPAT_TIME_INDEX != 0 {
                u32_at(120)
            } else {
                0
            },
            fingerprint: Fingerprint {
                size: u64_at(40),
                mtime_nsec: u32_at(92),
                mtime_sec: i64::from_le_bytes(b[96..104].try_into().expect("8 bytes")),
                head_crc: u32_at(104),
                tail_crc: u32_at(108),
            },
            source_name: b[128..128 + name_len].to_vec(),
            gzip: GzipFields {
                text_len: u64_at(224),
                span: u32_at(232),
                ap_count: u32_at(236),
                ap_first_page: u32_at(240),
                ap_pages: u32_at(244),
                blob_pages: u32_at(248),
                // Reserved bytes without the bit: ignored.
                piece_shift: if u32_at(20) & COMPAT_PIECE_CRCS != 0 {
                    b[26]
                } else {
                    0
                },
                piece_page: if u32_at(20) & COMPAT_PIECE_CRCS != 0 {
                    u32_at(124)
                } else {
                    0
                },
            },
        };
        sb.validate(u32_at(88))?;
        Ok(sb)
    }

    /// Field sanity checks (R-8..R-12, R-16..R-19): everything a reader
    /// relies on before it allocates or follows a page number.
    /// and R-19 come after R-8 and the source-kind checks (R-15 step 6):
    /// they compute with the page size or choose their rules by the source
    /// kind.
    fn validate(&self, fp_block: u32) -> Result<(), SuperblockError> {
        let bad = |what: String| Err(SuperblockError::Invalid(what));
        if !valid_page_size(self.page_size) {
            return bad(format!(
                "page size {} is not a power of two in 512..=65536",
                self.page_size
            ));
        }
        if self.key_kind != KEY_KIND_LINE_OFFSET {
            return bad(format!("unknown key kind {}", self.key_kind));
        }
        let gzip = self.source_kind == SOURCE_KIND_GZIP;
        let zstd = self.source_kind == SOURCE_KIND_ZSTD;
        if self.source_kind != SOURCE_KIND_PLAIN && !gzip && !zstd {
            return bad(format!("unknown source kind {}", self.source_kind));
        }
        if gzip != (self.incompat_features & INCOMPAT_GZIP != 0) {
            return bad("gzip source kind and feature bit disagree".into());
        }
        if zstd != (self.incompat_features & INCOMPAT_ZSTD != 0) {
            return bad("zstd source kind and feature bit disagree".into());
        }
        if zstd {
            //
            let g = &self.gzip;
            let per = super::zstd::records_per_page(self.page_size) as u64;
            if (g.ap_count == 0 && g.text_len != 0)
                || g.span == 0
                || g.blob_pages != 0
                || g.ap_pages as u64 != (g.ap_count as u64).div_ceil(per)
            {
                return bad("frame record counts are inconsistent".into());
            }
            let end = g.ap_first_page as u64 + g.ap_pages as u64;
            if g.ap_first_page < 2 || end != self.page_count as u64 {
                return bad("frame record pages do not end the file".into());
            }
            if self.last_leaf >= g.ap_first_page || self.root_page >= g.ap_first_page {
                return bad("tree pages overlap the frame record pages".into());
            }
        } else if gzip {
            let g = &self.gzip;
            let per = super::gzip::records_per_page(self.page_size) as u64;
            if g.ap_count == 0
                || g.span == 0
                || g.ap_pages as u64 != (g.ap_count as u64).div_ceil(per)
            {
                return bad("access-point counts are inconsistent".into());
            }
            let end = g.ap_first_page as u64 + g.ap_pages as u64 + g.blob_pages as u64;
            if g.ap_first_page < 2 || end != self.page_count as u64 {
                return bad("access-point and blob pages do not end the file".into());
            }
            if self.last_leaf >= g.ap_first_page || self.root_page >= g.ap_first_page {
                return bad("tree pages overlap the access-point pages".into());
            }
            if self.compat_features & COMPAT_PIECE_CRCS != 0 {
                //
                let first_blob = g.ap_first_page + g.ap_pages;
                if !(MIN_PIECE_SHIFT..=MAX_PIECE_SHIFT).contains(&g.piece_shift)
                    || g.piece_page < first_blob
                    || g.piece_page >= self.page_count
                {
                    return bad(format!(
                        "piece CRCs of 2^{} bytes at page {}: not a piece length in 2^{MIN_PIECE_SHIFT}..=2^{MAX_PIECE_SHIFT}, or not a blob page",
                        g.piece_shift, g.piece_page
                    ));
                }
            }
        } else if self.gzip != GzipFields::default() {
            return bad("gzip fields set on a plain source".into());
        }
        if self.compat_features & COMPAT_PIECE_CRCS != 0 && !gzip {
            return bad("piece CRCs on a source that is not gzip".into());
        }
        if fp_block as u64 != FINGERPRINT_BLOCK {
            return bad(format!("fingerprint block {fp_block} is not 65536"));
        }
        if self.spacing == 0 {
            return bad("spacing is 0".into());
        }
        if self.fingerprint.mtime_nsec >= 1_000_000_000 {
            // no file system reports this; damage, not a hint.
            return bad(format!(
                "mtime nanoseconds {} is not below 10^9",
                self.fingerprint.mtime_nsec
            ));
        }
        if self.height == 0 || self.height > 64 {
            return bad(format!("tree height {} is not in 1..=64", self.height));
        }
        if self.page_count < 2 {
            return bad(format!("page count {} is below 2", self.page_count));
        }
        let in_range = |p: u32| p >= 1 && p < self.page_count;
        if !in_range(self.root_page) || !in_range(self.first_leaf) || !in_range(self.last_leaf) {
            return bad("root or leaf page number out of range".into());
        }
        if self.first_leaf > self.last_leaf || self.leaf_count == 0 {
            return bad("empty or inverted leaf range".into());
        }
        if self.leaf_count > self.last_leaf - self.first_leaf + 1 {
            return bad("leaf count exceeds the leaf range".into());
        }
        let max_cp = self.leaf_count as u64 * leaf_capacity(self.page_size) as u64;
        if self.checkpoint_count == 0 || self.checkpoint_count > max_cp {
            return bad(format!(
                "checkpoint count {} impossible",
                self.checkpoint_count
            ));
        }
        if self.line_count > self.text_len() {
            return bad("more lines than bytes".into());
        }
        if self.checkpoint_count > self.line_count.max(1) {
            return bad("more checkpoints than lines".into());
        }
        if self.time_page != 0 {
            // a time index comes only with the head-first layout.
            if !self.head_first() {
                return bad("a time index without the head-first layout (R-110)".into());
            }
            // §12: the time index lies after the line tree's last
            // leaf and before the access-point pages (or the end).
            let end = self.nodes_end();
            if self.time_page <= self.last_leaf || self.time_page >= end {
                return bad(format!(
                    "time header page {} is not between the last leaf and the end of the node pages",
                    self.time_page
                ));
            }
        }
        if self.head_first() {
            self.validate_head_first()?;
        }
        Ok(())
    }

    /// True when the sidecar holds a time index (compatible feature bit 1,
    /// §12) whose header is page [`Superblock::time_page`].
    pub fn has_time_index(&self) -> bool {
        self.time_page != 0
    }

    /// The piece length of a gzip sidecar with piece CRCs
    /// ([`COMPAT_PIECE_CRCS`], §11.9), else `None`.
    pub fn piece_len(&self) -> Option<u64> {
        (self.compat_features & COMPAT_PIECE_CRCS != 0).then(|| 1u64 << self.gzip.piece_shift)
    }

    /// what the head-first bit promises, as far as the superblock
    /// can tell (the pages themselves are checked by a full verification).
    /// Runs after the source-kind checks: the tree ends where the
    /// access-point pages begin in a gzip sidecar.
    fn validate_head_first(&self) -> Result<(), SuperblockError> {
        let bad = |what: &str| {
            Err(SuperblockError::Invalid(format!(
                "head-first layout: {what}"
            )))
        };
        let tree_end = if self.time_page != 0 {
            self.time_page
        } else {
            self.nodes_end()
        };
        if self.root_page != 1 {
            return bad("the root is not page 1");
        }
        if self.last_leaf as u64 - self.first_leaf as u64 + 1 != self.leaf_count as u64 {
            return bad("pages other than leaves lie between the first and the last leaf");
        }
        if self.last_leaf as u64 + 1 != tree_end as u64 {
            return bad("the last leaf does not end the tree");
        }
        let want = if self.height == 1 {
            (self.first_leaf == 1 && self.last_leaf == 1).then_some(2)
        } else {
            (self.first_leaf >= 2).then_some(self.first_leaf)
        };
        if want != Some(self.head_pages) {
            return bad(&format!(
                "head_pages {} does not match a tree of height {} whose first leaf is page {}",
                self.head_pages, self.height, self.first_leaf
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Superblock {
        Superblock {
            version_major: 1,
            version_minor: 0,
            page_size: 4096,
            incompat_features: 0,
            compat_features: 0,
            key_kind: KEY_KIND_LINE_OFFSET,
            source_kind: SOURCE_KIND_PLAIN,
            line_count: 10,
            spacing: 65536,
            checkpoint_count: 1,
            root_page: 1,
            height: 1,
            leaf_count: 1,
            page_count: 2,
            first_leaf: 1,
            last_leaf: 1,
            head_pages: 0,
            time_page: 0,
            fingerprint: Fingerprint {
                size: 100,
                mtime_sec: -5,
                mtime_nsec: 7,
                head_crc: 1,
                tail_crc: 2,
            },
            source_name: b"app.log".to_vec(),
            gzip: GzipFields::default(),
        }
    }

    #[test]
    fn round_trip() {
        let sb = sample();
        assert_eq!(Superblock::decode(&sb.encode()).unwrap(), sb);
    }

    #[test]
    fn every_flip_is_caught() {
        let bytes = sample().encode();
        for i in 0..SUPERBLOCK_LEN {
            for bit in 0..8 {
                let mut b = bytes;
                b[i] ^= 1 << bit;
                assert!(Superblock::decode(&b).is_err(), "flip byte {i} bit {bit}");
            }
        }
    }

    #[test]
    fn absurd_values_rejected() {
        let mut sb = sample();
        sb.page_size = 0;
        assert!(matches!(
            Superblock::decode(&sb.encode()),
            Err(SuperblockError::Invalid(_))
        ));
        let mut sb = sample();
        sb.checkpoint_count = u64::MAX;
        assert!(matches!(
            Superblock::decode(&sb.encode()),
            Err(SuperblockError::Invalid(_))
        ));
    }
}
