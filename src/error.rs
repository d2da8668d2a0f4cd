//! The one error type of the crate.
//!
//! Every variant says *what* failed and *where*: the path, the page number,
//! both checksums. There is deliberately no blanket `From<io::Error>`: an I/O
//! error is always wrapped with the operation and the path it concerns.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in lidx.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A build, extension or content check was cancelled by its progress
    /// callback ([`crate::OpenOptions::open_cancellable`]); nothing was
    /// written.
    Cancelled {
        /// The source being read.
        path: PathBuf,
    },
    /// An operating-system I/O call failed.
    Io {
        /// What was being done ("read", "open", "rename", ...).
        op: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The file does not start with the lidx magic bytes.
    NotAnIndex {
        /// The sidecar path.
        path: PathBuf,
    },
    /// The sidecar was written by an incompatible format version.
    UnsupportedVersion {
        /// The sidecar path.
        path: PathBuf,
        /// Major version this build reads.
        expected: u16,
        /// Major.minor version found in the file.
        got: (u16, u16),
    },
    /// The sidecar uses a feature this build does not understand.
    UnsupportedFeature {
        /// The sidecar path.
        path: PathBuf,
        /// The incompatible feature bits that are not understood.
        bits: u32,
    },
    /// A page's stored CRC does not match its contents.
    ChecksumMismatch {
        /// The sidecar path.
        path: PathBuf,
        /// Page number (0 = superblock).
        page: u64,
        /// CRC stored in the page.
        expected: u32,
        /// CRC computed over the page.
        got: u32,
    },
    /// The sidecar is structurally damaged (checksums pass but values are impossible).
    Corrupt {
        /// The sidecar path.
        path: PathBuf,
        /// Page number where the damage was found (0 = superblock).
        page: u64,
        /// What is wrong.
        what: String,
    },
    /// The sidecar does not describe the source as it is now.
    Stale {
        /// The source path.
        source_path: PathBuf,
        /// The sidecar path.
        sidecar: PathBuf,
        /// How the source differs.
        verdict: crate::format::verdict::Verdict,
    },
    /// The source no longer matches what the index describes (it changed
    /// while open).
    SourceChanged {
        /// The source path.
        path: PathBuf,
        /// What did not match.
        what: String,
    },
    /// A compressed source is damaged (its deflate data, a member header or
    /// trailer), ends early, or has garbage after its last member.
    CorruptSource {
        /// The source path.
        path: PathBuf,
        /// Offset in the compressed file near which the damage was found.
        offset: u64,
        /// What is wrong.
        what: String,
        /// Which kind of damage it is.
        kind: SourceDamage,
    },
    /// A request lies past the lines that can be read before the damage in
    /// a damaged gzip archive.
    Damaged {
        /// The damage (a `CorruptSource` message).
        what: String,
        /// Lines readable before it.
        lines: u64,
    },
    /// The source is compressed in a format lidx does not read (zstd, xz,
    /// a zlib stream, ...), recognised by its first bytes.
    UnsupportedSource {
        /// The source path.
        path: PathBuf,
        /// The format, as a noun phrase ("zstd data", "zlib stream").
        format: String,
        /// What is missing: "not supported yet", "not gzip".
        why: &'static str,
    },
    /// There is no sidecar for a damaged gzip archive, and none can be
    /// written for it (`lidx info` and `lidx verify` have nothing to
    /// describe); the query commands read its complete lines before the
    /// damage from an in-memory index.
    NoSidecarForDamage {
        /// The damage (a `CorruptSource` message).
        what: String,
        /// Lines readable before it.
        lines: u64,
    },
    /// No sidecar exists and building one was not allowed.
    Missing {
        /// The source path.
        source_path: PathBuf,
        /// Where the sidecar was looked for.
        sidecar: PathBuf,
        /// The source is a gzip archive (for which `lidx index` may find
        /// damage instead of writing a sidecar).
        gzip: bool,
    },
    /// The sidecar was built for a different file.
    Foreign {
        /// The sidecar path.
        sidecar: PathBuf,
        /// Basename of the file the sidecar was built for.
        built_for: String,
    },
    /// A remote object (a source or a sidecar named by a URL) could not be
    /// read: not found, refused, a server error or a timeout after the
    /// retries, or a reply that does not hold the bytes asked for.
    Remote {
        /// The object's URL.
        url: String,
        /// What went wrong, one line.
        what: String,
    },
    /// A line number or byte offset lies beyond the end of the source.
    OutOfRange {
        /// What was asked for ("line 12", "offset 400").
        what: String,
        /// The source's line count.
        lines: u64,
        /// The source's size in bytes.
        size: u64,
    },
    /// A rotation family cannot be read as one log with its recorded
    /// numbering: its manifest is damaged, or a member is missing, was
    /// replaced or grew after rotation (`format-spec/family-v1.md`, F-8).
    Family {
        /// The family's live file, or its manifest when that is damaged.
        path: PathBuf,
        /// What is wrong and the way out.
        what: String,
    },
    /// A caller-supplied argument is invalid.
    InvalidArgument(String),
}

/// The kinds of damage to a compressed source ([`Error::CorruptSource`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceDamage {
    /// The data is invalid: a bad deflate code, a CRC or length that does
    /// not match, a bad member header. What was decoded of the member
    /// cannot be trusted.
    Corrupt,
    /// The archive ends inside a member (a download cut short, a log still
    /// being written): the bytes before the end are intact.
    Truncated,
    /// Bytes after the last complete member that are neither another
    /// member nor zero padding (zcat ignores them with a warning).
    TrailingGarbage,
    /// A zstd seekable archive's frame or seek table is damaged, or they
    /// disagree (spec §13): the archive is refused, not read up to it.
    Zstd,
}

/// `n` and the noun, singular or plural: "0 lines", "1 line", "2 lines".
/// (Used by the command line's messages too.)
#[doc(hidden)]
pub fn count_of(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Error {
    /// Wraps an `io::Error` with the operation and the path.
    pub fn io(op: &'static str, path: &Path, source: io::Error) -> Error {
        Error::Io {
            op,
            path: path.to_path_buf(),
            source,
        }
    }

    /// Builds a [`Error::Corrupt`].
    pub fn corrupt(path: &Path, page: u64, what: impl Into<String>) -> Error {
        Error::Corrupt {
            path: path.to_path_buf(),
            page,
            what: what.into(),
        }
    }

    /// True when the error means the output pipe was closed by the reader.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }

    /// True when the sidecar itself is damaged or unreadable as an index
    /// (as opposed to the source, the arguments or the environment).
    pub fn is_sidecar_damage(&self) -> bool {
        matches!(
            self,
            Error::NotAnIndex { .. } | Error::ChecksumMismatch { .. } | Error::Corrupt { .. }
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cancelled { path } => {
                write!(f, "{}: cancelled; nothing was written", path.display())
            }
            Error::Io { op, path, source } => {
                write!(f, "{}: {op} failed: {}", path.display(), io_message(source))
            }
            Error::NotAnIndex { path } => {
                write!(
                    f,
                    "{}: not a lidx sidecar (bad magic or too short)",
                    path.display()
                )
            }
            Error::UnsupportedVersion {
                path,
                expected,
                got,
            } => write!(
                f,
                "{}: sidecar format version {}.{} is not supported (this lidx reads {expected}.x)",
                path.display(),
                got.0,
                got.1
            ),
            Error::UnsupportedFeature { path, bits } => write!(
                f,
                "{}: sidecar uses unsupported features (flags {bits:#x})",
                path.display()
            ),
            Error::ChecksumMismatch {
                path,
                page,
                expected,
                got,
            } => write!(
                f,
                "{}: sidecar corrupt: page {page} checksum mismatch (stored {expected:#010x}, computed {got:#010x})",
                path.display()
            ),
            Error::Corrupt { path, page, what } => {
                write!(
                    f,
                    "{}: sidecar corrupt: page {page}: {what}",
                    path.display()
                )
            }
            Error::Stale {
                source_path,
                sidecar,
                verdict: crate::format::verdict::Verdict::Unverified,
            } => write!(
                f,
                "{}: the source's modification time differs from the sidecar's record \
                 and its content is not checked yet ({}): open it to check it, or \
                 `lidx verify --full`",
                sidecar.display(),
                source_path.display()
            ),
            Error::Stale {
                source_path,
                sidecar,
                verdict,
            } => write!(
                f,
                "{}: sidecar is stale: the source was {verdict} since it was built ({})",
                sidecar.display(),
                source_path.display()
            ),
            Error::Remote { url, what } => write!(f, "{url}: {what}"),
            Error::SourceChanged { path, what } => {
                write!(f, "{}: source changed while in use: {what}", path.display())
            }
            Error::Missing {
                source_path,
                sidecar,
                gzip: false,
            } => write!(
                f,
                "{}: no sidecar ({} does not exist; run `lidx index {}`)",
                source_path.display(),
                sidecar.display(),
                source_path.display()
            ),
            Error::Missing {
                source_path,
                sidecar,
                gzip: true,
            } => write!(
                f,
                "{}: no sidecar ({} does not exist): `lidx index {}` writes one unless the archive is damaged or ends early; then none can be written, and the query commands read its complete lines without one",
                source_path.display(),
                sidecar.display(),
                source_path.display()
            ),
            Error::CorruptSource {
                path,
                offset,
                what,
                kind: SourceDamage::TrailingGarbage,
            } => write!(
                f,
                "{}: trailing garbage after the last gzip member, from compressed byte {offset}: {what}",
                path.display()
            ),
            Error::CorruptSource {
                path,
                offset,
                what,
                kind: SourceDamage::Zstd,
            } => write!(
                f,
                "{}: damaged zstd seekable archive near byte {offset}: {what}",
                path.display()
            ),
            Error::CorruptSource {
                path, offset, what, ..
            } => write!(
                f,
                "{}: corrupt gzip data near compressed byte {offset}: {what}",
                path.display()
            ),
            Error::Damaged { what, lines } => match lines {
                0 => write!(
                    f,
                    "{what}; 0 lines can be read (no complete line before the damage)"
                ),
                n => write!(
                    f,
                    "{what}; only the {} before the damage can be read",
                    count_of(*n, "line", "lines")
                ),
            },
            Error::UnsupportedSource { path, format, why } => write!(
                f,
                "{}: {format}: {why} ({}, or index its bytes as they are with `lidx index --plain`)",
                path.display(),
                if format == crate::format::compressed::Format::Zstd.name() {
                    "`lidx pack` makes a seekable archive of the text"
                } else {
                    "decompress it first"
                }
            ),
            Error::NoSidecarForDamage { what, lines: 0 } => write!(
                f,
                "{what}; no sidecar is written for a damaged archive, and 0 lines can be read (no complete line before the damage)"
            ),
            Error::NoSidecarForDamage { what, lines } => write!(
                f,
                "{what}; no sidecar is written for a damaged archive: the query commands read the {} before the damage from an in-memory index",
                count_of(*lines, "complete line", "complete lines")
            ),
            Error::Foreign { sidecar, built_for } => write!(
                f,
                "{}: sidecar belongs to another file ({built_for:?})",
                sidecar.display()
            ),
            Error::OutOfRange { what, lines, size } => write!(
                f,
                "{what} is past the end (the file has {}, {})",
                count_of(*lines, "line", "lines"),
                count_of(*size, "byte", "bytes")
            ),
            Error::Family { path, what } => write!(f, "{}: {what}", path.display()),
            Error::InvalidArgument(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `io::Error`'s Display appends "(os error N)"; keep the human part only.
fn io_message(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
