//! The source fingerprint and the verdict it supports (spec §6).
//!
//! The fingerprint (size, modification time, CRC-32 of the first and of
//! the last 64 KiB of the indexed prefix) is compared first. The
//! modification time is a hint, not the identity: a copy, a download, an
//! extraction or `touch` changes it and nothing else. When only the time
//! differs, the content decides ([`Evidence`], spec §6.3): for a gzip
//! archive the members' own CRC-32 trailers, checked against what the
//! sidecar recorded (cheap, [`check_members`]); for plain text, nothing
//! inside the file proves its content, so the whole file is re-read once
//! and compared checkpoint by checkpoint (by the opener, see
//! `OpenOptions`). A positive answer is remembered in the user cache
//! directory for that very file ([`Memo`]), so it is paid once.

use crate::error::{Error, Result};
use crate::format::{FINGERPRINT_BLOCK, Fingerprint, crc32};
use crate::io::ReadAt;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

pub use crate::format::verdict::Verdict;

/// What an [`Verdict::Unchanged`] verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Size, modification time, head and tail blocks are as recorded.
    Fingerprint,
    /// The modification time differs; size, head and tail match, and the
    /// content was checked now.
    Content(Proof),
    /// The modification time differs; this very file (same device, inode,
    /// size and times, or for a remote object the same ETag) was checked
    /// earlier and found the same (remembered in the user cache
    /// directory).
    Remembered,
}

/// How the content of a source whose modification time differs was found
/// to be the one the sidecar describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// A gzip archive of one member: its trailer (CRC-32 and length of the
    /// whole text) lies in the tail block, which matched.
    GzipTrailer,
    /// A gzip archive of several members: `checked` of the `members`
    /// member trailers compared with the CRC-32 and length of each
    /// member's text as the sidecar recorded them (at most
    /// [`MEMBERS_CHECKED`], spread evenly; the last one lies in the tail
    /// block).
    GzipMembers {
        /// Trailers compared.
        checked: u64,
        /// Members with text.
        members: u64,
    },
    /// A plain file read whole: every checkpoint and the line count are as
    /// recorded.
    Rescan,
    /// A zstd seekable archive: `checked` of its `frames` frames end with
    /// the content checksum that the seek table gave them when the sidecar
    /// was built (at most [`MEMBERS_CHECKED`], spread evenly).
    ZstdFrames {
        /// Frame checksums compared.
        checked: u64,
        /// Frames.
        frames: u64,
    },
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Evidence::Fingerprint => {
                f.write_str("size, modification time, head and tail as indexed")
            }
            Evidence::Content(Proof::GzipTrailer) => {
                f.write_str("content verified: the gzip trailer; the modification time differs")
            }
            Evidence::Content(Proof::GzipMembers { checked, members }) => write!(
                f,
                "content verified: {checked} of {members} gzip member trailers; the modification time differs"
            ),
            Evidence::Content(Proof::ZstdFrames { checked, frames }) => write!(
                f,
                "content verified: {checked} of {frames} zstd frame checksums; the modification time differs"
            ),
            Evidence::Content(Proof::Rescan) => f.write_str(
                "content verified: the file re-read whole; the modification time differs",
            ),
            Evidence::Remembered => f.write_str(
                "content verified earlier for this very file; the modification time differs",
            ),
        }
    }
}

/// How the source compares with the fingerprint, before any content check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// Everything as recorded.
    Same,
    /// Size, head and tail as recorded; the modification time differs (or
    /// is not known, as for a remote object).
    MtimeDiffers,
    /// Grown, prefix unchanged.
    Appended,
    /// Changed.
    Rewritten,
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

/// Compares `src` (of current length `src.len()` and modification time
/// `now_mtime`, `None` when it has none, as a remote object) with the
/// fingerprint `fp` stored in a sidecar.
pub fn compare(
    fp: &Fingerprint,
    src: &dyn ReadAt,
    now_mtime: Option<(i64, u32)>,
) -> Result<Comparison> {
    let len = src.len();
    if len < fp.size {
        return Ok(Comparison::Rewritten);
    }
    let head = crc_range(src, 0, fp.size.min(FINGERPRINT_BLOCK))?;
    let tail = crc_range(src, fp.size.saturating_sub(FINGERPRINT_BLOCK), fp.size)?;
    if head != fp.head_crc || tail != fp.tail_crc {
        return Ok(Comparison::Rewritten);
    }
    if len > fp.size {
        return Ok(Comparison::Appended);
    }
    if now_mtime != Some((fp.mtime_sec, fp.mtime_nsec)) {
        return Ok(Comparison::MtimeDiffers);
    }
    Ok(Comparison::Same)
}

/// Maps an I/O error reading the source during fingerprinting.
pub fn source_error(path: &std::path::Path, e: std::io::Error) -> Error {
    Error::io("stat", path, e)
}

/// At most this many member trailers of a multi-member gzip archive are
/// compared ([`Proof::GzipMembers`]), or frame checksums of a zstd
/// seekable archive ([`Proof::ZstdFrames`]); above it, that many spread
/// evenly.
pub const MEMBERS_CHECKED: usize = 1024;

/// As [`MEMBERS_CHECKED`] for a remote archive, where each is a request:
/// sent together, they cost one round trip and a few KiB.
pub const MEMBERS_CHECKED_REMOTE: usize = 64;

/// One member of a gzip archive with text, as the sidecar records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Byte offset of its first deflate byte (its access point's `comp_bit
    /// / 8`).
    pub data_start: u64,
    /// CRC-32 of its text (combined from the span CRCs).
    pub crc: u32,
    /// Length of its text.
    pub len: u64,
}

/// The bytes read before a member's data at first: its header (10 bytes,
/// 18 for BGZF's) and the trailer before it, with room for a short name.
const HEADER_FIRST: u64 = 256;

/// The longest member header looked for before a member's data: a header
/// longer than this (a huge file name or extra field) leaves its
/// predecessor's trailer unchecked.
const HEADER_LOOKBACK: u64 = 4096;

/// `n` of `0..count` spread evenly (all of them when `count <= n`), the
/// first and the last included.
pub fn spread(count: usize, n: usize) -> Vec<usize> {
    if count <= n {
        return (0..count).collect();
    }
    (0..n).map(|k| k * (count - 1) / (n - 1)).collect()
}

/// Checks the trailers of `members` (in archive order; member 0 first) in
/// the gzip file `gz`: the 8 bytes before each member header after the
/// first are the previous member's CRC-32 and length. The last member's
/// trailer is left to the tail block. At most `limit` boundaries are
/// compared, spread evenly; the bytes around each are asked for together
/// first ([`ReadAt::will_need_exact`]: one round trip for a remote
/// archive), a few hundred per member. Returns `Some(checked)` when every
/// trailer looked at agrees (`checked` of them could be found; a trailer
/// of an empty member, `0 0`, in front of a member proves nothing and is
/// not counted), `None` when one disagrees: the content differs.
pub fn check_members(gz: &dyn ReadAt, members: &[Member], limit: usize) -> Result<Option<u64>> {
    let boundaries = members.len().saturating_sub(1);
    let picks = spread(boundaries, limit.max(2));
    let window = |j: usize, back: u64| {
        let next = members[j + 1].data_start;
        next.saturating_sub(back + 8)..next
    };
    for &j in &picks {
        gz.will_need_exact(window(j, HEADER_FIRST));
    }
    // (A remote archive now has every window in flight.)
    let mut checked = 0;
    let mut buf = Vec::new();
    for &j in &picks {
        let prev = &members[j];
        let mut found = None;
        for back in [HEADER_FIRST, HEADER_LOOKBACK] {
            let w = window(j, back);
            buf.resize((w.end - w.start) as usize, 0);
            gz.read_exact_at(&mut buf, w.start)?;
            if let Some(h) = header_start(&buf) {
                found = Some(h);
                break;
            }
            if w.start == 0 {
                break;
            }
        }
        let Some(h) = found else {
            continue;
        };
        if h < 8 {
            continue;
        }
        let t = &buf[h - 8..h];
        let crc = u32::from_le_bytes(t[..4].try_into().expect("4 bytes"));
        let isize = u32::from_le_bytes(t[4..].try_into().expect("4 bytes"));
        if (crc, isize) == (prev.crc, prev.len as u32) {
            checked += 1;
        } else if (crc, isize) != (0, 0) {
            return Ok(None);
        }
    }
    Ok(Some(checked))
}

/// In `b`, which ends where a member's deflate data starts, the start of
/// that member's header: the last position holding the gzip magic from
/// which a header parses to exactly the end of `b`.
fn header_start(b: &[u8]) -> Option<usize> {
    let mut at = b.len();
    while let Some(p) = memchr::memrchr(0x1f, &b[..at]) {
        if b[p..].starts_with(&[0x1f, 0x8b, 0x08])
            && crate::gzip::header::parse(&b[p..]) == Ok(b.len() - p)
        {
            return Some(p);
        }
        at = p;
    }
    None
}

/// A remembered positive content check ([`Evidence::Remembered`]): one
/// small file per (source, sidecar) pair under `verified/` in the user
/// cache directory, holding the identity that was checked. The identity
/// of a local file is its canonical path, device, inode, size and
/// modification and change times (a change time cannot be set back, so
/// any later write makes the memo miss); of a remote object, its URL,
/// ETag (or Last-Modified) and size. The sidecar's side is its canonical
/// path and superblock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memo {
    source: String,
}

impl Memo {
    /// The identity of the local file `path` with metadata `meta`.
    pub fn for_file(path: &Path, meta: &Metadata) -> Option<Memo> {
        use std::os::unix::fs::MetadataExt;
        let canon = std::fs::canonicalize(path).ok()?;
        Some(Memo {
            source: format!(
                "file {} dev {} ino {} size {} mtime {}.{:09} ctime {}.{:09}",
                canon.display(),
                meta.dev(),
                meta.ino(),
                meta.len(),
                meta.mtime(),
                meta.mtime_nsec(),
                meta.ctime(),
                meta.ctime_nsec()
            ),
        })
    }

    /// The identity of a remote object.
    pub fn for_object(url: &str, version: &str, size: u64) -> Memo {
        Memo {
            source: format!("object {url} version {version} size {size}"),
        }
    }

    /// The memo's text for this source and the sidecar at `sidecar` with
    /// superblock `sb`, and the file it lives in.
    fn entry(&self, sidecar: &Path, sb: &[u8]) -> Option<(String, PathBuf)> {
        let side = std::fs::canonicalize(sidecar).unwrap_or_else(|_| sidecar.to_path_buf());
        let text = format!(
            "lidx verified\n{}\nsidecar {} superblock {:08x}\n",
            self.source,
            side.display(),
            crc32(sb)
        );
        let pair = format!("{}\n{}", self.source.split(" dev ").next()?, side.display());
        let name = format!("{:016x}", crate::index::locate::fnv1a64(pair.as_bytes()));
        Some((
            text,
            crate::index::locate::cache_dir()?
                .join("verified")
                .join(name),
        ))
    }

    /// True when this source was remembered as verified against this
    /// sidecar.
    pub fn recalls(&self, sidecar: &Path, sb: &[u8]) -> bool {
        let Some((text, path)) = self.entry(sidecar, sb) else {
            return false;
        };
        std::fs::read(path).is_ok_and(|b| b == text.as_bytes())
    }

    /// Remembers that this source was verified against this sidecar (best
    /// effort: a cache directory that cannot be written only costs a new
    /// check next time). Written to a temporary name and renamed.
    pub fn remember(&self, sidecar: &Path, sb: &[u8]) {
        let Some((text, path)) = self.entry(sidecar, sb) else {
            return;
        };
        let Some(dir) = path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = dir.join(format!(
            ".{}.tmp-{}",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            std::process::id()
        ));
        if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::MemSource;
    use std::io::Write;

    fn member(text: &[u8], name: Option<&[u8]>) -> Vec<u8> {
        let mut b = flate2::GzBuilder::new();
        if let Some(n) = name {
            b = b.filename(n);
        }
        let mut e = b.write(Vec::new(), flate2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    /// Members of `parts` concatenated, and their records as a sidecar
    /// would give them.
    fn archive(parts: &[(&[u8], Option<&[u8]>)]) -> (Vec<u8>, Vec<Member>) {
        let mut gz = Vec::new();
        let mut members = Vec::new();
        for (text, name) in parts {
            let m = member(text, *name);
            let h = crate::gzip::header::parse(&m).unwrap();
            members.push(Member {
                data_start: (gz.len() + h) as u64,
                crc: crc32(text),
                len: text.len() as u64,
            });
            gz.extend_from_slice(&m);
        }
        (gz, members)
    }

    #[test]
    fn member_trailers_agree_or_expose_a_change() {
        let parts: [(&[u8], Option<&[u8]>); 3] = [
            (b"one\ntwo\n", None),
            (b"three\n", Some(b"x.log")),
            (b"four\nfive\n", None),
        ];
        let (gz, members) = archive(&parts);
        let src = MemSource::new(gz.clone());
        assert_eq!(
            check_members(&src, &members, MEMBERS_CHECKED).unwrap(),
            Some(2)
        );
        // The same length, another text in member 1: its trailer differs
        // from what the sidecar recorded.
        let mut other = members.clone();
        other[0].crc ^= 1;
        assert_eq!(check_members(&src, &other, MEMBERS_CHECKED).unwrap(), None);
        // An empty member in front of member 2: its trailer (0 0) proves
        // nothing about member 1, which goes unchecked.
        let mut with_empty = member(b"one\ntwo\n", None);
        let first = members[0];
        with_empty.extend_from_slice(&member(b"", None));
        let third = member(b"three\n", None);
        let h = crate::gzip::header::parse(&third).unwrap();
        let ms = [
            first,
            Member {
                data_start: (with_empty.len() + h) as u64,
                crc: crc32(b"three\n"),
                len: 6,
            },
        ];
        with_empty.extend_from_slice(&third);
        assert_eq!(
            check_members(&MemSource::new(with_empty), &ms, MEMBERS_CHECKED).unwrap(),
            Some(0)
        );
    }

    #[test]
    fn headers_are_found_backwards() {
        let m = member(b"abc\n", Some(b"name\x1f\x8b\x08.log"));
        let h = crate::gzip::header::parse(&m).unwrap();
        let mut b = b"junk\x1f\x8b\x08".to_vec();
        b.extend_from_slice(&m[..h]);
        assert_eq!(header_start(&b), Some(7));
        assert_eq!(header_start(b"no header here"), None);
    }
}

/// A zstd seekable frame as the sidecar records it, for
/// [`check_frames`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSum {
    /// Offset of the frame in the archive and its length.
    pub comp: u64,
    pub comp_len: u32,
    /// The seek table's checksum of the frame's text, recorded at build.
    pub xxh: u32,
}

/// Checks the content checksums at the ends of the frames `frames` (each
/// recorded with the seek table's checksum and a frame that carries its
/// own) in the zstd archive `zst`: at most `limit`, spread evenly, read
/// together (4 bytes each). `Some(checked)` when all agree, `None` when
/// one differs.
pub fn check_frames(zst: &dyn ReadAt, frames: &[FrameSum], limit: usize) -> Result<Option<u64>> {
    let picks = spread(frames.len(), limit.max(2));
    let tail = |f: &FrameSum| {
        let end = f.comp + f.comp_len as u64;
        end.saturating_sub(4)..end
    };
    for &i in &picks {
        zst.will_need_exact(tail(&frames[i]));
    }
    let mut checked = 0;
    for &i in &picks {
        let mut b = [0u8; 4];
        let t = tail(&frames[i]);
        zst.read_exact_at(&mut b, t.start)?;
        if u32::from_le_bytes(b) != frames[i].xxh {
            return Ok(None);
        }
        checked += 1;
    }
    Ok(Some(checked))
}
