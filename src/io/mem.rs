//! [`ReadAt`] over bytes in memory, optionally placed at a high base offset.

use super::ReadAt;
use crate::error::Result;
use std::path::{Path, PathBuf};

/// An in-memory source. `MemSource::sparse` builds a source whose bytes are
/// zero-free filler up to a base offset, so tests can exercise offsets above
/// 4 GiB without a 4 GiB buffer.
#[derive(Debug, Clone)]
pub struct MemSource {
    data: Vec<u8>,
    /// Logical length (may exceed `data.len()` for sparse sources).
    len: u64,
    /// Where `data` starts; bytes before it read as `filler`.
    base: u64,
    filler: u8,
    path: PathBuf,
}

impl MemSource {
    /// A source holding exactly `data`.
    pub fn new(data: Vec<u8>) -> MemSource {
        let len = data.len() as u64;
        MemSource {
            data,
            len,
            base: 0,
            filler: b'x',
            path: PathBuf::from("<memory>"),
        }
    }

    /// A source of `base` bytes of `filler` (use a byte other than `\n` for
    /// one huge first line, or `\n` for many empty lines) followed by `tail`.
    pub fn sparse(base: u64, filler: u8, tail: Vec<u8>) -> MemSource {
        let len = base + tail.len() as u64;
        MemSource {
            data: tail,
            len,
            base,
            filler,
            path: PathBuf::from("<memory>"),
        }
    }
}

impl ReadAt for MemSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        if offset >= self.len {
            return Ok(0);
        }
        let n = ((self.len - offset).min(buf.len() as u64)) as usize;
        let mut done = 0;
        if offset < self.base {
            let f = ((self.base - offset).min(n as u64)) as usize;
            buf[..f].fill(self.filler);
            done = f;
        }
        if done < n {
            let start = (offset + done as u64 - self.base) as usize;
            let take = n - done;
            buf[done..n].copy_from_slice(&self.data[start..start + take]);
        }
        Ok(n)
    }

    fn path(&self) -> &Path {
        &self.path
    }
}
