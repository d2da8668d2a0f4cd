//! The source fingerprint and the verdict it supports (spec §6).

use crate::error::{Error, Result};
use crate::format::{FINGERPRINT_BLOCK, Fingerprint, crc32};
use crate::io::ReadAt;
use std::fs::Metadata;

/// How the source relates to the sidecar built for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Same size, same modification time, same head and tail blocks.
    Unchanged,
    /// Longer than when indexed, and the indexed prefix's head and last
    /// block are unchanged: the file only grew.
    Appended,
    /// Anything else: shorter, same size with a new mtime, or a changed
    /// head or tail.
    Rewritten,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Unchanged => "unchanged",
            Verdict::Appended => "appended to",
            Verdict::Rewritten => "rewritten",
        })
    }
}

/// Modification time as (seconds, nanoseconds).
pub fn mtime(meta: &Metadata) -> (i64, u32) {
    use std::os::unix::fs::MetadataExt;
    (meta.mtime(), meta.mtime_nsec() as u32)
}

/// CRC-32 of `src[from..to]` (at most one fingerprint block).
fn crc_range(src: &dyn ReadAt, from: u64, to: u64) -> Result<u32> {
    let mut buf = vec![0u8; (to - from) as usize];
    src.read_exact_at(&mut buf, from)?;
    Ok(crc32(&buf))
}

/// Computes the fingerprint of the first `size` bytes of `src`.
pub fn compute(src: &dyn ReadAt, size: u64, mtime: (i64, u32)) -> Result<Fingerprint> {
    Ok(Fingerprint {
        size,
        mtime_sec: mtime.0,
        mtime_nsec: mtime.1,
        head_crc: crc_range(src, 0, size.min(FINGERPRINT_BLOCK))?,
        tail_crc: crc_range(src, size.saturating_sub(FINGERPRINT_BLOCK), size)?,
    })
}

/// Classifies `src` (of current length `src.len()` and modification time
/// `now_mtime`) against the fingerprint `fp` stored in a sidecar.
pub fn verdict(fp: &Fingerprint, src: &dyn ReadAt, now_mtime: (i64, u32)) -> Result<Verdict> {
    let len = src.len();
    if len < fp.size {
        return Ok(Verdict::Rewritten);
    }
    let head = crc_range(src, 0, fp.size.min(FINGERPRINT_BLOCK))?;
    let tail = crc_range(src, fp.size.saturating_sub(FINGERPRINT_BLOCK), fp.size)?;
    if head != fp.head_crc || tail != fp.tail_crc {
        return Ok(Verdict::Rewritten);
    }
    if len > fp.size {
        return Ok(Verdict::Appended);
    }
    if now_mtime != (fp.mtime_sec, fp.mtime_nsec) {
        return Ok(Verdict::Rewritten);
    }
    Ok(Verdict::Unchanged)
}

/// Maps an I/O error reading the source during fingerprinting.
pub fn source_error(path: &std::path::Path, e: std::io::Error) -> Error {
    Error::io("stat", path, e)
}
