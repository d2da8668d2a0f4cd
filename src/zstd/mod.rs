//! zstd seekable sources (spec §13): the seek table read from an archive,
//! one frame decoded and checked, and the uncompressed text as a
//! [`ReadAt`], so every query reads a `.zst` source exactly as a plain
//! file, at uncompressed offsets.
//!
//! Every frame is independent: a read finds the frame holding its offset
//! (a binary search over the frame records), decodes that frame alone (no
//! window, unlike gzip), checks its length and CRC-32 against the record,
//! and copies out. Decoded frames are kept in a small LRU with a byte
//! budget; no lock is held while decoding. This module is not the seekable
//! format's writer: `lidx pack` ([`crate::ingest::pack`]) is.

use crate::error::{Error, Result, SourceDamage};
use crate::format::zstd::{self as fmt, FrameRecord, SeekTable};
use crate::io::ReadAt;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// One frame as the archive's seek table places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Offset of the frame in the archive.
    pub comp: u64,
    /// Compressed length.
    pub comp_len: u32,
    /// Offset of its text in the whole text.
    pub uncomp: u64,
    /// Length of its text.
    pub text_len: u32,
    /// The seek table's checksum (low 32 bits of XXH64), if it has one.
    pub xxh: Option<u32>,
}

/// A damaged archive: [`Error::CorruptSource`] at `offset`.
pub fn damaged(path: &Path, offset: u64, what: impl Into<String>) -> Error {
    Error::CorruptSource {
        path: path.to_path_buf(),
        offset,
        what: what.into(),
        kind: SourceDamage::Zstd,
    }
}

/// True when `src` looks like a zstd seekable archive: it starts with a
/// zstd frame or a skippable frame and ends with the seek table's magic
/// . Whether its table holds is [`seek_table`]'s question.
pub fn is_seekable(src: &dyn ReadAt) -> Result<bool> {
    let len = src.len();
    if len < (fmt::SKIPPABLE_HEADER_LEN + fmt::FOOTER_LEN) as u64 {
        return Ok(false);
    }
    let mut head = [0u8; 4];
    let mut tail = [0u8; 4];
    if src.read_full_at(&mut head, 0)? != 4 || src.read_full_at(&mut tail, len - 4)? != 4 {
        return Ok(false);
    }
    let head = u32::from_le_bytes(head);
    let starts = head == fmt::FRAME_MAGIC || head & 0xFFFF_FFF0 == 0x184D_2A50;
    Ok(starts && u32::from_le_bytes(tail) == fmt::SEEKABLE_MAGIC)
}

/// Reads the seek tables of `src`: the one at the end of the
/// archive and, when its frames do not reach back to the start, the one
/// ending where they begin (an archive with another seekable archive
/// appended), and so on. Returns every frame in archive order with its
/// text offset; the frames and tables must tile the file exactly.
pub fn seek_table(src: &dyn ReadAt) -> Result<Vec<Frame>> {
    let path = src.path();
    let mut end = src.len();
    // Tables from the last to the first: (first byte of its frames, entries).
    let mut parts: Vec<(u64, SeekTable)> = Vec::new();
    while end > 0 {
        if end < fmt::FOOTER_LEN as u64 {
            return Err(damaged(
                path,
                0,
                format!("{end} stray bytes before the first seek table"),
            ));
        }
        let mut foot = [0u8; fmt::FOOTER_LEN];
        src.read_full_at(&mut foot, end - fmt::FOOTER_LEN as u64)?;
        let f = SeekTable::parse_footer(&foot).map_err(|w| {
            damaged(
                path,
                end - fmt::FOOTER_LEN as u64,
                format!("seek table ending at byte {end}: {w}"),
            )
        })?;
        let table_len = f.table_len();
        if table_len > end {
            return Err(damaged(
                path,
                end - fmt::FOOTER_LEN as u64,
                format!("seek table of {} frames is longer than the file", f.frames),
            ));
        }
        let at = end - table_len;
        let mut b = vec![0u8; table_len as usize];
        src.read_full_at(&mut b, at)?;
        let t = SeekTable::parse_entries(&f, &b).map_err(|w| damaged(path, at, w))?;
        let comp: u64 = t.entries.iter().map(|e| e.comp as u64).sum();
        if comp > at {
            return Err(damaged(
                path,
                at,
                format!("the seek table's frames ({comp} bytes) do not fit before it ({at} bytes)"),
            ));
        }
        end = at - comp;
        parts.push((end, t));
    }
    let mut frames = Vec::new();
    let mut uncomp = 0u64;
    for (mut comp, t) in parts.into_iter().rev() {
        for e in t.entries {
            if e.text > fmt::MAX_FRAME_TEXT {
                return Err(damaged(
                    path,
                    comp,
                    format!(
                        "frame {} holds {} bytes of text, more than the 1 GiB lidx reads in one frame",
                        frames.len(),
                        e.text
                    ),
                ));
            }
            frames.push(Frame {
                comp,
                comp_len: e.comp,
                uncomp,
                text_len: e.text,
                xxh: e.xxh,
            });
            comp += e.comp as u64;
            uncomp += e.text as u64;
        }
    }
    Ok(frames)
}

/// A reusable zstd decoder.
pub struct Decoder(zstd::bulk::Decompressor<'static>);

impl Decoder {
    /// A new decoder.
    pub fn new() -> Result<Decoder> {
        zstd::bulk::Decompressor::new()
            .map(Decoder)
            .map_err(|e| Error::InvalidArgument(format!("zstd decoder: {e}")))
    }

    /// Decodes frame number `i`, `f`, of `src` into `out` (cleared), and
    /// checks it against the seek table: one frame of exactly
    /// `comp_len` bytes, exactly `text_len` bytes of text, its content
    /// checksum (libzstd checks it when the frame has one) and the table's
    /// checksum. Returns whether the frame carries a content checksum.
    pub fn frame(
        &mut self,
        src: &dyn ReadAt,
        i: usize,
        f: &Frame,
        comp: &mut Vec<u8>,
        out: &mut Vec<u8>,
    ) -> Result<bool> {
        let path = src.path();
        let bad = |what: String| {
            damaged(
                path,
                f.comp,
                format!("frame {i} at byte {}: {what}", f.comp),
            )
        };
        comp.resize(f.comp_len as usize, 0);
        let n = src.read_full_at(comp, f.comp)?;
        if n != comp.len() {
            return Err(bad("the archive ends inside the frame".into()));
        }
        let Some(checksum) = fmt::content_checksum_flag(comp) else {
            return Err(bad("not a zstd frame (bad magic)".into()));
        };
        match zstd::zstd_safe::find_frame_compressed_size(comp) {
            Ok(k) if k == comp.len() => {}
            Ok(k) => {
                return Err(bad(format!(
                    "the frame is {k} bytes, the seek table says {}",
                    comp.len()
                )));
            }
            Err(_) => return Err(bad("the frame is damaged or cut short".into())),
        }
        out.clear();
        out.reserve_exact(f.text_len as usize);
        match self.0.decompress_to_buffer(&comp[..], out) {
            Ok(k) if k == f.text_len as usize => {}
            Ok(k) => {
                return Err(bad(format!(
                    "decodes to {k} bytes, the seek table says {}",
                    f.text_len
                )));
            }
            Err(e) => return Err(bad(format!("does not decode: {e}"))),
        }
        if let Some(want) = f.xxh {
            let got = xxhash_rust::xxh64::xxh64(out, 0) as u32;
            if got != want {
                return Err(bad(format!(
                    "its text has checksum {got:#010x}, the seek table says {want:#010x}"
                )));
            }
        }
        Ok(checksum)
    }
}

/// Frame records of one zstd source, in increasing text offset.
pub trait FrameRecords: Send + Sync {
    /// Number of frames.
    fn count(&self) -> usize;
    /// Record `i`, checked on its own.
    fn record(&self, i: usize) -> Result<FrameRecord>;
    /// The error for a record that does not follow its predecessor.
    fn out_of_order(&self, i: usize) -> Error;
    /// Index of the last frame whose text starts at or before `off`.
    fn find(&self, off: u64) -> Result<usize> {
        let (mut lo, mut hi) = (0, self.count());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.record(mid)?.uncomp <= off {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }
}

impl FrameRecords for Vec<FrameRecord> {
    fn count(&self) -> usize {
        self.len()
    }
    fn record(&self, i: usize) -> Result<FrameRecord> {
        Ok(self[i])
    }
    fn out_of_order(&self, i: usize) -> Error {
        Error::InvalidArgument(format!("frame record {i} is out of order"))
    }
}

/// Decoded frames, least recently used first, and their total bytes.
type FrameCache = (VecDeque<(usize, Arc<Vec<u8>>)>, usize);

/// The text of a zstd seekable source, readable at uncompressed offsets.
pub struct ZstText<F: FrameRecords> {
    src: Box<dyn ReadAt>,
    frames: F,
    len: u64,
    /// Recently decoded frames, least recently used first, and their bytes.
    cache: Mutex<FrameCache>,
    budget: usize,
}

impl<F: FrameRecords> std::fmt::Debug for ZstText<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZstText")
            .field("path", &self.src.path())
            .field("len", &self.len)
            .finish()
    }
}

impl<F: FrameRecords> ZstText<F> {
    /// The text (length `len`) of archive `src` whose frames are `frames`,
    /// keeping about `cache_bytes` of decoded frames (at least two).
    pub fn new(src: Box<dyn ReadAt>, frames: F, len: u64, cache_bytes: usize) -> ZstText<F> {
        ZstText {
            src,
            frames,
            len,
            cache: Mutex::new((VecDeque::new(), 0)),
            budget: cache_bytes,
        }
    }

    /// The checked text of frame `i`.
    fn frame(&self, i: usize) -> Result<Arc<Vec<u8>>> {
        {
            let mut c = self.cache.lock();
            if let Some(k) = c.0.iter().position(|e| e.0 == i) {
                let e = c.0.remove(k).expect("found");
                let data = Arc::clone(&e.1);
                c.0.push_back(e);
                return Ok(data);
            }
        }
        let r = self.frames.record(i)?;
        let f = Frame {
            comp: r.comp,
            comp_len: r.comp_len,
            uncomp: r.uncomp,
            text_len: r.text_len,
            xxh: (r.flags & fmt::FRAME_HAS_XXH != 0).then_some(r.xxh),
        };
        let mut comp = Vec::new();
        let mut out = Vec::new();
        let checksum = Decoder::new()?.frame(&*self.src, i, &f, &mut comp, &mut out)?;
        let got = crc32fast::hash(&out);
        if got != r.text_crc || checksum != (r.flags & fmt::FRAME_CONTENT_CHECKSUM != 0) {
            return Err(Error::SourceChanged {
                path: self.src.path().to_path_buf(),
                what: format!(
                    "the text of frame {i} (at byte {}) has CRC-32 {got:#010x}, the index says {:#010x}: the archive is damaged or was changed",
                    r.comp, r.text_crc
                ),
            });
        }
        let data = Arc::new(out);
        let mut c = self.cache.lock();
        if !c.0.iter().any(|e| e.0 == i) {
            c.1 += data.len();
            c.0.push_back((i, Arc::clone(&data)));
            while c.0.len() > 2 && c.1 > self.budget {
                let (_, d) = c.0.pop_front().expect("more than two");
                c.1 -= d.len();
            }
        }
        Ok(data)
    }
}

impl<F: FrameRecords> ReadAt for ZstText<F> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let mut i = self.frames.find(offset)?;
        // Frames without text share their offset with the next one.
        loop {
            let r = self.frames.record(i)?;
            if r.uncomp > offset {
                return Err(self.frames.out_of_order(i));
            }
            if offset - r.uncomp < r.text_len as u64 {
                break;
            }
            i += 1;
            if i >= self.frames.count() {
                return Err(self.frames.out_of_order(i - 1));
            }
        }
        let start = self.frames.record(i)?.uncomp;
        let text = self.frame(i)?;
        let at = (offset - start) as usize;
        if at >= text.len() {
            return Err(self.frames.out_of_order(i));
        }
        let n = buf.len().min(text.len() - at);
        buf[..n].copy_from_slice(&text[at..at + n]);
        Ok(n)
    }

    fn path(&self) -> &Path {
        self.src.path()
    }

    fn will_need(&self, range: std::ops::Range<u64>) {
        if range.start >= range.end.min(self.len) {
            return;
        }
        let (Ok(i), Ok(j)) = (
            self.frames.find(range.start),
            self.frames.find(range.end.min(self.len) - 1),
        ) else {
            return;
        };
        let (Ok(a), Ok(b)) = (self.frames.record(i), self.frames.record(j)) else {
            return;
        };
        let to = b.comp.saturating_add(b.comp_len as u64);
        if a.comp < to {
            self.src.will_need(a.comp..to);
        }
    }
}
