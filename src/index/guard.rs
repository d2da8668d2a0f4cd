//! The source as queries see it: refused while the verdict says the sidecar
//! may not describe its bytes.
//!
//! An [`super::Index`] can be opened whatever its verdict (to inspect it:
//! `lidx info`, `verify`, the C ABI's `LIDX_POLICY_INSPECT`, Python's
//! `Index.inspect`). Its answers about the sidecar (line count, info) are
//! the sidecar's; an answer about the source is only right where the
//! sidecar describes the source's bytes: the source is unchanged, or only
//! grew (its indexed prefix is unchanged). For a rewritten source (a
//! foreign sidecar included) and for one whose content is not checked yet,
//! every read of the source and every checkpoint lookup fails here, so no
//! face can answer from bytes its sidecar does not describe, whatever path
//! the query takes.

use crate::error::{Error, Result};
use crate::ingest::fingerprint::Verdict;
use crate::io::ReadAt;
use std::path::{Path, PathBuf};

/// Why queries are refused.
#[derive(Debug, Clone)]
pub(crate) enum Refusal {
    /// The sidecar was built for a file of another name.
    Foreign { sidecar: PathBuf, built_for: String },
    /// The source was rewritten, or its content is not checked yet.
    Stale {
        source_path: PathBuf,
        sidecar: PathBuf,
        verdict: Verdict,
    },
}

impl Refusal {
    /// The refusal for `verdict`, if it refuses: `built_for` is the name
    /// the sidecar records when it is not the source's.
    pub(crate) fn of(
        verdict: Verdict,
        source_path: &Path,
        sidecar: &Path,
        built_for: Option<String>,
    ) -> Option<Refusal> {
        match verdict {
            Verdict::Unchanged | Verdict::Appended => None,
            Verdict::Rewritten | Verdict::Unverified => Some(match built_for {
                Some(built_for) => Refusal::Foreign {
                    sidecar: sidecar.to_path_buf(),
                    built_for,
                },
                None => Refusal::Stale {
                    source_path: source_path.to_path_buf(),
                    sidecar: sidecar.to_path_buf(),
                    verdict,
                },
            }),
        }
    }

    /// As an error.
    pub(crate) fn error(&self) -> Error {
        match self {
            Refusal::Foreign { sidecar, built_for } => Error::Foreign {
                sidecar: sidecar.clone(),
                built_for: built_for.clone(),
            },
            Refusal::Stale {
                source_path,
                sidecar,
                verdict,
            } => Error::Stale {
                source_path: source_path.clone(),
                sidecar: sidecar.clone(),
                verdict: *verdict,
            },
        }
    }
}

/// A source whose reads fail while a [`Refusal`] stands.
pub(crate) struct Guarded {
    inner: Box<dyn ReadAt>,
    refusal: Option<Refusal>,
}

impl Guarded {
    pub(crate) fn new(inner: Box<dyn ReadAt>, refusal: Option<Refusal>) -> Guarded {
        Guarded { inner, refusal }
    }

    /// Fails while queries are refused.
    #[inline]
    pub(crate) fn check(&self) -> Result<()> {
        match &self.refusal {
            None => Ok(()),
            Some(r) => Err(r.error()),
        }
    }

    /// Lifts or sets the refusal (after a content check).
    pub(crate) fn set_refusal(&mut self, refusal: Option<Refusal>) {
        self.refusal = refusal;
    }

    /// The source without the guard: for the checks that decide the
    /// verdict (a re-scan compares it with the sidecar).
    pub(crate) fn unguarded(&self) -> &dyn ReadAt {
        &*self.inner
    }
}

impl ReadAt for Guarded {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        self.check()?;
        self.inner.read_at(buf, offset)
    }

    fn path(&self) -> &Path {
        self.inner.path()
    }

    fn will_need(&self, range: std::ops::Range<u64>) {
        if self.refusal.is_none() {
            self.inner.will_need(range);
        }
    }

    fn will_need_exact(&self, range: std::ops::Range<u64>) {
        if self.refusal.is_none() {
            self.inner.will_need_exact(range);
        }
    }
}
