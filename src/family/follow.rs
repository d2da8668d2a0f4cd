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
        let mut buf = crate::index::LineBuf::new();
        let mut itoa = Vec::new();
        for (i, m) in family.members().iter().enumerate() {
            let lines = m.lines();
            // The live file's last line may still be being written.
            let end = if i == last {
                match m.index.complete_lines() {
                    Ok(c) => m.base_line + c,
                    Err(e) if transient(&e) => return Ok(written),
                    Err(e) => return Err(e),
                }
            } else {
                lines.end
            };
            while self.next.max(lines.start) < end {
                // A batch read whole before it is written: a file
                // truncated under the read (copytruncate) writes nothing
                // of the batch, and the next poll takes it again.
                let start = self.next.max(lines.start);
                let to = end.min(start + BATCH);
                let local = start - m.base_line..to - m.base_line;
                match m.index.read_lines(local, &mut buf) {
                    Ok(_) => {}
                    Err(e) if transient(&e) => return Ok(written),
                    Err(e) => return Err(e),
                }
                let w = |e| Error::io("write", Path::new("<stdout>"), e);
                for k in 0..buf.len() {
                    if numbered {
                        itoa.clear();
                        write!(itoa, "{}:", start + k as u64 + 1).map_err(w)?;
                        out.write_all(&itoa).map_err(w)?;
                    }
                    out.write_all(buf.line_with_terminator(k)).map_err(w)?;
                }
                written += buf.len() as u64;
                self.next = to;
            }
        }
        Ok(written)
    }
}

/// Lines read and written at a time.
const BATCH: u64 = 4096;

/// Errors of a rotation caught half-way: a file renamed or removed
/// between its listing and its open, an archive not yet complete, a file
/// truncated while it was read (copytruncate).
fn transient(e: &Error) -> bool {
    match e {
        Error::Io { source, .. } => matches!(
            source.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::UnexpectedEof
        ),
        Error::CorruptSource { .. } | Error::Damaged { .. } | Error::SourceChanged { .. } => true,
        _ => false,
    }
}
