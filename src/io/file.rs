//! [`ReadAt`] over a real file with `pread` (`FileExt::read_at`).

use super::ReadAt;
use crate::error::{Error, Result};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A file opened for positional reads. Its length is fixed when opened: a
/// file that grows afterwards is read only up to that length, so a query
/// never sees bytes the index does not describe.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    path: PathBuf,
    len: u64,
}

impl FileSource {
    /// Opens `path` read-only and records its current length.
    pub fn open(path: &Path) -> Result<FileSource> {
        // Check the type before opening: opening a FIFO blocks until a
        // writer appears.
        let pre = std::fs::metadata(path).map_err(|e| Error::io("open", path, e))?;
        if !pre.is_file() && !pre.is_dir() {
            return Err(not_regular(path));
        }
        let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
        let meta = file.metadata().map_err(|e| Error::io("stat", path, e))?;
        if meta.is_dir() {
            return Err(Error::io(
                "open",
                path,
                std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"),
            ));
        }
        if !meta.is_file() {
            return Err(not_regular(path));
        }
        Ok(FileSource {
            file,
            path: path.to_path_buf(),
            len: meta.len(),
        })
    }

    /// Wraps an already-open file whose length is `len`.
    pub fn from_file(file: File, path: &Path, len: u64) -> FileSource {
        FileSource {
            file,
            path: path.to_path_buf(),
            len,
        }
    }

    /// The underlying file.
    pub fn file(&self) -> &File {
        &self.file
    }
}

fn not_regular(path: &Path) -> Error {
    Error::InvalidArgument(format!(
        "{}: not a regular file (a pipe or a device cannot be indexed: lidx \
         needs a file it can seek in; save the stream to a file first)",
        path.display()
    ))
}

impl ReadAt for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        if offset >= self.len {
            return Ok(0);
        }
        let max = ((self.len - offset).min(buf.len() as u64)) as usize;
        loop {
            match self.file.read_at(&mut buf[..max], offset) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io("read", &self.path, e)),
            }
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }
}
