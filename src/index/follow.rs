//! Following a growing file (`tail -f` with line numbers): report new
//! complete lines as the file grows, keeping the sidecar current by
//! extension (only new bytes are scanned), and survive truncation or
//! rotation (the path replaced by a new file).

use super::{Index, OpenOptions};
use crate::error::{Error, Result};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What one [`Follower::poll`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowEvent {
    /// Nothing new.
    Idle,
    /// This many new complete lines were written.
    Lines(u64),
    /// The file was truncated or replaced; following restarted at its first
    /// line (nothing of the new file written yet).
    Restarted,
}

/// What one [`Follower::poll_lines`] saw.
#[derive(Debug)]
pub enum Followed {
    /// Nothing new.
    Idle,
    /// New complete lines: `lines` (0-based, half-open) of `index`.
    Lines {
        /// The index as of this poll, fresh for the file as it was then.
        index: Box<Index>,
        /// What opening it did (the sidecar built, extended, or used as
        /// it was).
        action: super::Action,
        /// The new complete lines.
        lines: std::ops::Range<u64>,
    },
    /// The file was truncated or replaced; following restarted at its first
    /// line (nothing of the new file reported yet).
    Restarted,
}

/// Follows one file. Only complete lines (ending in `\n`) are reported; a
/// last line still being written is reported once its `\n` arrives.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    opts: OpenOptions,
    /// 0-based number of the next line to report.
    next_line: u64,
    /// Offset just past the last reported line.
    done_offset: u64,
    /// (device, inode) of the file being followed.
    identity: (u64, u64),
}

fn identity(path: &Path) -> Result<((u64, u64), u64)> {
    let m = std::fs::metadata(path).map_err(|e| Error::io("stat", path, e))?;
    Ok(((m.dev(), m.ino()), m.len()))
}

impl Follower {
    /// Starts following `path` at 0-based line `from`: lines before it are
    /// skipped, lines from it on are reported by [`Follower::poll`].
    pub fn new(path: impl AsRef<Path>, from: u64, opts: &OpenOptions) -> Result<Follower> {
        let path = path.as_ref().to_path_buf();
        let (identity, _) = identity(&path)?;
        Ok(Follower {
            path,
            opts: opts.clone(),
            next_line: from,
            done_offset: 0,
            identity,
        })
    }

    /// 0-based number of the next line to report.
    pub fn next_line(&self) -> u64 {
        self.next_line
    }

    /// Checks the file once and writes the new complete lines to `out`
    /// (numbered 1-based with `numbered`, as `lidx lines -n`).
    pub fn poll(&mut self, numbered: bool, out: &mut dyn Write) -> Result<FollowEvent> {
        match self.poll_lines()? {
            Followed::Idle => Ok(FollowEvent::Idle),
            Followed::Restarted => Ok(FollowEvent::Restarted),
            Followed::Lines { index, lines, .. } => {
                let n = index.write_lines(lines, numbered, out)?;
                out.flush()
                    .map_err(|e| Error::io("write", Path::new("<stdout>"), e))?;
                Ok(FollowEvent::Lines(n))
            }
        }
    }

    /// Checks the file once and returns the new complete lines as a range
    /// and an index that reads them, for a caller that reads them itself
    /// (a viewer that pages through them, the C ABI): the lines are counted
    /// as reported once returned, and the next poll starts after them.
    /// The index is fresh for the file as it was at this poll (its sidecar
    /// built or extended as [`OpenOptions`] says) and stays valid after
    /// later polls.
    pub fn poll_lines(&mut self) -> Result<Followed> {
        let (id, len) = match identity(&self.path) {
            Ok(v) => v,
            // Mid-rotation: the old file is gone, the new one not there yet.
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Followed::Idle);
            }
            Err(e) => return Err(e),
        };
        if id != self.identity || len < self.done_offset {
            self.identity = id;
            self.next_line = 0;
            self.done_offset = 0;
            return Ok(Followed::Restarted);
        }
        if len == self.done_offset && self.done_offset > 0 {
            return Ok(Followed::Idle);
        }
        let opened = self.opts.open(&self.path)?;
        if matches!(opened.action, super::Action::Rebuilt(_)) && self.done_offset > 0 {
            // Rewritten between two polls (truncated and regrown).
            self.next_line = 0;
            self.done_offset = 0;
            return Ok(Followed::Restarted);
        }
        let action = opened.action;
        let index: Index = opened.index;
        // Complete lines only: a last line without `\n` may still grow.
        let mut complete = index.line_count();
        if complete > 0 && index.line_end(complete - 1)? == index.source_len() {
            let mut last = [0u8; 1];
            index
                .source()
                .read_exact_at(&mut last, index.source_len() - 1)?;
            if last[0] != b'\n' {
                complete -= 1;
            }
        }
        if complete <= self.next_line {
            return Ok(Followed::Idle);
        }
        let done_offset = index.lines_span(0..complete)?.end;
        let lines = self.next_line..complete;
        self.next_line = complete;
        self.done_offset = done_offset;
        Ok(Followed::Lines {
            index: Box::new(index),
            action,
            lines,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(index: &Index, lines: std::ops::Range<u64>) -> Vec<Vec<u8>> {
        let mut buf = crate::LineBuf::new();
        index.read_lines(lines, &mut buf).unwrap();
        buf.iter().map(<[u8]>::to_vec).collect()
    }

    #[test]
    fn poll_lines_reports_appends_and_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.log");
        std::fs::write(&path, b"a\nb\npartial").unwrap();
        let mut f = Follower::new(&path, 1, &OpenOptions::new()).unwrap();
        // Line 0 is skipped (from = 1); the unterminated last line waits.
        let Followed::Lines {
            index,
            action,
            lines,
        } = f.poll_lines().unwrap()
        else {
            panic!("expected lines")
        };
        assert_eq!((lines.clone(), action), (1..2, crate::Action::Built));
        assert_eq!(lines_of(&index, lines), [b"b".to_vec()]);
        assert!(matches!(f.poll_lines().unwrap(), Followed::Idle));
        // The partial line completes and another arrives.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b" line\nc\n").unwrap();
        let Followed::Lines {
            index: grown,
            action,
            lines,
        } = f.poll_lines().unwrap()
        else {
            panic!("expected lines")
        };
        assert_eq!((lines.clone(), action), (2..4, crate::Action::Extended));
        assert_eq!(
            lines_of(&grown, lines),
            [b"partial line".to_vec(), b"c".to_vec()]
        );
        // The earlier index still answers for the file as it was.
        assert_eq!(index.line_count(), 3);
        assert_eq!(f.next_line(), 4);
        // Truncated: restarted, then reported from line 0.
        std::fs::write(&path, b"x\n").unwrap();
        assert!(matches!(f.poll_lines().unwrap(), Followed::Restarted));
        let Followed::Lines { index, lines, .. } = f.poll_lines().unwrap() else {
            panic!("expected lines")
        };
        assert_eq!(lines_of(&index, lines), [b"x".to_vec()]);
    }
}
