//! What an open is asked for ([`OpenOptions`]) and what it reports
//! ([`Opened`], [`Action`]), and the pieces that the open of a local file
//! (`open.rs`) and of a URL (`remote.rs`) both use: the kind check, the
//! error for a refused format, the crash-safe sidecar write. Both opens
//! depend on this module and it on neither; `open.rs` hands URLs to
//! `remote.rs`, never the other way round.

use super::{DEFAULT_CACHE_BYTES, Index};
use crate::error::{Error, Result};
use crate::ingest::BuildOptions;
use crate::ingest::fingerprint::Verdict;
use crate::ingest::sniff;
use crate::ingest::writer::AtomicFile;
use std::path::{Path, PathBuf};

/// What opening did to get a usable sidecar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// An existing, fresh sidecar was used.
    Opened,
    /// An existing sidecar was used after its content check: the source's
    /// modification time differed (a copy, a download, `touch`), so the
    /// plain file was re-read once and found to be the one the sidecar
    /// describes ([`crate::Proof::Rescan`]). Nothing was written but a
    /// note in the user cache directory that spares the next open the
    /// re-read.
    Verified,
    /// There was no sidecar; one was built.
    Built,
    /// The source had grown; the sidecar was extended over the new bytes.
    Extended,
    /// The source had changed otherwise (or a rebuild was forced); the
    /// sidecar was rebuilt from scratch.
    Rebuilt(Verdict),
    /// A rebuild was forced ([`OpenOptions::force`]).
    Forced,
    /// The sidecar was fresh but had no time index (or one that reads
    /// stamps otherwise) and one was asked for ([`OpenOptions::time`]): it
    /// was built again with one.
    TimeAdded,
    /// The source is a damaged gzip archive (it ends early, has damaged
    /// data or trailing garbage): the complete lines before the damage were
    /// indexed in memory ([`Index::damage`] says what and where); nothing
    /// was written.
    Damaged,
}

/// An opened index and how it came to be.
#[derive(Debug)]
pub struct Opened {
    /// The index, fresh for the source as it was at open.
    pub index: Index,
    /// What was done.
    pub action: Action,
    /// A warning about the source found while building its sidecar: it
    /// does not look like text (raw deflate, compressed or random data;
    /// see [`crate::ingest::sniff`]). It was indexed as plain bytes.
    pub warning: Option<String>,
}

/// How to open a source's index.
///
/// ```no_run
/// # fn main() -> lidx::Result<()> {
/// let opened = lidx::OpenOptions::new().cache_bytes(64 << 20).open("app.log")?;
/// println!("{} lines", opened.index.line_count());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct OpenOptions {
    pub(super) sidecar: Option<PathBuf>,
    pub(super) cache_bytes: usize,
    pub(super) refresh: bool,
    pub(super) force: bool,
    pub(super) build: BuildOptions,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            sidecar: None,
            cache_bytes: DEFAULT_CACHE_BYTES,
            refresh: true,
            force: false,
            build: BuildOptions::default(),
        }
    }
}

impl OpenOptions {
    /// Defaults: sidecar next to the source (or in the user cache
    /// directory), 16 MiB cache, build/extend/rebuild as needed.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Uses this sidecar path instead of looking for one.
    pub fn sidecar(&mut self, path: impl Into<PathBuf>) -> &mut OpenOptions {
        self.sidecar = Some(path.into());
        self
    }

    /// Page-cache budget in bytes (at least one page is always cached).
    pub fn cache_bytes(&mut self, bytes: usize) -> &mut OpenOptions {
        self.cache_bytes = bytes;
        self
    }

    /// Whether a missing sidecar is built, a grown source's sidecar
    /// extended and a changed source's sidecar rebuilt (default true). When
    /// false, those cases are errors ([`Error::Missing`], [`Error::Stale`]).
    pub fn refresh(&mut self, yes: bool) -> &mut OpenOptions {
        self.refresh = yes;
        self
    }

    /// True unless [`OpenOptions::refresh`] forbade writing (a rotation
    /// family then neither moves sidecars nor writes its manifest).
    pub(crate) fn refreshes(&self) -> bool {
        self.refresh
    }

    /// Rebuilds from scratch even if the sidecar is fresh, and overwrites a
    /// damaged or foreign sidecar.
    pub fn force(&mut self, yes: bool) -> &mut OpenOptions {
        self.force = yes;
        self
    }

    /// Checkpoint spacing for builds (an extension keeps the old spacing;
    /// a fresh sidecar with another spacing than requested is rebuilt only
    /// with [`OpenOptions::force`]).
    pub fn spacing(&mut self, bytes: u64) -> &mut OpenOptions {
        self.build.spacing = bytes;
        self
    }

    /// Threads a build of a plain source reads and counts lines with: 0
    /// (the default) for one per core, 1 for one. The sidecar is the same
    /// for any number.
    pub fn threads(&mut self, n: usize) -> &mut OpenOptions {
        self.build.threads = n;
        self
    }

    /// gzip sources: uncompressed bytes between access points for builds.
    pub fn span(&mut self, bytes: u64) -> &mut OpenOptions {
        self.build.span = bytes;
        self
    }

    /// gzip sources: builds record the CRC of every piece of `2^shift`
    /// bytes of the spans longer than that (spec §11.9), so that a read
    /// decodes to the end of its piece rather than of its span; 0 for none
    /// ([`BuildOptions::piece_shift`], default 16).
    pub fn piece_shift(&mut self, shift: u8) -> &mut OpenOptions {
        self.build.piece_shift = shift;
        self
    }

    /// Page size for builds.
    pub fn page_size(&mut self, bytes: u32) -> &mut OpenOptions {
        self.build.page_size = bytes;
        self
    }

    /// Builds index the source as plain bytes, whatever its first bytes
    /// say ([`BuildOptions::plain`]): a file that starts with the gzip
    /// magic without being gzip, or compressed data whose bytes are wanted
    /// as they are. Without it, a build refuses data in another compression
    /// format ([`Error::UnsupportedSource`]), and a fresh sidecar is used as
    /// it is, whichever way it was built.
    ///
    /// An explicit choice binds: a sidecar that indexes the text of an
    /// archive is not used for its bytes ([`Error::InvalidArgument`];
    /// [`OpenOptions::force`] rebuilds it as plain, [`OpenOptions::sidecar`]
    /// names another).
    pub fn plain(&mut self, yes: bool) -> &mut OpenOptions {
        self.build.plain = yes;
        self
    }

    /// Builds also index the lines' times (spec §12), read as `time`
    /// says: then [`Index::line_at_time`] and [`Index::time_range`] work.
    /// A fresh sidecar without a time index, or with one that reads stamps
    /// otherwise than `time` explicitly says, is built again (unless
    /// [`OpenOptions::refresh`] is off).
    pub fn time(&mut self, time: crate::TimeOptions) -> &mut OpenOptions {
        self.build.time = Some(time);
        self
    }

    /// Fails when [`OpenOptions::plain`] asks for the bytes of a file whose
    /// sidecar indexes the text of an archive.
    pub(super) fn check_kind(&self, index: &Index) -> Result<()> {
        let sb = index.superblock();
        if !self.build.plain || sb.source_kind == crate::format::SOURCE_KIND_PLAIN {
            return Ok(());
        }
        let kind = if sb.is_zstd() { "zstd" } else { "gzip" };
        Err(Error::InvalidArgument(format!(
            "{}: the sidecar indexes the text of the {kind} archive {}, not its bytes \
             as asked (plain): name another sidecar for the bytes, or rebuild this one \
             (force)",
            index.sidecar_path().display(),
            index.source_path().display()
        )))
    }
}

/// The error for a source in a compression format that lidx refuses.
pub(super) fn unsupported(source: &Path, f: sniff::Format) -> Error {
    Error::UnsupportedSource {
        path: source.to_path_buf(),
        format: f.name().to_string(),
        why: f.why(),
    }
}

/// Creates the directory that `sidecar` goes in.
pub(super) fn ensure_dir(sidecar: &Path) -> Result<()> {
    let dir = crate::ingest::writer::parent_dir(sidecar);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("create directory", &dir, e))
}

/// Builds a sidecar at `dest` crash-safely: `fill` writes the pages and
/// returns the superblock, which is written last before fsync and rename.
pub(super) fn write_sidecar(
    dest: &Path,
    page_size: u32,
    fill: impl FnOnce(&mut AtomicFile) -> Result<crate::format::Superblock>,
) -> Result<()> {
    let mut file = AtomicFile::create(dest, page_size)?;
    let sb = fill(&mut file)?;
    file.commit(&sb.encode())
}
