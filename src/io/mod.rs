//! Positional reads: the only layer that touches file descriptors for reading.
//!
//! Everything above reads through [`ReadAt`], a `pread`-style trait with one
//! implementation over a real file ([`FileSource`]) and one over bytes in
//! memory ([`MemSource`], for tests and for sources larger than the disk,
//! such as the sparse "offsets above 4 GiB" test), and one over an object
//! in a remote store (`RemoteSource`, feature `remote`: HTTP range
//! requests, S3, GCS, Azure). No mmap: every read is an
//! explicit `pread` whose size and position we choose.

mod aligned;
#[cfg(feature = "remote")]
mod aws;
mod file;
mod mem;
#[cfg(feature = "remote")]
pub mod remote;

pub use aligned::{AlignedBuf, READ_ALIGN, aligned_start};
pub use file::FileSource;
pub use mem::MemSource;
#[cfg(feature = "remote")]
pub use remote::RemoteSource;

/// URL schemes read as remote objects (as `object_store` names them).
const URL_SCHEMES: &[&str] = &[
    "http", "https", "s3", "s3a", "gs", "az", "adl", "azure", "abfs", "abfss",
];

/// True when `name` is a URL of a remote object (`http://`, `https://`,
/// `s3://`, `s3a://`, `gs://`, `az://`, `adl://`, `azure://`, `abfs://`,
/// `abfss://`), not a local path. (Known whether or not this build reads
/// them: feature `remote`.)
pub fn is_url(name: &Path) -> bool {
    let Some(s) = name.to_str() else {
        return false;
    };
    match s.split_once("://") {
        Some((scheme, rest)) => {
            !rest.is_empty() && URL_SCHEMES.iter().any(|k| scheme.eq_ignore_ascii_case(k))
        }
        None => false,
    }
}

use crate::error::Result;
use std::path::Path;

/// A byte source that can be read at any offset without a shared cursor.
///
/// Implementations must be safe to call from many threads at once.
pub trait ReadAt: Send + Sync {
    /// Total length in bytes.
    fn len(&self) -> u64;

    /// True when the source has no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads up to `buf.len()` bytes at `offset`; returns how many were read
    /// (0 only at or past the end).
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize>;

    /// The path reported in errors (for a remote object, its URL).
    fn path(&self) -> &Path;

    /// Says that `range` will be read soon, so that a source for which a
    /// read is a round trip (a remote object) can start fetching it now,
    /// together with other hints, without waiting. A hint only; the
    /// default does nothing (a local file's reads are cheap enough).
    fn will_need(&self, range: std::ops::Range<u64>) {
        let _ = range;
    }

    /// As [`ReadAt::will_need`], for a small range read on its own: a
    /// remote source fetches just these bytes (not the block around
    /// them), so that many scattered small reads (member trailers, frame
    /// checksums) cost their bytes, in requests sent together.
    fn will_need_exact(&self, range: std::ops::Range<u64>) {
        self.will_need(range)
    }

    /// Fills `buf` completely from `offset`, or fails with `UnexpectedEof`
    /// wrapped in an I/O error naming the path.
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> Result<()> {
        while !buf.is_empty() {
            let n = self.read_at(buf, offset)?;
            if n == 0 {
                return Err(crate::Error::io(
                    "read",
                    self.path(),
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "unexpected end of file",
                    ),
                ));
            }
            buf = &mut buf[n..];
            offset += n as u64;
        }
        Ok(())
    }

    /// Reads as much of `buf` as exists at `offset` (stops early only at the
    /// end of the source); returns the number of bytes read.
    fn read_full_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            let n = self.read_at(&mut buf[done..], offset + done as u64)?;
            if n == 0 {
                break;
            }
            done += n;
        }
        Ok(done)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for std::sync::Arc<T> {
    fn len(&self) -> u64 {
        (**self).len()
    }
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        (**self).read_at(buf, offset)
    }
    fn path(&self) -> &Path {
        (**self).path()
    }
    fn will_need(&self, range: std::ops::Range<u64>) {
        (**self).will_need(range)
    }
    fn will_need_exact(&self, range: std::ops::Range<u64>) {
        (**self).will_need_exact(range)
    }
}
