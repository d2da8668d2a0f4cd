//! Crash-safe sidecar writing: temp file in the target directory, pages
//! written through a buffer (and read back and moved by the tree builder,
//! all within the temp file), superblock last, fsync, rename, fsync dir.
//!
//! A crash at any moment leaves either the previous sidecar or the new
//! complete one under the final name; at worst a `.NAME.tmp-PID-N` file is
//! left behind, which readers never open (a later write removes stale ones
//! whose process is gone).

use super::build::PageSink;
use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A sidecar being written under a temporary name. Pages are written with
/// positional writes; consecutive ones are gathered in a buffer first.
#[derive(Debug)]
pub struct AtomicFile {
    file: File,
    /// Pages not yet written, consecutive from page `buf_first`.
    buf: Vec<u8>,
    buf_first: u32,
    page_size: usize,
    tmp: PathBuf,
    dest: PathBuf,
    done: bool,
}

/// Bytes gathered before a write.
const WRITE_BUFFER: usize = 1 << 16;

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// `.NAME.tmp-` for a sidecar named NAME, with NAME cut to 200 bytes so the
/// temp name stays under the usual 255-byte file name limit.
fn temp_prefix(dest: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let name = dest.file_name().map(|n| n.as_bytes()).unwrap_or_default();
    let mut p = b".".to_vec();
    p.extend_from_slice(&name[..name.len().min(200)]);
    p.extend_from_slice(b".tmp-");
    p
}

fn temp_path(dest: &Path, pid: u32, n: u32) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    let mut name = temp_prefix(dest);
    name.extend_from_slice(format!("{pid}-{n}").as_bytes());
    parent_dir(dest).join(std::ffi::OsString::from_vec(name))
}

impl AtomicFile {
    /// Creates the temp file next to `dest` and reserves page 0.
    pub fn create(dest: &Path, page_size: u32) -> Result<AtomicFile> {
        remove_stale_temps(dest);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = temp_path(dest, std::process::id(), n);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io("create", &tmp, e))?;
        let mut buf = Vec::with_capacity(WRITE_BUFFER.max(page_size as usize));
        // Page 0 is a placeholder until the superblock is written.
        buf.resize(page_size as usize, 0);
        Ok(AtomicFile {
            file,
            buf,
            buf_first: 0,
            page_size: page_size as usize,
            tmp,
            dest: dest.to_path_buf(),
            done: false,
        })
    }

    /// Writes the gathered pages out.
    fn flush(&mut self) -> Result<()> {
        let page_size = self.page_size;
        if !self.buf.is_empty() {
            self.file
                .write_all_at(&self.buf, self.buf_first as u64 * page_size as u64)
                .map_err(|e| Error::io("write", &self.tmp, e))?;
            self.buf_first += (self.buf.len() / page_size) as u32;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes the superblock page, fsyncs, renames into place, fsyncs the
    /// directory.
    pub fn commit(mut self, superblock: &[u8]) -> Result<()> {
        self.flush()?;
        let file = &self.file;
        file.write_all_at(superblock, 0)
            .map_err(|e| Error::io("write", &self.tmp, e))?;
        file.sync_all()
            .map_err(|e| Error::io("fsync", &self.tmp, e))?;
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| Error::io("rename", &self.dest, e))?;
        self.done = true;
        let dir = parent_dir(&self.dest);
        if let Ok(d) = File::open(&dir) {
            // Some filesystems refuse fsync on directories; the rename
            // itself has happened, so this is best effort.
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl PageSink for AtomicFile {
    fn write_pages(&mut self, id: u32, page_size: usize, pages: &[u8]) -> Result<()> {
        assert_eq!(page_size, self.page_size, "pages of the sidecar's size");
        let gathered = (self.buf.len() / page_size) as u32;
        if id != self.buf_first + gathered || self.buf.len() + pages.len() > WRITE_BUFFER {
            self.flush()?;
            self.buf_first = id;
        }
        if pages.len() >= WRITE_BUFFER {
            self.file
                .write_all_at(pages, id as u64 * page_size as u64)
                .map_err(|e| Error::io("write", &self.tmp, e))?;
            self.buf_first = id + (pages.len() / page_size) as u32;
        } else {
            self.buf.extend_from_slice(pages);
        }
        Ok(())
    }

    fn read_pages(&mut self, id: u32, page_size: usize, pages: &mut [u8]) -> Result<()> {
        assert_eq!(page_size, self.page_size, "pages of the sidecar's size");
        self.flush()?;
        self.file
            .read_exact_at(pages, id as u64 * page_size as u64)
            .map_err(|e| Error::io("read", &self.tmp, e))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The directory holding `path` ("." for a bare file name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Removes `.NAME.tmp-PID-N` files left by killed writers of `dest`
/// (only those whose PID no longer runs).
fn remove_stale_temps(dest: &Path) {
    let prefix = temp_prefix(dest);
    let Ok(dir) = std::fs::read_dir(parent_dir(dest)) else {
        return;
    };
    for entry in dir.flatten() {
        use std::os::unix::ffi::OsStrExt;
        let name = entry.file_name();
        let rest = name
            .as_bytes()
            .strip_prefix(&prefix[..])
            .and_then(|r| std::str::from_utf8(r).ok());
        let Some(rest) = rest else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages appended, read back, written over and past the end (as the
    /// tree builder moves its leaves) land where their numbers say, with
    /// page 0 zero until the superblock is committed.
    #[test]
    fn positional_pages() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("t.lidx");
        let p = 512usize;
        let page = |b: u8| vec![b; p];
        let mut f = AtomicFile::create(&dest, p as u32).unwrap();
        for id in 1..=3u32 {
            f.write_page(id, &page(id as u8)).unwrap();
        }
        let mut back = vec![0u8; 2 * p];
        f.read_pages(2, p, &mut back).unwrap();
        assert_eq!(back, [page(2), page(3)].concat());
        // Past the end, leaving a gap that is filled next.
        f.write_pages(5, p, &[page(13), page(14)].concat()).unwrap();
        f.write_page(4, &page(12)).unwrap();
        // Over earlier pages, then appending again.
        f.write_page(1, &page(21)).unwrap();
        f.write_page(7, &page(7)).unwrap();
        let mut big = vec![0u8; WRITE_BUFFER];
        big.fill(8);
        f.write_pages(8, p, &big).unwrap();
        let n = (WRITE_BUFFER / p) as u8;
        f.write_page(8 + n as u32, &page(9)).unwrap();
        let temp = f.tmp.clone();
        let on_disk = std::fs::read(&temp).unwrap();
        assert!(on_disk.len() <= (9 + n as usize) * p);
        assert!(on_disk[..p].iter().all(|&b| b == 0));
        let mut sb = vec![0u8; p];
        sb[0] = 0xaa;
        f.commit(&sb).unwrap();
        let got = std::fs::read(&dest).unwrap();
        let mut want = [
            sb,
            page(21),
            page(2),
            page(3),
            page(12),
            page(13),
            page(14),
            page(7),
        ]
        .concat();
        want.extend_from_slice(&big);
        want.extend(page(9));
        assert_eq!(got.len(), want.len());
        assert!(got == want);
        assert!(!temp.exists());
    }
}

/// An exclusive lock on building the sidecar `dest` (`.NAME.lock` next to
/// it, an advisory `flock`): processes that would build the same sidecar
/// at once take turns, and each checks, once it holds the lock, whether
/// the one before it built what it needs (several cold queries of one URL
/// stream the object once). Released, and its file removed, on drop; a
/// process that dies releases it too.
#[derive(Debug)]
pub struct BuildLock {
    _file: File,
    path: PathBuf,
}

impl BuildLock {
    /// Waits for the lock on building `dest`.
    pub fn acquire(dest: &Path) -> Result<BuildLock> {
        use std::os::unix::ffi::OsStringExt;
        let mut name = b".".to_vec();
        {
            use std::os::unix::ffi::OsStrExt;
            let n = dest.file_name().map(|n| n.as_bytes()).unwrap_or_default();
            name.extend_from_slice(&n[..n.len().min(200)]);
        }
        name.extend_from_slice(b".lock");
        let path = parent_dir(dest).join(std::ffi::OsString::from_vec(name));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io("create", &path, e))?;
        file.lock().map_err(|e| Error::io("lock", &path, e))?;
        Ok(BuildLock { _file: file, path })
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        // A process waiting on this file gets it once it is closed, and
        // checks for the sidecar; one that comes later makes a new file.
        let _ = std::fs::remove_file(&self.path);
    }
}
