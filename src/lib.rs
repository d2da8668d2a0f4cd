//! lidx: a read-only embedded line-index database.
//!
//! One ingest pass over a text file writes a small **sidecar** (`FILE.lidx`)
//! holding sparse checkpoints — (line number, byte offset) of a line start
//! about every 64 KiB — in a paged B+tree. With it, any line of a multi-GB
//! file is reached in microseconds and a byte offset maps back to its line,
//! with exact answers.
//!
//! # Architecture
//!
//! ```text
//! source ──ingest (pread, memchr)──▶ checkpoints ──bulk load──▶ sidecar pages
//!                                                    (B+tree, CRC per page)
//! query: open (superblock, root page) ─▶ tree descent through the S3-FIFO
//! page cache (pread, 4 KiB pages) ─▶ nearest checkpoint ─▶ pread the source
//! from there ─▶ count newlines to the exact line
//! ```
//!
//! Layers, each a module, dependencies pointing one way:
//! - `format`: pure encode/decode of the on-disk bytes (superblock, node
//!   pages, Eytzinger order). Specified in `format-spec/sidecar-v1.md`.
//! - [`io`]: positional reads (`pread`), the only place that reads files,
//!   and `io::RemoteSource`, the same over a URL (HTTP range requests,
//!   S3, GCS, Azure through `object_store`; its async runtime kept inside).
//! - `cache`: the S3-FIFO page cache with a hard byte budget.
//! - `tree`: B+tree descent, generic over the key column.
//! - `ingest`: the newline scan, the bulk loader, crash-safe writing.
//! - [`Index`]: opening, freshness checks, line/offset queries.
//! - [`search`]: grep over line ranges, parallel across checkpoints.
//! - `gzip`: gzip sources — a resumable inflater with access points and
//!   the uncompressed text as an [`io::ReadAt`], so every query above works
//!   on `.gz` files unchanged.
//! - `zstd`: zstd seekable sources — the seek table, one frame decoded
//!   and checked, the text as an [`io::ReadAt`]; [`pack()`] writes such an
//!   archive and its sidecar in one pass.
//!
//! # The API
//!
//! What a program that embeds lidx (a viewer, a tool, the command line in
//! `cli/`, the C ABI in `capi/`, the Python package in `python/`) uses:
//! [`Index`] and [`OpenOptions`] (open, build, refresh; every query),
//! [`pack()`] and [`PackOptions`] (a seekable zstd archive and its sidecar),
//! [`LineBuf`] (pages of lines without allocation), or
//! [`Index::read_lines_into`] (into a caller's buffer), [`Follower`] (a
//! growing file), [`search`] (grep over a line range, pushed to a
//! [`search::Sink`]), [`io::ReadAt`] (any source: a file, bytes in memory,
//! a URL), the verdict on a source ([`Verdict`], [`Evidence`]), [`Error`].
//! The modules `format`, `cache`, `tree`, `ingest`, `gzip` and `zstd` are public
//! only for this project's tests, fuzz targets and benchmarks: they are
//! hidden from the documentation and not part of the API.
//!
//! # Conventions
//!
//! In this API line numbers are **0-based** and ranges are **half-open**
//! (`10..20` is the 11th to the 20th line); byte offsets are 0-based. The
//! command-line tool is 1-based, like `sed` and `grep -n`. A line is the
//! bytes up to and including `\n`; a final line without `\n` is still a
//! line; `\r` is content. The line count equals `grep -a -c ''`.
//!
//! # Example
//!
//! ```
//! # fn main() -> lidx::Result<()> {
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("app.log");
//! std::fs::write(&path, b"first\nsecond\nthird").unwrap();
//! // Builds app.log.lidx on first use; later opens only read its header.
//! let index = lidx::Index::open_or_build(&path)?;
//! assert_eq!(index.line_count(), 3);
//! assert_eq!(index.line_span(1)?, 6..13);
//! assert_eq!(index.line_at(8)?, 1);
//! let mut buf = lidx::LineBuf::new();
//! index.read_lines(1..3, &mut buf)?;
//! assert_eq!(buf.iter().collect::<Vec<_>>(), [&b"second"[..], b"third"]);
//! # Ok(()) }
//! ```

#![deny(missing_docs)]
#![deny(unsafe_code)]

#[doc(hidden)]
pub mod cache;
mod error;
pub mod family;
#[doc(hidden)]
pub mod format;
#[doc(hidden)]
pub mod gzip;
mod index;
#[doc(hidden)]
pub mod ingest;
pub mod io;
pub mod join;
pub mod merge;
pub mod search;
pub mod time;
#[doc(hidden)]
pub mod tree;
#[doc(hidden)]
pub mod zstd;

#[doc(hidden)]
pub use error::count_of;
pub use error::{Error, Result, SourceDamage};
pub use index::locate;
pub use index::{
    Action, DEFAULT_CACHE_BYTES, FollowEvent, Follower, Index, Info, LineBatches, LineBuf,
    LinesRead, OpenOptions, Opened, Partition, SourceStat, TimeInfo, VerifyReport,
};
pub use ingest::fingerprint::{Evidence, Memo, Proof, Verdict};
pub use ingest::pack::{PackFormat, PackOptions, Packed, pack};
pub use ingest::{BuildOptions, TimeOptions};
pub use tree::Checkpoint;

impl Index {
    /// Opens `source`'s index, building, extending or rebuilding the sidecar
    /// as needed (see [`OpenOptions`]).
    pub fn open_or_build(source: impl AsRef<std::path::Path>) -> Result<Index> {
        OpenOptions::new().open(source).map(|o| o.index)
    }
}

/// Builds a complete sidecar for `source` in memory.
pub fn build_to_vec(source: &dyn io::ReadAt, opts: &BuildOptions) -> Result<Vec<u8>> {
    let info = ingest::SourceInfo {
        mtime: (0, 0),
        name: Vec::new(),
    };
    let mut pages = vec![0u8; opts.page_size as usize];
    let sb = ingest::build(source, &info, opts, &mut pages, &mut |_| true)?;
    pages[..format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
    Ok(pages)
}

/// Reads the superblock of a sidecar file without opening its source.
pub fn read_superblock(sidecar: &std::path::Path) -> Result<format::Superblock> {
    index::superblock_of(sidecar)
}
