//! A temporary spill: bytes written once while a build streams, read back
//! at its end (the windows of a gzip build, the spans of a time index), so
//! that memory stays bounded.
//!
//! The bytes stay in memory up to [`MEM`]; beyond, they go to a temporary
//! file [`MEM`] bytes at a time. Most builds never make the file, and none
//! makes a system call per entry (a time index writes 16 bytes a span and
//! reads them back twice: one call each cost 65,536 spans a fifth of a
//! second).

use crate::error::{Error, Result};
use std::os::unix::fs::FileExt;

/// Bytes kept in memory before they go to the file (a few in the unit
/// tests, so that they reach it).
const MEM: usize = if cfg!(test) { 4096 } else { 1 << 20 };

/// Bytes written to a temporary file (or memory if none can be created)
/// and read back.
pub(crate) struct Spill {
    /// The file, once made (`None` and `failed`: none could be, and
    /// every byte stays in memory).
    file: Option<(std::fs::File, std::path::PathBuf)>,
    failed: bool,
    /// The bytes from `flushed` on.
    mem: Vec<u8>,
    /// The bytes before it are in the file.
    flushed: u64,
    /// Bytes written so far.
    pub(crate) len: u64,
}

impl Spill {
    /// An empty spill.
    pub(crate) fn new() -> Spill {
        Spill {
            file: None,
            failed: false,
            mem: Vec::new(),
            flushed: 0,
            len: 0,
        }
    }

    /// Appends `b`.
    pub(crate) fn append(&mut self, b: &[u8]) -> Result<()> {
        self.write_at(b, self.len)
    }

    /// Writes `b` at `at`, over earlier bytes or just past the end.
    pub(crate) fn write_at(&mut self, b: &[u8], at: u64) -> Result<()> {
        debug_assert!(at <= self.len);
        let end = at + b.len() as u64;
        // The part before `flushed` goes to the file.
        let below = (self.flushed.saturating_sub(at) as usize).min(b.len());
        if below > 0 {
            let (f, p) = self.file.as_ref().expect("flushed bytes are in the file");
            f.write_all_at(&b[..below], at)
                .map_err(|e| Error::io("write", p, e))?;
        }
        if end > self.flushed {
            let from = (at.max(self.flushed) - self.flushed) as usize;
            let to = (end - self.flushed) as usize;
            if self.mem.len() < to {
                self.mem.resize(to, 0);
            }
            self.mem[from..to].copy_from_slice(&b[below..]);
        }
        self.len = self.len.max(end);
        if self.mem.len() >= MEM && !self.failed {
            self.flush()?;
        }
        Ok(())
    }

    /// Moves the bytes in memory to the file (made now if it is not yet;
    /// if it cannot be, they stay in memory from now on).
    fn flush(&mut self) -> Result<()> {
        if self.file.is_none() {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let path = std::env::temp_dir().join(format!(
                "lidx-spill-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(f) => self.file = Some((f, path)),
                Err(_) => {
                    self.failed = true;
                    return Ok(());
                }
            }
        }
        let (f, p) = self.file.as_ref().expect("made above");
        f.write_all_at(&self.mem, self.flushed)
            .map_err(|e| Error::io("write", p, e))?;
        self.flushed += self.mem.len() as u64;
        self.mem.clear();
        Ok(())
    }

    /// Drops the bytes from `len` on; the next append follows them.
    pub(crate) fn truncate(&mut self, len: u64) -> Result<()> {
        if len >= self.len {
            return Ok(());
        }
        if len >= self.flushed {
            self.mem.truncate((len - self.flushed) as usize);
        } else {
            let (f, p) = self.file.as_ref().expect("flushed bytes are in the file");
            f.set_len(len).map_err(|e| Error::io("truncate", p, e))?;
            self.flushed = len;
            self.mem.clear();
        }
        self.len = len;
        Ok(())
    }

    /// Reads `buf.len()` bytes at `at` (all written before).
    pub(crate) fn read_at(&self, buf: &mut [u8], at: u64) -> Result<()> {
        debug_assert!(at + buf.len() as u64 <= self.len);
        let below = (self.flushed.saturating_sub(at) as usize).min(buf.len());
        if below > 0 {
            let (f, p) = self.file.as_ref().expect("flushed bytes are in the file");
            f.read_exact_at(&mut buf[..below], at)
                .map_err(|e| Error::io("read", p, e))?;
        }
        if below < buf.len() {
            let from = (at + below as u64 - self.flushed) as usize;
            let n = buf.len() - below;
            buf[below..].copy_from_slice(&self.mem[from..from + n]);
        }
        Ok(())
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if let Some((_, p)) = &self.file {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes, overwrites, truncations and reads across the memory's
    /// bound, against a plain vector.
    #[test]
    fn reads_what_was_written_across_the_file_and_memory() {
        let mut s = Spill::new();
        let mut model: Vec<u8> = Vec::new();
        let mut seed = 7u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..4000 {
            let r = next();
            match r % 8 {
                0 if !model.is_empty() => {
                    let len = next() % model.len() as u64;
                    s.truncate(len).unwrap();
                    model.truncate(len as usize);
                }
                1 | 2 if !model.is_empty() => {
                    let at = next() % model.len() as u64;
                    let n = (next() % 5000) as usize;
                    let b: Vec<u8> = (0..n).map(|i| (i as u64 + r) as u8).collect();
                    s.write_at(&b, at).unwrap();
                    let end = at as usize + n;
                    if model.len() < end {
                        model.resize(end, 0);
                    }
                    model[at as usize..end].copy_from_slice(&b);
                }
                _ => {
                    let n = (next() % 3000) as usize;
                    let b: Vec<u8> = (0..n).map(|i| (i as u64 ^ r) as u8).collect();
                    s.append(&b).unwrap();
                    model.extend_from_slice(&b);
                }
            }
            assert_eq!(s.len, model.len() as u64, "round {round}");
            if !model.is_empty() {
                let at = (next() % model.len() as u64) as usize;
                let n = (next() as usize % 9000).min(model.len() - at);
                let mut buf = vec![0u8; n];
                s.read_at(&mut buf, at as u64).unwrap();
                assert_eq!(buf, model[at..at + n], "round {round}: {n} at {at}");
            }
        }
        assert!(s.flushed > 0, "the test reached the file");
    }
}
