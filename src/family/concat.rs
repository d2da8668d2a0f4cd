//! A family as one [`Index`]: the members' texts back to back (a member's
//! last line without its `\n` given one, so that every line stays a line)
//! under an in-memory sidecar whose checkpoints are the members' own,
//! shifted. Nothing is scanned: the checkpoints come from the members'
//! sidecars. Any code written for one index (the viewer, a search) then
//! reads the family; its line 0 is the family's [`Family::first_line`].
//! It has no time index, and it describes the family as it was opened.

use super::Family;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::ingest::BuildOptions;
use crate::io::ReadAt;
use crate::tree::Checkpoint;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One member in the concatenation.
struct Piece {
    /// Where its text starts in the concatenation.
    start: u64,
    /// Its text's length (a `\n` follows when its last line had none).
    len: u64,
}

/// The members' texts back to back.
struct Concat {
    family: Arc<Family>,
    pieces: Vec<Piece>,
    len: u64,
    path: PathBuf,
}

impl ReadAt for Concat {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        if buf.is_empty() || offset >= self.len {
            return Ok(0);
        }
        let i = self.pieces.partition_point(|p| p.start <= offset) - 1;
        let p = &self.pieces[i];
        let at = offset - p.start;
        if at < p.len {
            let n = buf.len().min((p.len - at) as usize);
            return self.family.members[i]
                .index
                .source()
                .read_at(&mut buf[..n], at);
        }
        // The newline given to a member's last line.
        buf[0] = b'\n';
        Ok(1)
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Family {
    /// The family as one index (module doc). Memory: the sidecar of the
    /// members' checkpoints (about 16 bytes per 64 KiB of text).
    pub fn concat(self: &Arc<Family>, cache_bytes: usize) -> Result<Index> {
        let mut pieces = Vec::with_capacity(self.members.len());
        let mut cps: Vec<Checkpoint> = Vec::new();
        let (mut start, mut lines) = (0u64, 0u64);
        for m in &self.members {
            let len = m.index.source_len();
            let count = m.index.line_count();
            let mut newline = false;
            if len > 0 {
                let mut last = [0u8; 1];
                m.index.source().read_exact_at(&mut last, len - 1)?;
                newline = last[0] != b'\n';
                for cp in m.index.checkpoints()? {
                    if cp.line < count {
                        cps.push(Checkpoint {
                            line: lines + cp.line,
                            offset: start + cp.offset,
                        });
                    }
                }
            }
            pieces.push(Piece { start, len });
            start += len + u64::from(newline);
            lines += count;
        }
        if cps.is_empty() {
            cps.push(Checkpoint { line: 0, offset: 0 });
        }
        let source = Concat {
            family: Arc::clone(self),
            pieces,
            len: start,
            path: self.live.clone(),
        };
        let opts = BuildOptions::default();
        let mut pages = vec![0u8; opts.page_size as usize];
        let mut tree = crate::ingest::build::TreeBuilder::new(opts.page_size);
        for cp in cps {
            tree.push(cp, &mut pages)?;
        }
        let fp = crate::ingest::fingerprint::compute(&source, source.len, (0, 0))?;
        let sb = crate::ingest::finish(tree, &mut pages, &opts, lines, fp, b"")?;
        pages[..crate::format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
        let sidecar = crate::io::MemSource::new(pages);
        let index = Index::from_parts(Box::new(source), Box::new(sidecar), (0, 0), cache_bytes)?;
        if index.verdict() != crate::Verdict::Unchanged {
            return Err(Error::Family {
                path: self.live.clone(),
                what: "its members changed while they were read as one".into(),
            });
        }
        Ok(index)
    }
}
