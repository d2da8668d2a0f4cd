//! zstd seekable sources (v1.3, spec §13): the seek table at the end of the
//! archive, and the frame records a sidecar stores.
//!
//! The archive's own seek table (the zstd seekable format: a skippable
//! frame with magic `0x184D2A5E` at the very end of the file) is parsed by
//! [`SeekTable::parse_footer`] and [`SeekTable::parse_entries`] and written
//! by [`SeekTable::encode`]. The sidecar keeps one [`FrameRecord`] per
//! frame, in pages of kind 6 after the tree pages: every frame starts an
//! access point, and none needs a window.

use super::{PAGE_HEADER_LEN, PageKind};

/// Magic of the skippable frame that holds the seek table.
pub const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
/// Magic that ends the seek table's footer (the archive's last 4 bytes).
pub const SEEKABLE_MAGIC: u32 = 0x8F92_EAB1;
/// Magic of a zstd frame.
pub const FRAME_MAGIC: u32 = 0xFD2F_B528;
/// Length of the seek table's footer: frame count, descriptor, magic.
pub const FOOTER_LEN: usize = 9;
/// Length of the skippable frame's header: magic, frame size.
pub const SKIPPABLE_HEADER_LEN: usize = 8;
/// The descriptor bit that says entries carry a checksum.
pub const DESCRIPTOR_CHECKSUM: u8 = 0x80;
/// Descriptor bits reserved by the seekable format (must be zero).
pub const DESCRIPTOR_RESERVED: u8 = 0x7C;
/// The most text one frame may hold for lidx: 1 GiB.
pub const MAX_FRAME_TEXT: u32 = 1 << 30;

/// Bytes per frame record.
pub const FRAME_RECORD_LEN: usize = 40;
/// Record flag: the seek table gave this frame a checksum
/// ([`FrameRecord::xxh`]).
pub const FRAME_HAS_XXH: u32 = 1;
/// Record flag: the frame carries its own content checksum (zstd's frame
/// header flag), which the decoder checks.
pub const FRAME_CONTENT_CHECKSUM: u32 = 2;

/// The seek table's footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// Number of frames the table describes.
    pub frames: u32,
    /// Entries carry a checksum.
    pub checksums: bool,
}

/// One seek-table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// Compressed size of the frame.
    pub comp: u32,
    /// Decompressed size of the frame.
    pub text: u32,
    /// Low 32 bits of the XXH64 (seed 0) of the frame's text, if the
    /// table has checksums.
    pub xxh: Option<u32>,
}

/// A seek table: what [`SeekTable::encode`] writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SeekTable {
    /// The frames, in archive order.
    pub entries: Vec<Entry>,
}

impl Footer {
    /// Bytes of one entry.
    pub fn entry_len(&self) -> usize {
        if self.checksums { 12 } else { 8 }
    }

    /// Length of the whole skippable frame (header, entries, footer).
    pub fn table_len(&self) -> u64 {
        SKIPPABLE_HEADER_LEN as u64
            + self.frames as u64 * self.entry_len() as u64
            + FOOTER_LEN as u64
    }
}

impl SeekTable {
    /// Decodes the last [`FOOTER_LEN`] bytes of an archive; `Err` says why
    /// it is no seek table footer.
    pub fn parse_footer(b: &[u8; FOOTER_LEN]) -> Result<Footer, String> {
        let magic = u32::from_le_bytes(b[5..9].try_into().expect("4 bytes"));
        if magic != SEEKABLE_MAGIC {
            return Err("no seek table at its end".into());
        }
        let d = b[4];
        if d & DESCRIPTOR_RESERVED != 0 {
            return Err(format!("seek table descriptor {d:#04x} sets reserved bits"));
        }
        Ok(Footer {
            frames: u32::from_le_bytes(b[0..4].try_into().expect("4 bytes")),
            checksums: d & DESCRIPTOR_CHECKSUM != 0,
        })
    }

    /// Decodes the whole skippable frame `b` (header, entries, footer) of
    /// the table whose footer is `f`.
    pub fn parse_entries(f: &Footer, b: &[u8]) -> Result<SeekTable, String> {
        if b.len() as u64 != f.table_len() {
            return Err("seek table has the wrong length".into());
        }
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        if u32_at(0) != SKIPPABLE_MAGIC {
            return Err(format!(
                "seek table frame has magic {:#010x}, not {SKIPPABLE_MAGIC:#010x}",
                u32_at(0)
            ));
        }
        if u32_at(4) as u64 != f.table_len() - SKIPPABLE_HEADER_LEN as u64 {
            return Err(format!(
                "seek table frame size {} does not match its {} entries",
                u32_at(4),
                f.frames
            ));
        }
        let w = f.entry_len();
        let entries = (0..f.frames as usize)
            .map(|i| {
                let o = SKIPPABLE_HEADER_LEN + i * w;
                Entry {
                    comp: u32_at(o),
                    text: u32_at(o + 4),
                    xxh: f.checksums.then(|| u32_at(o + 8)),
                }
            })
            .collect();
        Ok(SeekTable { entries })
    }

    /// Encodes the table as a skippable frame. With checksums if every
    /// entry has one.
    pub fn encode(&self) -> Vec<u8> {
        let checksums = !self.entries.is_empty() && self.entries.iter().all(|e| e.xxh.is_some());
        let f = Footer {
            frames: self.entries.len() as u32,
            checksums,
        };
        let mut b = Vec::with_capacity(f.table_len() as usize);
        b.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
        b.extend_from_slice(&((f.table_len() - SKIPPABLE_HEADER_LEN as u64) as u32).to_le_bytes());
        for e in &self.entries {
            b.extend_from_slice(&e.comp.to_le_bytes());
            b.extend_from_slice(&e.text.to_le_bytes());
            if checksums {
                b.extend_from_slice(&e.xxh.unwrap_or(0).to_le_bytes());
            }
        }
        b.extend_from_slice(&f.frames.to_le_bytes());
        b.push(if checksums { DESCRIPTOR_CHECKSUM } else { 0 });
        b.extend_from_slice(&SEEKABLE_MAGIC.to_le_bytes());
        b
    }
}

/// One frame record of a zstd sidecar (spec §13, table 23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameRecord {
    /// Offset of the frame's text in the whole text.
    pub uncomp: u64,
    /// Offset of the frame in the archive.
    pub comp: u64,
    /// Compressed length of the frame.
    pub comp_len: u32,
    /// Length of the frame's text.
    pub text_len: u32,
    /// CRC-32 of the frame's text (checked after every decode).
    pub text_crc: u32,
    /// The seek table's checksum of the frame, when it has one
    /// ([`FRAME_HAS_XXH`]); else 0.
    pub xxh: u32,
    /// [`FRAME_HAS_XXH`], [`FRAME_CONTENT_CHECKSUM`].
    pub flags: u32,
}

impl FrameRecord {
    /// Encodes into 40 bytes (the last 4 reserved, zero).
    pub fn encode(&self, b: &mut [u8]) {
        b[0..8].copy_from_slice(&self.uncomp.to_le_bytes());
        b[8..16].copy_from_slice(&self.comp.to_le_bytes());
        b[16..20].copy_from_slice(&self.comp_len.to_le_bytes());
        b[20..24].copy_from_slice(&self.text_len.to_le_bytes());
        b[24..28].copy_from_slice(&self.text_crc.to_le_bytes());
        b[28..32].copy_from_slice(&self.xxh.to_le_bytes());
        b[32..36].copy_from_slice(&self.flags.to_le_bytes());
        b[36..40].fill(0);
    }

    /// Decodes 40 bytes; `None` when reserved bits or bytes are set.
    pub fn decode(b: &[u8]) -> Option<FrameRecord> {
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let r = FrameRecord {
            uncomp: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            comp: u64::from_le_bytes(b[8..16].try_into().expect("8 bytes")),
            comp_len: u32_at(16),
            text_len: u32_at(20),
            text_crc: u32_at(24),
            xxh: u32_at(28),
            flags: u32_at(32),
        };
        let known = FRAME_HAS_XXH | FRAME_CONTENT_CHECKSUM;
        (r.flags & !known == 0 && u32_at(36) == 0).then_some(r)
    }
}

/// Records per frame-record page.
pub fn records_per_page(page_size: u32) -> usize {
    (page_size as usize - PAGE_HEADER_LEN) / FRAME_RECORD_LEN
}

/// The page kind of frame-record pages.
pub const FRAME_PAGE: PageKind = PageKind::Frames;

/// The frame header's content-checksum flag: bit 2 of the frame header
/// descriptor, the byte after the magic. `None` when `head` does not
/// start with a zstd frame's magic.
pub fn content_checksum_flag(head: &[u8]) -> Option<bool> {
    if head.len() < 5 || u32::from_le_bytes(head[0..4].try_into().expect("4 bytes")) != FRAME_MAGIC
    {
        return None;
    }
    Some(head[4] & 0x04 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_table_round_trip() {
        for checksums in [false, true] {
            let t = SeekTable {
                entries: (0..5)
                    .map(|i| Entry {
                        comp: 100 + i,
                        text: 1000 * i,
                        xxh: checksums.then_some(i * 7),
                    })
                    .collect(),
            };
            let b = t.encode();
            let foot: [u8; FOOTER_LEN] = b[b.len() - FOOTER_LEN..].try_into().unwrap();
            let f = SeekTable::parse_footer(&foot).unwrap();
            assert_eq!(f.frames, 5);
            assert_eq!(f.checksums, checksums);
            assert_eq!(f.table_len(), b.len() as u64);
            assert_eq!(SeekTable::parse_entries(&f, &b).unwrap(), t);
        }
    }

    #[test]
    fn record_round_trip() {
        let r = FrameRecord {
            uncomp: 1 << 40,
            comp: 12345,
            comp_len: 99,
            text_len: 7000,
            text_crc: 0xdead_beef,
            xxh: 5,
            flags: FRAME_HAS_XXH | FRAME_CONTENT_CHECKSUM,
        };
        let mut b = [0u8; FRAME_RECORD_LEN];
        r.encode(&mut b);
        assert_eq!(FrameRecord::decode(&b), Some(r));
        b[39] = 1;
        assert_eq!(FrameRecord::decode(&b), None);
        assert_eq!(records_per_page(4096), 102);
    }
}
