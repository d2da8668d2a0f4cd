//! Following a rotation family (`tail -F` across rotations, with global
//! line numbers): each poll opens the family again (recognising members
//! by content, so renames and compression change nothing), writes the
//! lines past the last one written — the rest of a member that was
//! rotated away first, then the newer members — and only complete lines
//! of the live file.

use super::Family;
use crate::error::{Error, Result};
use crate::index::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Follows a family from a global line on.
#[derive(Debug)]
pub struct FamilyFollower {
    live: PathBuf,
    opts: OpenOptions,
    /// Global number of the next line to write.
    next: u64,
}

impl FamilyFollower {
    /// Starts following the family of `live` at global line `from`.
    pub fn new(live: impl AsRef<Path>, from: u64, opts: &OpenOptions) -> FamilyFollower {
        FamilyFollower {
            live: live.as_ref().to_path_buf(),
            opts: opts.clone(),
            next: from,
        }
    }

    /// The global number of the next line to write.
    pub fn next_line(&self) -> u64 {
        self.next
    }

    /// Writes the new complete lines (each prefixed with its global
    /// number when `numbered`); returns how many. A family caught in the
    /// middle of a rotation (a file gone between its listing and its
    /// open, an archive still being written) writes nothing this time.
    /// Lines deleted before they could be written (the follower fell
    /// behind the oldest member) are an error.
    pub fn poll(&mut self, numbered: bool, out: &mut dyn Write) -> Result<u64> {
        let family = match Family::open(&self.live, &self.opts, false) {
            Ok(f) => f,
            Err(e) if transient(&e) => return Ok(0),
            Err(e) => return Err(e),
        };
        if self.next < family.first_line() {
            return Err(Error::Family {
                path: self.live.clone(),
                what: format!(
                    "lines {}–{} were rotated away before they could be followed",
                    self.next + 1,
                    family.first_line()
                ),
            });
        }
        let mut written = 0;
        let last = family.members().len().saturating_sub(1);
        for (i, m) in family.members().iter().enumerate() {
            let lines = m.lines();
            // The live file's last line may still be being written.
            let end = if i == last {
                m.base_line + m.index.complete_lines()?
            } else {
                lines.end
            };
            if end <= self.next {
                continue;
            }
            let start = self.next.max(lines.start);
            let local = start - m.base_line..end - m.base_line;
            written +=
                m.index
                    .write_lines_labelled(local, b"", numbered.then_some(start + 1), out)?;
            self.next = end;
        }
        Ok(written)
    }
}

/// Errors of a rotation caught half-way: a file renamed or removed
/// between its listing and its open, an archive not yet complete.
fn transient(e: &Error) -> bool {
    match e {
        Error::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
        Error::CorruptSource { .. } | Error::Damaged { .. } => true,
        _ => false,
    }
}
