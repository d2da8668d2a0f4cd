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
    /// The file does not exist now (deleted, or rotated away and not yet
    /// made again): following goes on when a file of that name appears
    /// (as [`FollowEvent::Restarted`]); a caller may also stop.
    Missing,
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
    /// For a compressed source (whose text offsets are not file offsets):
    /// the file's length at the last lines reported.
    compressed_len: Option<u64>,
    /// The file was missing at the last poll: the one there now is
    /// another (its inode number may be the old one's, reused).
    gone: bool,
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
            compressed_len: None,
            gone: false,
        })
    }

    /// 0-based number of the next line to report.
    pub fn next_line(&self) -> u64 {
        self.next_line
    }

    /// Checks the file once and writes the new complete lines to `out`
    /// (numbered 1-based with `numbered`, as `lidx lines -n`).
    pub fn poll(&mut self, numbered: bool, out: &mut dyn Write) -> Result<FollowEvent> {
        let (index, new) = match self.check()? {
            Checked::Event(e) => return Ok(e),
            Checked::New(index, new) => (index, new),
        };
        let n = index.write_lines(new.clone(), numbered, out)?;
        out.flush()
            .map_err(|e| Error::io("write", Path::new("<stdout>"), e))?;
        self.advance(&index, new.end)?;
        Ok(FollowEvent::Lines(n))
    }

    /// Checks the file once, as [`Follower::poll`], but instead of writing
    /// the new lines, hands over the index that holds them (a viewer reads
    /// what it shows of them itself): `Some` with [`FollowEvent::Lines`],
    /// else `None`. The index is fresh for the file as it was at this
    /// poll; its last line may be one still being written (not counted in
    /// the event, nor in [`Follower::next_line`]).
    pub fn poll_index(&mut self) -> Result<(FollowEvent, Option<Index>)> {
        match self.check()? {
            Checked::Event(e) => Ok((e, None)),
            Checked::New(index, new) => {
                self.advance(&index, new.end)?;
                Ok((FollowEvent::Lines(new.end - new.start), Some(*index)))
            }
        }
    }

    /// Everything up to line `complete` was reported.
    fn advance(&mut self, index: &Index, complete: u64) -> Result<()> {
        self.next_line = complete;
        self.done_offset = index.lines_span(0..complete)?.end;
        let sb = index.superblock();
        self.compressed_len = sb.compressed().then_some(sb.fingerprint.size);
        Ok(())
    }

    /// Looks at the file: an event, or an index with new complete lines.
    fn check(&mut self) -> Result<Checked> {
        let (id, len) = match identity(&self.path) {
            Ok(v) => v,
            // Deleted, or mid-rotation (the old file gone, the new one
            // not there yet).
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                self.gone = true;
                return Ok(Checked::Event(FollowEvent::Missing));
            }
            Err(e) => return Err(e),
        };
        let replaced = std::mem::take(&mut self.gone);
        let (shrunk, same) = match self.compressed_len {
            Some(was) => (len < was, len == was),
            None => (len < self.done_offset, len == self.done_offset),
        };
        if id != self.identity || shrunk || replaced {
            self.identity = id;
            self.next_line = 0;
            self.done_offset = 0;
            self.compressed_len = None;
            return Ok(Checked::Event(FollowEvent::Restarted));
        }
        if same && self.done_offset > 0 {
            return Ok(Checked::Event(FollowEvent::Idle));
        }
        let opened = self.opts.open(&self.path)?;
        if matches!(opened.action, super::Action::Rebuilt(_)) && self.done_offset > 0 {
            // Rewritten between two polls (truncated and regrown).
            self.next_line = 0;
            self.done_offset = 0;
            self.compressed_len = None;
            return Ok(Checked::Event(FollowEvent::Restarted));
        }
        let index: Index = opened.index;
        // Complete lines only: a last line without `\n` may still grow.
        let complete = index.complete_lines()?;
        if complete <= self.next_line {
            return Ok(Checked::Event(FollowEvent::Idle));
        }
        let from = self.next_line;
        Ok(Checked::New(Box::new(index), from..complete))
    }
}

/// What [`Follower::check`] found.
enum Checked {
    Event(FollowEvent),
    /// New complete lines, in this index.
    New(Box<Index>, std::ops::Range<u64>),
}
