//! [`Index`]: an opened sidecar bound to its source, and every query on it.
//!
//! Opening reads the superblock, the root page and, for a gzip source, the
//! access-point page of record 0 (spec R-54), plus 2 × 64 KiB of the source
//! for the fingerprint check: open time and memory do not grow with the
//! file. A query descends the tree through the page cache to the
//! nearest checkpoint at or before its target, then `pread`s the source from
//! there and counts newlines with `memchr` to the exact answer.
//!
//! Conventions: line numbers are 0-based, byte offsets are 0-based, ranges
//! are half-open. A line is the bytes up to and including `\n`; a final line
//! without `\n` is still a line; `\r` is content.

mod follow;
mod guard;
pub(crate) mod gzip;
mod lines;
pub mod locate;
mod open;
mod options;
mod partition;
#[cfg(feature = "remote")]
mod remote;
mod time;
mod verify;
pub(crate) mod zstd;

pub use follow::{FollowEvent, Follower};
pub use lines::{LineBatches, LineBuf, LinesRead};
pub use open::superblock_of;
pub use options::{Action, OpenOptions, Opened};
pub use partition::Partition;
pub use time::TimeInfo;
pub use verify::VerifyReport;

use crate::cache::{CacheStats, PageCache};
use crate::error::{Error, Result};
use crate::format::{self, SUPERBLOCK_LEN, Superblock};
use crate::ingest::BUFFER_SIZE;
use crate::ingest::fingerprint::{self, Comparison, Evidence, Memo, Proof, Verdict};
use crate::io::ReadAt;
use crate::tree::{ByLine, ByOffset, Checkpoint, Flat, Tree};
use parking_lot::Mutex;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Default page-cache budget: 16 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 16 << 20;

/// Lookups through the tree before its leaves are copied flat (plus one
/// for every 16 checkpoints, so that the copy costs less than the lookups
/// that paid for it): a command's few lookups never make it, a viewer's
/// or an embedding program's many do.
const FLAT_AFTER: u64 = 256;

/// An opened line index. `Send + Sync`: share one across threads.
pub struct Index {
    /// The source's text, refused while the verdict says the sidecar may
    /// not describe it (see [`guard`]).
    source: guard::Guarded,
    sidecar_file: std::sync::Arc<dyn ReadAt>,
    sidecar_path: PathBuf,
    sidecar_len: u64,
    sb: Superblock,
    cache: PageCache,
    tree: Tree,
    /// The leaf level decoded ([`Flat`]), once lookups are hot; `None`
    /// inside when it could not be made (the tree answers).
    flat: std::sync::OnceLock<Option<Flat>>,
    /// Lookups before the flat copy is made; `u64::MAX` when it never is
    /// (a remote sidecar, or one too large for its share of the budget).
    flat_after: u64,
    lookups: std::sync::atomic::AtomicU64,
    /// For a remote gzip sidecar: where its access points lie, to
    /// announce them before a lookup (see [`SourceStat::remote`]).
    ap_hints: Option<gzip::ApHints>,
    verdict: Verdict,
    /// What a fresh verdict rests on.
    evidence: Option<Evidence>,
    /// The source's identity, to remember a content check.
    memo: Option<Memo>,
    buffers: Mutex<Vec<crate::io::AlignedBuf>>,
    damage: Option<String>,
    /// The time index, once loaded.
    time: Mutex<Option<std::sync::Arc<time::TimeIndex>>>,
}

/// What an opener knows about the source beyond its bytes, for the
/// verdict (spec §6): its modification time (`None` for a source without
/// one, such as a remote object) and, where it can be named, its identity
/// for remembering a content check in the user cache directory.
#[derive(Debug, Clone, Default)]
pub struct SourceStat {
    /// Modification time (seconds, nanoseconds).
    pub mtime: Option<(i64, u32)>,
    /// Identity for [`Evidence::Remembered`].
    pub memo: Option<Memo>,
    /// The sidecar is read over a network: opening reads as little as it
    /// may (spec R-54: a gzip sidecar's first access point is checked at
    /// its first use, not at open), and lookups announce the pages they
    /// are likely to need next ([`ReadAt::will_need`]), so that they come
    /// in one round trip with the leaf.
    pub remote: bool,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("source", &self.source.path())
            .field("sidecar", &self.sidecar_path)
            .field("lines", &self.sb.line_count)
            .finish()
    }
}

/// Summary of an index for `lidx info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    /// Lines in the indexed source.
    pub lines: u64,
    /// Indexed text size in bytes (uncompressed for gzip sources).
    pub source_size: u64,
    /// Sidecar size in bytes.
    pub sidecar_size: u64,
    /// Checkpoints stored.
    pub checkpoints: u64,
    /// Pages in the sidecar (superblock included).
    pub pages: u32,
    /// Page size.
    pub page_size: u32,
    /// Tree height (1 = root is a leaf).
    pub height: u32,
    /// Checkpoint spacing.
    pub spacing: u64,
    /// Format version (major, minor).
    pub version: (u16, u16),
    /// How the source relates to the sidecar at open.
    pub verdict: Verdict,
    /// What an unchanged verdict rests on.
    pub evidence: Option<Evidence>,
    /// gzip sources: (compressed file size, access points, span); `None`
    /// for plain sources.
    pub gzip: Option<(u64, u32, u32)>,
    /// Size of the source file as indexed, on disk: the archive for a gzip
    /// source (its `source_size`, R-91), else the indexed text.
    pub file_size: u64,
    /// zstd seekable sources (spec §13): (archive size, frames, the
    /// largest frame's text in bytes); `None` for other sources.
    pub zstd: Option<(u64, u32, u32)>,
    /// gzip sources whose every access point is a member start, so the
    /// sidecar holds no windows: BGZF (bgzip) archives and those of
    /// `lidx pack --format gz`. False for other sources.
    pub windowless: bool,
    /// gzip sources with piece CRCs (spec §11.9): the piece length in
    /// bytes; `None` otherwise.
    pub piece_len: Option<u64>,
}

impl Info {
    /// The sidecar's size as a percentage of the source file on disk
    /// ([`Info::file_size`]); 0 for an empty file.
    pub fn sidecar_percent(&self) -> f64 {
        if self.file_size == 0 {
            0.0
        } else {
            self.sidecar_size as f64 * 100.0 / self.file_size as f64
        }
    }
}

/// Reads and validates the superblock of `sidecar`.
pub(crate) fn read_superblock(sidecar: &dyn ReadAt) -> Result<Superblock> {
    let path = sidecar.path();
    let mut b = [0u8; SUPERBLOCK_LEN];
    let n = sidecar.read_full_at(&mut b, 0)?;
    use format::SuperblockError as K;
    let sb = Superblock::decode(&b[..n]).map_err(|e| match e {
        K::NotAnIndex => Error::NotAnIndex {
            path: path.to_path_buf(),
        },
        K::Version(major, minor) => Error::UnsupportedVersion {
            path: path.to_path_buf(),
            expected: format::VERSION_MAJOR,
            got: (major, minor),
        },
        K::Checksum(expected, got) => Error::ChecksumMismatch {
            path: path.to_path_buf(),
            page: 0,
            expected,
            got,
        },
        K::Features(bits) => Error::UnsupportedFeature {
            path: path.to_path_buf(),
            bits,
        },
        K::Invalid(what) => Error::corrupt(path, 0, what),
    })?;
    let want = sb.page_count as u64 * sb.page_size as u64;
    if sidecar.len() != want {
        return Err(Error::corrupt(
            path,
            0,
            format!(
                "file is {} bytes, the superblock says {} pages of {} = {want}",
                sidecar.len(),
                sb.page_count,
                sb.page_size
            ),
        ));
    }
    Ok(sb)
}

impl Index {
    /// Opens the sidecar of `source` (found as [`OpenOptions`] does) and
    /// fails with [`Error::Stale`] unless the source is unchanged.
    pub fn open(source: impl AsRef<Path>) -> Result<Index> {
        OpenOptions::new()
            .refresh(false)
            .open(source)
            .map(|o| o.index)
    }

    /// Binds an already-open source and sidecar. `source_mtime` is the
    /// source's modification time, compared with the fingerprint; the
    /// verdict is recorded (see [`Index::verdict`]) and it is the caller's
    /// job to refuse a stale one.
    pub fn from_parts(
        source: Box<dyn ReadAt>,
        sidecar: Box<dyn ReadAt>,
        source_mtime: (i64, u32),
        cache_bytes: usize,
    ) -> Result<Index> {
        let stat = SourceStat {
            mtime: Some(source_mtime),
            memo: None,
            remote: false,
        };
        Index::from_parts_with(source, sidecar, &stat, cache_bytes)
    }

    /// [`Index::from_parts`] with what the opener knows about the source:
    /// a source without a modification time, and one whose content check
    /// can be remembered. When only the modification time differs from
    /// the fingerprint, the content decides (spec §6.3): a gzip archive's
    /// member trailers are checked now; a plain file is
    /// [`Verdict::Unverified`] until [`Index::verify_content`] re-reads it,
    /// unless that was done and remembered for this very file.
    pub fn from_parts_with(
        source: Box<dyn ReadAt>,
        sidecar: Box<dyn ReadAt>,
        stat: &SourceStat,
        cache_bytes: usize,
    ) -> Result<Index> {
        let sb = read_superblock(&*sidecar)?;
        let sidecar_path = sidecar.path().to_path_buf();
        let sidecar_len = sidecar.len();
        let sidecar: std::sync::Arc<dyn ReadAt> = std::sync::Arc::from(sidecar);
        let gz = sb.source_kind == format::SOURCE_KIND_GZIP;
        let (verdict, evidence) = match fingerprint::compare(&sb.fingerprint, &*source, stat.mtime)?
        {
            Comparison::Same => (Verdict::Unchanged, Some(Evidence::Fingerprint)),
            Comparison::Appended if grew_into_an_archive(&sb, &*source)? => {
                (Verdict::Rewritten, None)
            }
            Comparison::Appended => (Verdict::Appended, None),
            Comparison::Rewritten => (Verdict::Rewritten, None),
            Comparison::MtimeDiffers => {
                let encoded = sb.encode();
                // Trailers or checksums compared: each a request for a
                // remote source.
                let checks = if stat.remote {
                    fingerprint::MEMBERS_CHECKED_REMOTE
                } else {
                    fingerprint::MEMBERS_CHECKED
                };
                if stat
                    .memo
                    .as_ref()
                    .is_some_and(|m| m.recalls(&sidecar_path, &encoded))
                {
                    (Verdict::Unchanged, Some(Evidence::Remembered))
                } else {
                    match content_check(&sb, &sidecar, &*source, checks)? {
                        ContentCheck::Same(proof) => {
                            if let Some(m) = &stat.memo {
                                m.remember(&sidecar_path, &encoded);
                            }
                            (Verdict::Unchanged, Some(Evidence::Content(proof)))
                        }
                        ContentCheck::Differs => (Verdict::Rewritten, None),
                        ContentCheck::Unprovable => (Verdict::Unverified, None),
                    }
                }
            }
        };
        // A gzip source is read through its access points, a zstd one
        // through its frames: from here on, `source` is the uncompressed
        // text.
        let source: Box<dyn ReadAt> = if sb.is_zstd() {
            Box::new(zstd::text(
                source,
                std::sync::Arc::clone(&sidecar),
                &sb,
                cache_bytes,
            ))
        } else if gz {
            Box::new(gzip::text(
                source,
                std::sync::Arc::clone(&sidecar),
                &sb,
                cache_bytes,
                !stat.remote,
            )?)
        } else {
            source
        };
        let source_path = source.path().to_path_buf();
        let refusal = guard::Refusal::of(
            verdict,
            &source_path,
            &sidecar_path,
            foreign_name(verdict, &sb, &source_path),
        );
        let source = guard::Guarded::new(source, refusal);
        let ap_hints =
            (gz && stat.remote).then(|| gzip::ApHints::new(std::sync::Arc::clone(&sidecar), &sb));
        // The node pages (line tree, time tree) end where a gzip sidecar's
        // access points begin.
        let nodes_end = sb.nodes_end();
        // A local sidecar's leaves may be copied flat for hot lookups,
        // within half the budget, which the page cache gives up.
        let flat_bytes = Flat::bytes_for(sb.checkpoint_count);
        let (flat_after, cache_bytes) = if !stat.remote && flat_bytes <= cache_bytes as u64 / 2 {
            (
                FLAT_AFTER + sb.checkpoint_count / 16,
                cache_bytes - flat_bytes as usize,
            )
        } else {
            (u64::MAX, cache_bytes)
        };
        let cache = PageCache::new(
            Box::new(std::sync::Arc::clone(&sidecar)),
            sb.page_size,
            sb.page_count,
            nodes_end,
            cache_bytes,
        );
        let root = cache.read_uncached(sb.root_page)?;
        let tree = Tree {
            root,
            height: sb.height,
        };
        Ok(Index {
            source,
            sidecar_file: sidecar,
            sidecar_path,
            sidecar_len,
            sb,
            cache,
            tree,
            flat: std::sync::OnceLock::new(),
            flat_after,
            lookups: std::sync::atomic::AtomicU64::new(0),
            ap_hints,
            verdict,
            evidence,
            memo: stat.memo.clone(),
            buffers: Mutex::new(Vec::new()),
            damage: None,
            time: Mutex::new(None),
        })
    }

    /// For a [`Verdict::Unverified`] source (a plain file whose
    /// modification time differs while its size, head and tail match):
    /// re-reads the whole file and compares every checkpoint and the line
    /// count with the sidecar. The same: the verdict becomes
    /// [`Verdict::Unchanged`] ([`Proof::Rescan`]) and the check is
    /// remembered for this very file. Different: it becomes
    /// [`Verdict::Rewritten`]. Returns the new verdict; any other verdict
    /// is returned as it is, without reading.
    /// `progress(done, total)` is called with bytes read; it returns false
    /// to cancel ([`Error::Cancelled`]).
    pub fn verify_content(
        &mut self,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<Verdict> {
        if self.verdict != Verdict::Unverified {
            return Ok(self.verdict);
        }
        // Same line starts and the same times (a stamp may change without
        // moving a line) are the same answers.
        let same = verify::rescan(self, progress).and_then(|()| {
            self.source.set_refusal(None);
            if self.sb.has_time_index() {
                self.verify_time(true)?;
            }
            Ok(())
        });
        match same {
            Ok(()) => {
                self.verdict = Verdict::Unchanged;
                self.evidence = Some(Evidence::Content(Proof::Rescan));
                if let Some(m) = &self.memo {
                    m.remember(&self.sidecar_path, &self.sb.encode());
                }
            }
            Err(Error::SourceChanged { .. }) => self.verdict = Verdict::Rewritten,
            Err(e) => {
                self.refuse_per_verdict();
                return Err(e);
            }
        }
        self.refuse_per_verdict();
        Ok(self.verdict)
    }

    /// Sets the source's guard as the verdict says.
    fn refuse_per_verdict(&mut self) {
        let refusal = guard::Refusal::of(
            self.verdict,
            self.source.path(),
            &self.sidecar_path,
            self.built_for_another_file(),
        );
        self.source.set_refusal(refusal);
    }

    /// Builds a sidecar for `source` in memory and opens it (tests, small
    /// inputs, sources that are not files).
    pub fn build_in_memory(source: Box<dyn ReadAt>, opts: &crate::BuildOptions) -> Result<Index> {
        let sidecar = crate::build_to_vec(&*source, opts)?;
        let sidecar = crate::io::MemSource::new(sidecar);
        Index::from_parts(source, Box::new(sidecar), (0, 0), DEFAULT_CACHE_BYTES)
    }

    /// Number of lines (`grep -c ''` of the indexed bytes).
    pub fn line_count(&self) -> u64 {
        self.sb.line_count
    }

    /// Number of complete lines: [`Index::line_count`], less one when the
    /// last line has no `\n` (a line a writer may still be extending). A
    /// follower ([`crate::Follower`]) started at this line reports that
    /// last line again once it is complete. Reads one byte of the source.
    pub fn complete_lines(&self) -> Result<u64> {
        let n = self.line_count();
        let len = self.source_len();
        if n == 0 || len == 0 {
            return Ok(n);
        }
        let mut last = [0u8; 1];
        self.source.read_exact_at(&mut last, len - 1)?;
        Ok(if last[0] == b'\n' { n } else { n - 1 })
    }

    /// Size of the indexed source in bytes.
    pub fn source_len(&self) -> u64 {
        self.sb.text_len()
    }

    /// The source path.
    pub fn source_path(&self) -> &Path {
        self.source.path()
    }

    /// The sidecar path.
    pub fn sidecar_path(&self) -> &Path {
        &self.sidecar_path
    }

    /// The source as a positional reader (its length is the indexed size).
    pub fn source(&self) -> &dyn ReadAt {
        &self.source
    }

    /// The decoded superblock. Its [`Superblock::head_len`] is the prefix
    /// of the sidecar that holds the superblock and every internal node (a
    /// head-first sidecar, format 1.2): what a reader that fetches the
    /// sidecar by range requests should take in its first read.
    pub fn superblock(&self) -> &Superblock {
        &self.sb
    }

    /// How the source compared with the sidecar's fingerprint at open.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// What an [`Verdict::Unchanged`] verdict rests on (`None` for the
    /// other verdicts).
    pub fn evidence(&self) -> Option<Evidence> {
        self.evidence
    }

    /// The name of the file this sidecar was built for, when it is not the
    /// source's: the source differs from the fingerprint
    /// ([`Verdict::Rewritten`]) and its basename from the one the sidecar
    /// records (a sidecar copied or renamed next to another file). Opening
    /// refuses such a sidecar ([`Error::Foreign`]) rather than rebuild over
    /// what may be someone's prebuilt index.
    pub fn built_for_another_file(&self) -> Option<String> {
        foreign_name(self.verdict, &self.sb, self.source_path())
    }

    /// Fails unless the sidecar describes the source's bytes (see
    /// [`guard`]): every answer about the source starts here or in a read
    /// of it.
    #[inline]
    pub(crate) fn check_described(&self) -> Result<()> {
        self.source.check()
    }

    /// The source without the verdict's guard: for the checks that decide
    /// the verdict.
    pub(crate) fn unguarded_source(&self) -> &dyn ReadAt {
        self.source.unguarded()
    }

    /// [`Index::built_for_another_file`] as an error.
    pub fn check_not_foreign(&self) -> Result<()> {
        match self.built_for_another_file() {
            Some(built_for) => Err(Error::Foreign {
                sidecar: self.sidecar_path.clone(),
                built_for,
            }),
            None => Ok(()),
        }
    }

    /// Page-cache counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// The sidecar as a positional reader: the very file (or bytes, or
    /// remote object) this index reads its pages from, even when the path
    /// has since been replaced by a rebuild. For exporting the sidecar's
    /// bytes, or binding the same sidecar to a fresh handle on the source
    /// ([`Index::from_parts_with`]) to ask whether the source changed since
    /// this index was opened.
    pub fn sidecar_file(&self) -> std::sync::Arc<dyn ReadAt> {
        std::sync::Arc::clone(&self.sidecar_file)
    }

    pub(crate) fn cache(&self) -> &PageCache {
        &self.cache
    }

    /// Summary for `lidx info`.
    pub fn info(&self) -> Info {
        Info {
            lines: self.sb.line_count,
            source_size: self.sb.text_len(),
            sidecar_size: self.sidecar_len,
            checkpoints: self.sb.checkpoint_count,
            pages: self.sb.page_count,
            page_size: self.sb.page_size,
            height: self.sb.height,
            spacing: self.sb.spacing,
            version: (self.sb.version_major, self.sb.version_minor),
            verdict: self.verdict,
            evidence: self.evidence,
            gzip: (self.sb.source_kind == format::SOURCE_KIND_GZIP).then_some((
                self.sb.fingerprint.size,
                self.sb.gzip.ap_count,
                self.sb.gzip.span,
            )),
            file_size: self.sb.fingerprint.size,
            zstd: self.sb.is_zstd().then_some((
                self.sb.fingerprint.size,
                self.sb.gzip.ap_count,
                self.sb.gzip.span,
            )),
            // No window pages: none at all, or only the piece CRCs'.
            windowless: self.sb.source_kind == format::SOURCE_KIND_GZIP
                && self.sb.gzip.ap_count > 0
                && (self.sb.gzip.blob_pages == 0
                    || (self.sb.piece_len().is_some()
                        && self.sb.gzip.piece_page
                            == self.sb.gzip.ap_first_page + self.sb.gzip.ap_pages)),
            piece_len: self.sb.piece_len(),
        }
    }

    /// The checkpoint with the largest line number `<= line` (a B+tree
    /// lookup only; no source I/O).
    #[inline]
    pub fn checkpoint_for_line(&self, line: u64) -> Result<Checkpoint> {
        self.check_described()?;
        if let Some(h) = &self.ap_hints {
            h.for_line(line, self.sb.line_count);
        }
        if let Some(f) = self.flat() {
            return Ok(f.for_line(line));
        }
        self.tree.find::<ByLine>(&self.cache, line)
    }

    /// The checkpoint with the largest offset `<= offset` (a B+tree lookup
    /// only; no source I/O).
    #[inline]
    pub fn checkpoint_for_offset(&self, offset: u64) -> Result<Checkpoint> {
        self.check_described()?;
        if let Some(h) = &self.ap_hints {
            h.for_offset(offset);
        }
        if let Some(f) = self.flat() {
            return Ok(f.for_offset(offset));
        }
        self.tree.find::<ByOffset>(&self.cache, offset)
    }

    /// The flat copy of the leaves, made once `flat_after` lookups have
    /// gone through the tree (from leaf pages read and CRC-checked as any
    /// other; a copy that cannot be made leaves the tree to answer).
    #[inline]
    fn flat(&self) -> Option<&Flat> {
        if let Some(f) = self.flat.get() {
            return f.as_ref();
        }
        if self.flat_after == u64::MAX
            || self
                .lookups
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                < self.flat_after
        {
            return None;
        }
        self.flat
            .get_or_init(|| self.checkpoints().ok().and_then(Flat::new))
            .as_ref()
    }

    /// Whether the flat copy was tried (`None`: not yet) and made.
    #[cfg(test)]
    pub(crate) fn flat_made(&self) -> Option<bool> {
        self.flat.get().map(Option::is_some)
    }

    /// For a damaged gzip archive opened through an in-memory index of the
    /// lines before the damage: what and where the damage is. Every answer
    /// past those lines is an error ([`Error::Damaged`]).
    pub fn damage(&self) -> Option<&str> {
        self.damage.as_deref()
    }

    pub(crate) fn set_damage(&mut self, what: String) {
        self.damage = Some(what);
    }

    /// The error for a request past the readable lines of a damaged source.
    pub fn damaged_error(&self) -> Option<Error> {
        self.damage.as_ref().map(|what| Error::Damaged {
            what: what.clone(),
            lines: self.line_count(),
        })
    }

    fn past_end_line(&self, line: u64) -> Error {
        if let Some(e) = self.damaged_error() {
            return e;
        }
        Error::OutOfRange {
            what: format!("line {}", line as u128 + 1),
            lines: self.line_count(),
            size: self.source_len(),
        }
    }

    fn stale_source(&self, what: &str) -> Error {
        Error::SourceChanged {
            path: self.source.path().to_path_buf(),
            what: what.to_string(),
        }
    }

    /// Borrows a scan buffer from the pool.
    pub(crate) fn take_buffer(&self) -> crate::io::AlignedBuf {
        self.buffers
            .lock()
            .pop()
            .unwrap_or_else(|| crate::io::AlignedBuf::zeroed(BUFFER_SIZE))
    }

    /// Returns a scan buffer to the pool.
    pub(crate) fn give_buffer(&self, buf: crate::io::AlignedBuf) {
        let mut pool = self.buffers.lock();
        if pool.len() < 8 {
            pool.push(buf);
        }
    }

    /// Position of the `n`-th (`n >= 1`) newline at or after `from`.
    ///
    /// `from` is a checkpoint, so the newline is usually within about one
    /// spacing: the first read is one spacing long (at least 1 KiB), and
    /// each further read twice the last, up to the buffer. (Reading a whole
    /// buffer at once would decode spans of a gzip source that the answer
    /// does not need: with a small `--span`, dozens per lookup.)
    fn nth_newline(&self, from: u64, n: u64) -> Result<u64> {
        let mut buf = self.take_buffer();
        let end = self.source_len();
        let mut at = from;
        let mut left = n;
        let mut step = usize::try_from(self.sb.spacing)
            .unwrap_or(usize::MAX)
            .clamp(1024, buf.len().max(1024));
        let result = loop {
            if at >= end {
                break Err(self.stale_source("fewer newlines than indexed"));
            }
            let want = step.min(buf.len()).min((end - at) as usize);
            step = step.saturating_mul(2);
            let got = match self.source.read_full_at(&mut buf[..want], at) {
                Ok(0) => break Err(self.stale_source("source shorter than indexed")),
                Ok(g) => g,
                Err(e) => break Err(e),
            };
            let chunk = &buf[..got];
            let c = memchr::memchr_iter(b'\n', chunk).count() as u64;
            if c >= left {
                let k = memchr::memchr_iter(b'\n', chunk)
                    .nth(left as usize - 1)
                    .expect("counted");
                break Ok(at + k as u64);
            }
            left -= c;
            at += got as u64;
        };
        self.give_buffer(buf);
        result
    }

    /// Newlines in `from..to`.
    fn count_newlines(&self, from: u64, to: u64) -> Result<u64> {
        let mut buf = self.take_buffer();
        let mut at = from;
        let mut total = 0;
        let result = loop {
            if at >= to {
                break Ok(total);
            }
            let want = buf.len().min((to - at) as usize);
            match self.source.read_full_at(&mut buf[..want], at) {
                Ok(0) => break Err(self.stale_source("source shorter than indexed")),
                Ok(g) => {
                    total += memchr::memchr_iter(b'\n', &buf[..g]).count() as u64;
                    at += g as u64;
                }
                Err(e) => break Err(e),
            }
        };
        self.give_buffer(buf);
        result
    }

    /// Tells the source that a scan from checkpoint offset `from` will read
    /// up to about `to`: a remote source fetches it in one round trip
    /// rather than buffer by buffer. The line after a checkpoint and the
    /// line holding an offset lie within about two spacings of it (§5).
    fn will_scan(&self, from: u64, to: u64) {
        self.source.will_need(from..to.min(self.source_len()));
    }

    /// Byte offset where line `line` starts.
    pub fn line_start(&self, line: u64) -> Result<u64> {
        self.check_described()?;
        if line >= self.line_count() {
            return Err(self.past_end_line(line));
        }
        let cp = self.checkpoint_for_line(line)?;
        if cp.line == line {
            return Ok(cp.offset);
        }
        self.will_scan(
            cp.offset,
            cp.offset.saturating_add(self.sb.spacing.saturating_mul(2)),
        );
        Ok(self.nth_newline(cp.offset, line - cp.line)? + 1)
    }

    /// Byte offset just past line `line` (after its `\n`, or the end of the
    /// source for a final line without one).
    pub fn line_end(&self, line: u64) -> Result<u64> {
        self.check_described()?;
        if line >= self.line_count() {
            return Err(self.past_end_line(line));
        }
        if line + 1 == self.line_count() {
            return Ok(self.source_len());
        }
        self.line_start(line + 1)
    }

    /// Byte span `start..end` of line `line`, its `\n` included.
    pub fn line_span(&self, line: u64) -> Result<Range<u64>> {
        let start = self.line_start(line)?;
        // Lines longer than the spacing have a checkpoint at both ends, so
        // the end lookup never scans a long line.
        Ok(start..self.line_end(line)?)
    }

    /// Byte span of lines `lines` (clamped to the line count); empty at the
    /// end of the source when the range lies past the end.
    pub fn lines_span(&self, lines: Range<u64>) -> Result<Range<u64>> {
        self.check_described()?;
        let a = lines.start.min(self.line_count());
        let b = lines.end.min(self.line_count());
        if a >= b {
            let at = if a < self.line_count() {
                self.line_start(a)?
            } else {
                self.source_len()
            };
            return Ok(at..at);
        }
        let start = self.line_start(a)?;
        let end = if b == self.line_count() {
            self.source_len()
        } else {
            self.line_start(b)?
        };
        Ok(start..end)
    }

    /// The 0-based number of the line holding byte `offset`.
    pub fn line_at(&self, offset: u64) -> Result<u64> {
        self.check_described()?;
        if offset >= self.source_len() {
            if let Some(e) = self.damaged_error() {
                return Err(e);
            }
            return Err(Error::OutOfRange {
                what: format!("offset {offset}"),
                lines: self.line_count(),
                size: self.source_len(),
            });
        }
        let cp = self.checkpoint_for_offset(offset)?;
        // If the next line's start is itself a checkpoint (always the case
        // after a line longer than the spacing), every offset before it is
        // on line `cp.line`: no scan, however long that line is. Otherwise
        // the lines between the two checkpoints are short and the scan stays
        // within about two spacings.
        if cp.line + 1 >= self.line_count() {
            return Ok(cp.line); // the last line: nothing after it
        }
        let next = self.checkpoint_for_line(cp.line + 1)?;
        if next.line == cp.line + 1 && offset < next.offset {
            return Ok(cp.line);
        }
        self.will_scan(cp.offset, offset + 1);
        Ok(cp.line + self.count_newlines(cp.offset, offset)?)
    }

    /// Every checkpoint, in order (a rotation family read as one index
    /// gathers its members', `crate::family`).
    pub(crate) fn checkpoints(&self) -> Result<Vec<Checkpoint>> {
        self.check_described()?;
        let mut out = Vec::with_capacity(self.sb.checkpoint_count as usize);
        for id in self.sb.first_leaf..=self.sb.last_leaf {
            let page = self.cache.read_uncached(id)?;
            let view = page.view();
            if view.kind == format::PageKind::Leaf {
                out.extend(
                    view.sorted_entries()
                        .into_iter()
                        .map(|(line, offset, _)| Checkpoint { line, offset }),
                );
            }
        }
        Ok(out)
    }

    /// Where reading can start, in order, as (text offset, file offset)
    /// pairs: a gzip archive's access points (the file offset of the byte
    /// holding the access point's first bit), a zstd seekable archive's
    /// frames, a plain file's checkpoints (the same offset twice). What
    /// `indexed_gzip`'s `seek_points()` gives, for every source kind.
    pub fn seek_points(&self) -> Result<Vec<(u64, u64)>> {
        use crate::zstd::FrameRecords;
        self.check_described()?;
        if self.sb.is_zstd() {
            let f = zstd::SidecarFrames::new(std::sync::Arc::clone(&self.sidecar_file), &self.sb);
            return (0..f.count())
                .map(|i| f.record(i).map(|r| (r.uncomp, r.comp)))
                .collect();
        }
        if self.sb.source_kind == format::SOURCE_KIND_GZIP {
            let aps = gzip::SidecarAps::new(std::sync::Arc::clone(&self.sidecar_file), &self.sb);
            return (0..self.sb.gzip.ap_count as usize)
                .map(|i| aps.record(i).map(|r| (r.uncomp, r.comp_bit / 8)))
                .collect();
        }
        Ok(self
            .checkpoints()?
            .into_iter()
            .map(|c| (c.offset, c.offset))
            .collect())
    }

    /// Checks the sidecar: every page CRC, the tree structure, and the
    /// fingerprint; with `full`, also re-scans the source and compares
    /// every checkpoint and the line count.
    pub fn verify(&self, full: bool) -> Result<VerifyReport> {
        verify::verify(self, full)
    }
}

/// The name `sb` records, when the source's differs and the verdict says
/// the source is not the one indexed (see [`Index::built_for_another_file`]).
fn foreign_name(verdict: Verdict, sb: &Superblock, source: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let built_for = &sb.source_name;
    let mut name = source.file_name().map(|n| n.as_bytes()).unwrap_or_default();
    if crate::io::is_url(source)
        && let Some(q) = memchr::memchr(b'?', name)
    {
        // A URL's query (a presigned URL's signature) is not its name.
        name = &name[..q];
    }
    let name = &name[..name.len().min(crate::format::SOURCE_NAME_MAX)];
    (verdict == Verdict::Rewritten && !built_for.is_empty() && built_for != name)
        .then(|| String::from_utf8_lossy(built_for).into_owned())
}

/// Spec R-41 step 2a: a plain sidecar of a source too short to have shown
/// a compressed format's magic number (an archive caught while its first
/// bytes were being written, such as `logrotate`'s `.gz` before gzip
/// fills it) does not describe the source's text once the source begins
/// with one: extending it would index compressed bytes as lines.
fn grew_into_an_archive(sb: &Superblock, source: &dyn ReadAt) -> Result<bool> {
    if sb.source_kind != format::SOURCE_KIND_PLAIN || sb.fingerprint.size >= MAGIC_WINDOW {
        return Ok(false);
    }
    let mut head = vec![0u8; crate::ingest::sniff::SAMPLE_LEN.min(source.len() as usize)];
    let n = source.read_full_at(&mut head, 0)?;
    let more = (n as u64) < source.len();
    Ok(!matches!(
        crate::ingest::sniff::classify(&head[..n], more),
        crate::ingest::sniff::Sniffed::Plain(_)
    ))
}

/// Bytes a source must have had for its magic number to be seen.
const MAGIC_WINDOW: u64 = 16;

/// What the content of a source whose modification time differs says,
/// without reading its text whole (spec R-43).
pub(crate) enum ContentCheck {
    /// The content is the one indexed.
    Same(Proof),
    /// A member trailer or frame checksum differs.
    Differs,
    /// Nothing inside the source proves it (a plain file, frames without
    /// checksums): only a re-read tells.
    Unprovable,
}

/// The content check of R-43 that needs no decoding: a gzip archive's
/// member trailers, a zstd archive's frame checksums (at most `checks` of
/// them, read together).
fn content_check(
    sb: &Superblock,
    sidecar: &std::sync::Arc<dyn ReadAt>,
    source: &dyn ReadAt,
    checks: usize,
) -> Result<ContentCheck> {
    if sb.is_zstd() {
        return zstd::SidecarFrames::new(std::sync::Arc::clone(sidecar), sb)
            .check_sums(source, checks);
    }
    if sb.source_kind != format::SOURCE_KIND_GZIP {
        return Ok(ContentCheck::Unprovable);
    }
    let members = gzip::SidecarAps::new(std::sync::Arc::clone(sidecar), sb).members()?;
    Ok(
        match fingerprint::check_members(source, &members, checks)? {
            Some(_) if members.len() == 1 => ContentCheck::Same(Proof::GzipTrailer),
            Some(checked) => ContentCheck::Same(Proof::GzipMembers {
                checked,
                members: members.len() as u64,
            }),
            None => ContentCheck::Differs,
        },
    )
}
