//! A temporary spill: bytes written once while a build streams, read back
//! at its end (the windows of a gzip build, the spans of a time index), so
//! that memory stays bounded.

use crate::error::{Error, Result};
use std::io::Write;

/// Bytes appended to a temporary file (or memory if none can be created),
/// read back once.
pub(crate) struct Spill {
    /// Bytes appended so far.
    file: Option<(std::fs::File, std::path::PathBuf)>,
    mem: Vec<u8>,
    pub(crate) len: u64,
}

impl Spill {
    /// An empty spill (a file in the temporary directory, else memory).
    pub(crate) fn new() -> Spill {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "lidx-spill-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .ok();
        Spill {
            file: file.map(|f| (f, path)),
            mem: Vec::new(),
            len: 0,
        }
    }

    /// Appends `b`.
    pub(crate) fn append(&mut self, b: &[u8]) -> Result<()> {
        match &mut self.file {
            Some((f, p)) => f.write_all(b).map_err(|e| Error::io("write", p, e))?,
            None => self.mem.extend_from_slice(b),
        }
        self.len += b.len() as u64;
        Ok(())
    }

    /// Writes `b` at `at`, over earlier bytes or just past the end.
    pub(crate) fn write_at(&mut self, b: &[u8], at: u64) -> Result<()> {
        match &mut self.file {
            Some((f, p)) => {
                use std::os::unix::fs::FileExt;
                f.write_all_at(b, at)
                    .map_err(|e| Error::io("write", p, e))?
            }
            None => {
                let end = at as usize + b.len();
                if self.mem.len() < end {
                    self.mem.resize(end, 0);
                }
                self.mem[at as usize..end].copy_from_slice(b);
            }
        }
        self.len = self.len.max(at + b.len() as u64);
        Ok(())
    }

    /// Drops the bytes from `len` on; the next append follows them.
    pub(crate) fn truncate(&mut self, len: u64) -> Result<()> {
        if len >= self.len {
            return Ok(());
        }
        match &mut self.file {
            Some((f, p)) => {
                use std::io::{Seek, SeekFrom};
                f.set_len(len).map_err(|e| Error::io("truncate", p, e))?;
                f.seek(SeekFrom::Start(len))
                    .map_err(|e| Error::io("seek", p, e))?;
            }
            None => self.mem.truncate(len as usize),
        }
        self.len = len;
        Ok(())
    }

    /// Reads `buf.len()` bytes at `at` (all written before).
    pub(crate) fn read_at(&self, buf: &mut [u8], at: u64) -> Result<()> {
        match &self.file {
            Some((f, p)) => {
                use std::os::unix::fs::FileExt;
                f.read_exact_at(buf, at)
                    .map_err(|e| Error::io("read", p, e))
            }
            None => {
                buf.copy_from_slice(&self.mem[at as usize..at as usize + buf.len()]);
                Ok(())
            }
        }
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if let Some((_, p)) = &self.file {
            let _ = std::fs::remove_file(p);
        }
    }
}
