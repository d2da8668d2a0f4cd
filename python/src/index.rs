//! `lidx.Index`: an opened line index, and every query on it.
//!
//! The class is frozen (no `&mut self`): its methods may run on several
//! Python threads at once, each with the GIL released while it reads. The
//! core index is held behind an `Arc` that [`Index::refresh`] swaps for a
//! new one; a query clones the `Arc` under a read lock held for no longer
//! than that (never while waiting for the GIL), so a refresh never blocks a
//! query in progress and a query never sees half of a refresh.

use crate::args;
use crate::errors::{IntoPy, new_error, to_py, to_py_about};
use crate::follow::Follower;
use crate::grep::{self, Matches};
use crate::numbering;
use crate::progress::Progress;
use lidx::ingest::writer::AtomicFile;
use lidx::io::ReadAt;
use lidx::{Action, LineBuf, OpenOptions, Verdict};
use parking_lot::RwLock;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple, PyType};
use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The core index an [`Index`] reads: its own, or a member's of an open
/// rotation family (shared with the family and its other members).
#[derive(Debug, Clone)]
pub enum Shared {
    /// An index of its own.
    Own(Arc<lidx::Index>),
    /// Member `.1` of the family.
    Member(Arc<lidx::family::Family>, usize),
}

impl std::ops::Deref for Shared {
    type Target = lidx::Index;

    fn deref(&self) -> &lidx::Index {
        match self {
            Shared::Own(i) => i,
            Shared::Member(f, k) => &f.members()[*k].index,
        }
    }
}

/// What the index in use is, and how it came to be.
pub(crate) struct State {
    /// The core index.
    pub index: Shared,
    /// What opening did ([`action_name`]), or `"loaded"` for a sidecar
    /// given as bytes.
    pub action: &'static str,
    /// The sidecar is in memory: given as bytes, or the in-memory index of
    /// a damaged archive's readable lines. No sidecar path.
    pub in_memory: bool,
    /// The core's warning about the source (it does not look like text).
    pub warning: Option<String>,
    /// The file as it was when its content was checked at open (its
    /// modification time differed from the fingerprint's): the same file
    /// later needs no new check to be unchanged (as the core's `Memo`).
    pub proven: Option<Snapshot>,
}

/// What identifies one version of a local file, as the core's `Memo` does:
/// device, inode, size, modification and change times.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Snapshot([i64; 7]);

impl Snapshot {
    fn of(path: &Path) -> Option<Snapshot> {
        use std::os::unix::fs::MetadataExt;
        if lidx::io::is_url(path) {
            return None;
        }
        let m = std::fs::metadata(path).ok()?;
        Some(Snapshot([
            m.dev() as i64,
            m.ino() as i64,
            m.size() as i64,
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ]))
    }

    /// The snapshot of `path` if `index`'s unchanged verdict rests on its
    /// content rather than on the fingerprint's modification time.
    fn if_proven(path: &Path, index: &lidx::Index) -> Option<Snapshot> {
        match index.evidence() {
            Some(lidx::Evidence::Content(_) | lidx::Evidence::Remembered) => Snapshot::of(path),
            _ => None,
        }
    }
}

pub(crate) fn action_name(a: Action) -> &'static str {
    match a {
        Action::Opened => "opened",
        Action::Verified => "verified",
        Action::Built => "built",
        Action::Extended => "extended",
        Action::Rebuilt(_) | Action::Forced | Action::TimeAdded => "rebuilt",
        Action::Damaged => "damaged",
    }
}

pub(crate) fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Unchanged => "unchanged",
        Verdict::Appended => "appended",
        Verdict::Rewritten => "rewritten",
        Verdict::Unverified => "unverified",
    }
}

/// An index of the lines of a text file or of a gzip archive's text, read
/// through its sidecar (``FILE.lidx``).
///
/// ``Index(path, *, sidecar=None, cache_mb=16, build=True, spacing=None,
/// span=None, plain=False, force=False, progress=None, time=False,
/// time_format=None, tz=None)``
///
/// Opening reads the sidecar's header only; a missing sidecar is built
/// (one pass over the file), a grown file's sidecar extended over the new
/// bytes, a changed file's rebuilt, unless ``build=False`` (then those are
/// errors: ``NoSidecarError``, ``StaleError``). ``path`` is a file name or
/// a URL (``https://``, ``s3://``, ``gs://``, ``az://``). ``sidecar`` names
/// the sidecar (default: ``path + ".lidx"``, or the user cache directory
/// when the file's directory is not writable). ``cache_mb`` is the page
/// cache's budget (and, for a gzip source, the decoded spans'). ``spacing``
/// (bytes between checkpoints, default 65536) and ``span`` (gzip: text
/// bytes between access points, default 1.25 MiB) apply to builds. ``plain``
/// indexes the file's bytes as they are, whatever its first bytes say (a
/// sidecar of the archive's text is then refused, ``InvalidArgumentError``,
/// unless ``force`` rebuilds it or ``sidecar`` names another).
/// ``force`` rebuilds even a fresh sidecar. ``progress(done, total)`` is
/// called during a build with bytes read (at most every 50 ms); returning
/// ``False`` cancels it (``CancelledError``; nothing is written), and an
/// exception it raises cancels it and propagates. ``time`` builds a time
/// index too (for :meth:`line_at_time`, :meth:`time_range` and
/// :func:`lidx.merge`; a fresh sidecar without one is built again), the
/// stamps' format detected from the first lines unless ``time_format``
/// names it (``"iso8601"``, ``"syslog"``, ``"clf"``, ``"epoch-s"``,
/// ``"epoch-ms"``, ... or a strptime format, as ``lidx index
/// --time-format``), stamps without a zone read in ``tz`` (an IANA name,
/// ``"UTC"``, ``"+01:00"``; default: the system's); either implies
/// ``time``.
///
/// Lines are numbered from 1, as by ``sed``, ``grep -n``, editors and the
/// ``lidx`` command line; a negative number counts from the end (``-1`` is
/// the last line); a range ``(first, last)`` holds both ends. Byte offsets
/// are 0-based. A line is the bytes up to and including ``\n`` (returned
/// with it); a final line without ``\n`` is still a line.
///
/// Thread-safe: one ``Index`` may be used from many threads at once; the
/// GIL is released during every read, build and search. The library
/// prints nothing and keeps no global state.
#[pyclass(frozen, module = "lidx", name = "Index")]
pub struct Index {
    /// The source as given.
    path: PathBuf,
    /// How to open it again (refresh, follow).
    opts: OpenOptions,
    /// `None` once closed.
    state: RwLock<Option<Arc<State>>>,
}

/// Opens `path` as `opts` says, reporting progress to `callback`.
fn open_state(
    py: Python<'_>,
    path: &Path,
    opts: &OpenOptions,
    callback: Option<Py<PyAny>>,
) -> PyResult<State> {
    let mut p = Progress::new(callback);
    let r = py.detach(|| opts.open_cancellable(path, &mut |d, t| p.tick(d, t)));
    let opened = p.finish(py, r)?;
    Ok(State {
        in_memory: opened.action == Action::Damaged,
        action: action_name(opened.action),
        warning: opened.warning,
        proven: Snapshot::if_proven(path, &opened.index),
        index: Shared::Own(Arc::new(opened.index)),
    })
}

/// The open options of the keyword arguments that `Index` and `Family`
/// share.
#[allow(clippy::too_many_arguments)]
pub(crate) fn open_options(
    cache_mb: usize,
    build: bool,
    spacing: Option<u64>,
    span: Option<u64>,
    plain: bool,
    force: bool,
    time: bool,
    time_format: Option<&str>,
    tz: Option<String>,
) -> lidx::Result<OpenOptions> {
    let mut opts = OpenOptions::new();
    opts.cache_bytes(cache_mb.saturating_mul(1 << 20))
        .refresh(build)
        .plain(plain)
        .force(force);
    if let Some(s) = spacing {
        opts.spacing(s);
    }
    if let Some(s) = span {
        opts.span(s);
    }
    if time || time_format.is_some() || tz.is_some() {
        let format = time_format
            .map(lidx::time::TimeFormat::kind_of)
            .transpose()?;
        opts.time(lidx::TimeOptions { format, tz });
    }
    Ok(opts)
}

/// Fails unless `index` has a time index, saying how to get one here.
pub(crate) fn require_time(py: Python<'_>, index: &lidx::Index) -> PyResult<()> {
    if index.has_time_index() {
        return Ok(());
    }
    Err(new_error(
        py,
        "InvalidArgumentError",
        format!(
            "{}: its sidecar has no time index (open it with time=True)",
            index.source_path().display()
        ),
    ))
}

/// The modification time as the core's fingerprint records it.
fn mtime(meta: &std::fs::Metadata) -> (i64, u32) {
    use std::os::unix::fs::MetadataExt;
    (meta.mtime(), meta.mtime_nsec() as u32)
}

/// A small page-cache budget for indexes opened only to compare.
const PROBE_CACHE: usize = 64 << 10;

impl Index {
    pub(crate) fn state(&self) -> PyResult<Arc<State>> {
        self.state
            .read()
            .clone()
            .ok_or_else(|| PyValueError::new_err("I/O operation on a closed lidx.Index"))
    }

    /// The error for a request past the readable lines of a damaged
    /// archive, or past the end (named after the file, as the command
    /// line names it).
    fn err(&self, py: Python<'_>, e: lidx::Error) -> PyErr {
        to_py_about(py, e, Some(&self.path))
    }

    /// An `Index` over member `k` of `family` (its file `path`), which it
    /// shares; `action` is what opening did to the member's sidecar.
    pub(crate) fn member(
        path: PathBuf,
        opts: OpenOptions,
        family: Arc<lidx::family::Family>,
        k: usize,
        action: &'static str,
    ) -> Index {
        let proven = Snapshot::if_proven(&path, &family.members()[k].index);
        Index {
            path,
            opts,
            state: RwLock::new(Some(Arc::new(State {
                index: Shared::Member(family, k),
                action,
                in_memory: false,
                warning: None,
                proven,
            }))),
        }
    }

    /// How the source compares now with the index in use.
    fn compare(&self, py: Python<'_>, st: &State) -> PyResult<Verdict> {
        let path = &self.path;
        let index = &st.index;
        py.detach(|| -> lidx::Result<Verdict> {
            if lidx::io::is_url(path) {
                let mut oo = OpenOptions::new();
                oo.cache_bytes(PROBE_CACHE)
                    .sidecar(index.sidecar_path().to_path_buf());
                return Ok(oo.inspect(path)?.verdict());
            }
            let src = lidx::io::FileSource::open(path)?;
            let meta = src
                .file()
                .metadata()
                .map_err(|e| lidx::Error::io("stat", path, e))?;
            let stat = lidx::SourceStat {
                mtime: Some(mtime(&meta)),
                memo: None,
                remote: false,
            };
            let fresh = lidx::Index::from_parts_with(
                Box::new(src),
                Box::new(index.sidecar_file()),
                &stat,
                PROBE_CACHE,
            )?;
            match fresh.verdict() {
                // Only the modification time differs from the fingerprint,
                // and this very file was checked when the index was opened.
                Verdict::Unverified if st.proven.is_some() && st.proven == Snapshot::of(path) => {
                    Ok(Verdict::Unchanged)
                }
                v => Ok(v),
            }
        })
        .py(py)
    }

    /// Bytes `offset..offset + size` of the text (fewer at its end).
    pub(crate) fn read_bytes<'py>(
        &self,
        py: Python<'py>,
        offset: u64,
        size: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let st = self.state()?;
        let index = &st.index;
        let len = index.source_len();
        let n = size.min(len.saturating_sub(offset));
        if n < size
            && size > 0
            && let Some(e) = index.damaged_error()
        {
            return Err(to_py(py, e));
        }
        let n = usize::try_from(n)
            .map_err(|_| new_error(py, "InvalidArgumentError", format!("size {n} too large")))?;
        PyBytes::new_with(py, n, |buf| {
            py.detach(|| index.source().read_exact_at(buf, offset))
                .py(py)
        })
    }
}

#[pymethods]
impl Index {
    #[new]
    #[pyo3(signature = (path, *, sidecar=None, cache_mb=16, build=true, spacing=None, span=None, plain=false, force=false, progress=None, time=false, time_format=None, tz=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        #[pyo3(from_py_with = args::path)] path: PathBuf,
        #[pyo3(from_py_with = args::optional_path)] sidecar: Option<PathBuf>,
        #[pyo3(from_py_with = args::cache_mb)] cache_mb: usize,
        build: bool,
        #[pyo3(from_py_with = args::spacing)] spacing: Option<u64>,
        #[pyo3(from_py_with = args::span)] span: Option<u64>,
        plain: bool,
        force: bool,
        progress: Option<Py<PyAny>>,
        time: bool,
        time_format: Option<String>,
        tz: Option<String>,
    ) -> PyResult<Index> {
        let mut opts = open_options(
            cache_mb,
            build,
            spacing,
            span,
            plain,
            force,
            time,
            time_format.as_deref(),
            tz,
        )
        .py(py)?;
        if let Some(s) = sidecar {
            opts.sidecar(s);
        }
        let state = open_state(py, &path, &opts, progress)?;
        // A forced rebuild is for this open only, not for every refresh.
        opts.force(false);
        Ok(Index {
            path,
            opts,
            state: RwLock::new(Some(Arc::new(state))),
        })
    }

    /// Index.from_bytes(path, data, *, cache_mb=16, progress=None)
    /// --
    ///
    /// Opens the local file ``path`` with the sidecar ``data`` (bytes from
    /// :meth:`to_bytes`, kept in memory; nothing is written). The sidecar
    /// must describe the file as it is: a file that changed since is a
    /// ``StaleError``, a sidecar built for another file a ``SidecarError``.
    /// When only the file's modification time differs (a copy), its content
    /// decides: a gzip archive's trailers are checked, a plain file is
    /// re-read once (``progress`` as for a build).
    #[classmethod]
    #[pyo3(signature = (path, data, *, cache_mb=16, progress=None))]
    fn from_bytes(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        #[pyo3(from_py_with = args::path)] path: PathBuf,
        data: Cow<'_, [u8]>,
        #[pyo3(from_py_with = args::cache_mb)] cache_mb: usize,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Index> {
        let data = data.into_owned();
        let cache = cache_mb.saturating_mul(1 << 20);
        let mut p = Progress::new(progress);
        let r = py.detach(|| -> lidx::Result<lidx::Index> {
            if lidx::io::is_url(&path) {
                return Err(lidx::Error::InvalidArgument(format!(
                    "{}: Index.from_bytes reads a local file; open a URL with lidx.Index",
                    path.display()
                )));
            }
            let src = lidx::io::FileSource::open(&path)?;
            let meta = src
                .file()
                .metadata()
                .map_err(|e| lidx::Error::io("stat", &path, e))?;
            let stat = lidx::SourceStat {
                mtime: Some(mtime(&meta)),
                memo: None,
                remote: false,
            };
            let side = lidx::io::MemSource::new(data);
            let mut index =
                lidx::Index::from_parts_with(Box::new(src), Box::new(side), &stat, cache)?;
            index.verify_content(&mut |d, t| p.tick(d, t))?;
            index.check_not_foreign()?;
            match index.verdict() {
                Verdict::Unchanged => Ok(index),
                verdict => Err(lidx::Error::Stale {
                    source_path: path.clone(),
                    sidecar: index.sidecar_path().to_path_buf(),
                    verdict,
                }),
            }
        });
        let index = p.finish(py, r)?;
        let proven = Snapshot::if_proven(&path, &index);
        let mut opts = OpenOptions::new();
        opts.cache_bytes(cache);
        Ok(Index {
            path,
            opts,
            state: RwLock::new(Some(Arc::new(State {
                index: Shared::Own(Arc::new(index)),
                action: "loaded",
                in_memory: true,
                warning: None,
                proven,
            }))),
        })
    }

    /// The file as given (a path or a URL).
    #[getter]
    fn path(&self) -> &OsStr {
        self.path.as_os_str()
    }

    /// The sidecar's path, or None when it is in memory (``from_bytes``, or
    /// a damaged archive's readable lines).
    #[getter]
    fn sidecar_path(&self) -> PyResult<Option<std::ffi::OsString>> {
        let st = self.state()?;
        Ok((!st.in_memory).then(|| st.index.sidecar_path().as_os_str().to_owned()))
    }

    /// Number of lines (as ``grep -c ''``, or ``wc -l`` plus one for a last
    /// line without ``\n``). A damaged archive's is unknown: ``SourceError``.
    #[getter]
    fn line_count(&self, py: Python<'_>) -> PyResult<u64> {
        let st = self.state()?;
        if let Some(e) = st.index.damaged_error() {
            return Err(to_py(py, e));
        }
        Ok(st.index.line_count())
    }

    /// Size of the text in bytes (uncompressed, for a gzip source). A
    /// damaged archive's is unknown: ``SourceError``.
    #[getter]
    fn size(&self, py: Python<'_>) -> PyResult<u64> {
        let st = self.state()?;
        if let Some(e) = st.index.damaged_error() {
            return Err(to_py(py, e));
        }
        Ok(st.index.source_len())
    }

    /// Index.has_time_index
    /// --
    ///
    /// True when the sidecar holds a time index (``time=True``).
    #[getter]
    fn has_time_index(&self) -> PyResult<bool> {
        Ok(self.state()?.index.has_time_index())
    }

    /// True for a gzip source (every answer is about its uncompressed text).
    #[getter]
    fn is_gzip(&self) -> PyResult<bool> {
        Ok(self.state()?.index.info().gzip.is_some())
    }

    /// What the last open or refresh did: ``"opened"`` (a fresh sidecar),
    /// ``"verified"`` (a fresh sidecar after a content check: the file's
    /// modification time differed), ``"built"``, ``"extended"`` (the file
    /// had grown), ``"rebuilt"``, ``"damaged"`` (a damaged gzip archive:
    /// its readable lines indexed in memory, see :attr:`damage`), or
    /// ``"loaded"`` (:meth:`from_bytes`).
    #[getter]
    fn action(&self) -> PyResult<&'static str> {
        Ok(self.state()?.action)
    }

    /// A warning about the file found while building its sidecar (it does
    /// not look like text), or None. The library prints nothing.
    #[getter]
    fn warning(&self) -> PyResult<Option<String>> {
        Ok(self.state()?.warning.clone())
    }

    /// For a damaged gzip archive (cut short, corrupt, trailing garbage):
    /// what and where the damage is; None for an intact source. Only the
    /// complete lines before the damage can be read; any request past them
    /// raises ``SourceError``.
    #[getter]
    fn damage(&self) -> PyResult<Option<String>> {
        Ok(self.state()?.index.damage().map(str::to_string))
    }

    /// How the file compares now with this index: ``"unchanged"``,
    /// ``"appended"`` (it only grew: :meth:`refresh` extends the index and
    /// keeps every line number), ``"rewritten"`` (anything else: a refresh
    /// rebuilds it), or ``"unverified"`` (a plain file of the same size,
    /// head and tail whose modification time differs: a refresh re-reads it
    /// to decide). Reads the file's first and last 64 KiB; the index in use
    /// is not changed.
    #[getter]
    fn verdict(&self, py: Python<'_>) -> PyResult<&'static str> {
        let st = self.state()?;
        Ok(verdict_name(self.compare(py, &st)?))
    }

    /// Index.refresh(*, progress=None)
    /// --
    ///
    /// Brings the index up to date with the file and returns how the file
    /// had changed (as :attr:`verdict`): ``"unchanged"`` (nothing done),
    /// ``"appended"`` (the sidecar extended over the new bytes; the new
    /// lines are numbered on), ``"rewritten"`` (rebuilt: line numbers
    /// start over). With ``build=False``, a sidecar that another process
    /// brought up to date is picked up, and a stale one is a
    /// ``StaleError``. An index from :meth:`from_bytes` cannot be refreshed
    /// (``StaleError`` unless unchanged).
    #[pyo3(signature = (*, progress=None))]
    fn refresh(&self, py: Python<'_>, progress: Option<Py<PyAny>>) -> PyResult<&'static str> {
        let st = self.state()?;
        let before = if st.action == "damaged" {
            // No sidecar: open again, to see what reads now.
            st.index.verdict()
        } else {
            self.compare(py, &st)?
        };
        if st.action == "loaded" {
            return match before {
                Verdict::Unchanged => Ok("unchanged"),
                verdict => Err(to_py(
                    py,
                    lidx::Error::Stale {
                        source_path: self.path.clone(),
                        sidecar: st.index.sidecar_path().to_path_buf(),
                        verdict,
                    },
                )),
            };
        }
        if before == Verdict::Unchanged && st.action != "damaged" {
            return Ok("unchanged");
        }
        let new = open_state(py, &self.path, &self.opts, progress)?;
        let verdict = match (before, new.action) {
            (Verdict::Unverified, "verified" | "opened") => Verdict::Unchanged,
            (Verdict::Unverified, _) => Verdict::Rewritten,
            (v, _) => v,
        };
        let mut guard = self.state.write();
        if guard.is_some() {
            *guard = Some(Arc::new(new));
        }
        Ok(verdict_name(verdict))
    }

    /// Index.lines(first, last)
    /// --
    ///
    /// Lines ``first`` to ``last``, both included, each with its ``\n``
    /// (as ``sed -n 'FIRST,LASTp'``; ``b"".join(...)`` is the text exactly).
    /// Negative numbers count from the end: ``lines(-10, -1)`` is the last
    /// ten. The lines the range names outside the file are not returned:
    /// ``lines(3, 20)`` of a 5-line file is lines 3 to 5, ``lines(7, 9)``
    /// is empty. Reads one span of the file, whatever the lines' length.
    fn lines<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::line_no)] first: i64,
        #[pyo3(from_py_with = args::line_no)] last: i64,
    ) -> PyResult<Bound<'py, PyList>> {
        let st = self.state()?;
        let index = &st.index;
        let r = numbering::range(py, index, first, Some(last))?;
        let count = index.line_count();
        if r.end > count
            && let Some(e) = index.damaged_error()
        {
            return Err(to_py(py, e));
        }
        let r = r.start.min(count)..r.end.min(count);
        let buf = py
            .detach(|| {
                let mut b = LineBuf::new();
                index.read_lines(r, &mut b).map(|_| b)
            })
            .py(py)?;
        PyList::new(
            py,
            (0..buf.len()).map(|i| PyBytes::new(py, buf.line_with_terminator(i))),
        )
    }

    /// Index.line(n)
    /// --
    ///
    /// Line ``n`` with its ``\n`` (``-1``: the last line), as
    /// ``linecache.getline``. Past the end: ``OutOfRangeError``.
    fn line<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::line_no)] n: i64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let st = self.state()?;
        let index = &st.index;
        let l = numbering::line(py, index, n)?;
        let span = py
            .detach(|| index.line_span(l))
            .map_err(|e| self.err(py, e))?;
        self.read_bytes(py, span.start, span.end - span.start)
    }

    /// Index.line_span(n)
    /// --
    ///
    /// ``(start, end)``: the byte offsets of line ``n`` (``-1``: the last),
    /// ``end`` just past its ``\n``. Past the end: ``OutOfRangeError``.
    fn line_span(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::line_no)] n: i64,
    ) -> PyResult<(u64, u64)> {
        let st = self.state()?;
        let index = &st.index;
        let l = numbering::line(py, index, n)?;
        let span = py
            .detach(|| index.line_span(l))
            .map_err(|e| self.err(py, e))?;
        Ok((span.start, span.end))
    }

    /// Index.line_at(offset)
    /// --
    ///
    /// The number of the line holding byte ``offset`` (0-based, as
    /// ``grep -b`` prints). Past the end: ``OutOfRangeError``.
    fn line_at(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::offset)] offset: u64,
    ) -> PyResult<u64> {
        let st = self.state()?;
        let index = &st.index;
        let l = py
            .detach(|| index.line_at(offset))
            .map_err(|e| self.err(py, e))?;
        Ok(l + 1)
    }

    /// Index.line_at_time(t)
    /// --
    ///
    /// The number of the first line whose time is at or after ``t``, or
    /// None when no line's is. ``t`` is an int (nanoseconds since
    /// 1970-01-01T00:00:00Z), a ``datetime.datetime``, or a str as
    /// ``lidx lines --since`` takes it (``"2026-11-30T10:32"``, ``"10:32"``,
    /// ``"-15m"``, ``"@1764498720"``); a time without a zone is read in the
    /// time index's zone. A line's time is its stamp's, or for a line
    /// without one (a stack trace's) the last stamp's before it; lines
    /// before the first stamp have none. The file's times need not be in
    /// order: the answer is the first such line in file order. Needs a
    /// time index (``Index(path, time=True)``; else
    /// ``InvalidArgumentError``).
    fn line_at_time(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        let st = self.state()?;
        let index = &st.index;
        require_time(py, index)?;
        let t = args::instant(t, "t", &mut || py.detach(|| args::zone_of(index)))?;
        let l = py
            .detach(|| index.line_at_time(t))
            .map_err(|e| self.err(py, e))?;
        Ok((l < index.line_count()).then_some(l + 1))
    }

    /// Index.time_range(since=None, until=None)
    /// --
    ///
    /// The lines of a time range, ``(first, last)`` (both included, as
    /// :meth:`lines` takes them), or None when no line is in it: from the
    /// first line at or after ``since`` (the first line when None) to the
    /// last line whose time is before ``until`` (the last line when None).
    /// Times as :meth:`line_at_time`. When the file's times are not in
    /// order, every line between those two is in the range, whatever its
    /// own time. Needs a time index (``time=True``).
    #[pyo3(signature = (since=None, until=None))]
    fn time_range(
        &self,
        py: Python<'_>,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<(u64, u64)>> {
        let st = self.state()?;
        let index = &st.index;
        require_time(py, index)?;
        let mut zone = || py.detach(|| args::zone_of(index));
        let since = args::optional_instant(since, "since", &mut zone)?;
        let until = args::optional_instant(until, "until", &mut zone)?;
        let r = py
            .detach(|| index.time_range(since, until))
            .map_err(|e| self.err(py, e))?;
        Ok((r.start < r.end).then_some((r.start + 1, r.end)))
    }

    /// Index.read_at(offset, size)
    /// --
    ///
    /// ``size`` bytes of the text from byte ``offset`` (fewer at its end;
    /// ``b""`` past it), uncompressed for a gzip source. Stateless and
    /// thread-safe, like ``os.pread``.
    fn read_at<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::offset)] offset: u64,
        #[pyo3(from_py_with = args::size)] size: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.read_bytes(py, offset, size)
    }

    /// The offset where line ``n`` starts (for ``LineFile.seek_line``).
    fn _line_start(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::line_no)] n: i64,
    ) -> PyResult<u64> {
        let st = self.state()?;
        let index = &st.index;
        let l = numbering::line(py, index, n)?;
        py.detach(|| index.line_start(l))
            .map_err(|e| self.err(py, e))
    }

    /// The rest of the line holding byte ``offset``, with its ``\n``, at
    /// most ``size`` bytes when ``size >= 0`` (for ``LineFile.readline``):
    /// one 8 KiB read finds the end of a short line; a longer one's end
    /// comes from the index, so it is read in one piece.
    #[pyo3(signature = (offset, size=-1))]
    fn _read_line<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::offset)] offset: u64,
        size: i64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let st = self.state()?;
        let index = &st.index;
        let len = index.source_len();
        let limit = if size < 0 { u64::MAX } else { size as u64 };
        if offset >= len || limit == 0 {
            return self.read_bytes(py, offset, if limit == 0 { 0 } else { 1 });
        }
        const PROBE: u64 = 8 << 10;
        let want = PROBE.min(limit).min(len - offset) as usize;
        let (head, end) = py
            .detach(|| -> lidx::Result<(Vec<u8>, Option<u64>)> {
                let mut b = vec![0u8; want];
                index.source().read_exact_at(&mut b, offset)?;
                if let Some(i) = memchr::memchr(b'\n', &b) {
                    b.truncate(i + 1);
                    return Ok((b, None));
                }
                if b.len() as u64 == limit || offset + b.len() as u64 == len {
                    return Ok((b, None));
                }
                let line = index.line_at(offset)?;
                Ok((b, Some(index.line_end(line)?)))
            })
            .map_err(|e| self.err(py, e))?;
        match end {
            None => Ok(PyBytes::new(py, &head)),
            Some(end) => self.read_bytes(py, offset, (end - offset).min(limit)),
        }
    }

    /// Index.grep(pattern, lines=None, *, ignore_case=False, smart_case=False, fixed_strings=False, word_regexp=False, line_regexp=False, invert_match=False, max_count=None, crlf=False, unicode=True, threads=None)
    /// --
    ///
    /// Searches lines ``lines = (first, last)`` (both included, as
    /// :meth:`lines`; ``last`` None: to the end; None: the whole file) for
    /// ``pattern`` (a regex, ``str`` or UTF-8 ``bytes``, or a list of them:
    /// any matches) and yields ``(line_no, offset, line)`` for each
    /// selected line, in file order: its number, the offset of its first
    /// byte and its bytes with the ``\n``. The matcher and its rules are
    /// ripgrep's, as ``lidx grep``: ``ignore_case`` (``-i``, Unicode simple
    /// case folding), ``smart_case`` (``-S``), ``fixed_strings`` (``-F``),
    /// ``word_regexp`` (``-w``), ``line_regexp`` (``-x``), ``invert_match``
    /// (``-v``), ``max_count`` (``-m``: stops reading after that many),
    /// ``crlf`` (``--crlf``), ``unicode=False`` (``--no-unicode``). The
    /// bytes are searched as they are (``lidx grep -E none``): a pattern
    /// never matches across lines, a byte-order mark is content.
    ///
    /// The search runs on ``threads`` workers (default: the number of
    /// cores) in a background thread, 4 MiB chunks ahead of the consumer at
    /// most ``2 × threads + 3`` chunks (memory stays bounded, however many
    /// lines match), and the iterator yields each chunk's lines as soon as
    /// it is done. An invalid pattern raises here; errors while reading
    /// are raised by the iteration. Stopping early (``break``, ``close()``)
    /// stops the search.
    #[pyo3(signature = (pattern, lines=None, *, ignore_case=false, smart_case=false, fixed_strings=false, word_regexp=false, line_regexp=false, invert_match=false, max_count=None, crlf=false, unicode=true, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn grep(
        &self,
        py: Python<'_>,
        pattern: &Bound<'_, PyAny>,
        lines: Option<(i64, Option<i64>)>,
        ignore_case: bool,
        smart_case: bool,
        fixed_strings: bool,
        word_regexp: bool,
        line_regexp: bool,
        invert_match: bool,
        #[pyo3(from_py_with = args::max_count)] max_count: Option<u64>,
        crlf: bool,
        unicode: bool,
        #[pyo3(from_py_with = args::threads)] threads: Option<usize>,
    ) -> PyResult<Matches> {
        let st = self.state()?;
        let flags = grep::Flags {
            ignore_case,
            smart_case,
            fixed_strings,
            word_regexp,
            line_regexp,
            invert_match,
            max_count,
            crlf,
            unicode,
            threads,
        };
        grep::request(py, st.index.clone(), pattern, lines, &flags)
    }

    /// Index.follow(start=None, *, interval=0.25)
    /// --
    ///
    /// Follows the file as it grows (``tail -f`` with line numbers): a
    /// :class:`Follower` whose ``poll()`` returns the new complete lines
    /// (ending in ``\n``) as ``(line_no, line)`` and whose iteration waits
    /// for them (checking every ``interval`` seconds). ``start`` is the
    /// first line to report: by default the first line not yet complete
    /// (only what is written from now on); ``-10`` starts with the last ten
    /// lines. The sidecar is kept current by extension; a file truncated or
    /// replaced (log rotation) is followed again from its line 1
    /// (``Follower.restarts`` counts it). A local file only.
    #[pyo3(signature = (start=None, *, interval=0.25))]
    fn follow(&self, py: Python<'_>, start: Option<i64>, interval: f64) -> PyResult<Follower> {
        let st = self.state()?;
        if lidx::io::is_url(&self.path) {
            return Err(to_py(
                py,
                lidx::Error::InvalidArgument(format!(
                    "{}: follow reads a local file as it grows; a remote object cannot be followed",
                    self.path.display()
                )),
            ));
        }
        let mut opts = self.opts.clone();
        if !st.in_memory {
            opts.sidecar(st.index.sidecar_path().to_path_buf());
        }
        Follower::new(py, &self.path, st.index.clone(), start, opts, interval)
    }

    /// A dict of what ``lidx info --json`` prints: ``file``, ``sidecar``,
    /// ``lines``, ``source_size``, ``sidecar_size``, ``sidecar_percent``,
    /// ``checkpoints``, ``pages``, ``page_size``, ``height``, ``spacing``,
    /// ``version``, ``source`` (the verdict at open), ``fresh``,
    /// ``evidence``, ``gzip`` (``compressed_size``, ``access_points``,
    /// ``span``, ``windowless``, ``piece_len``, or None), ``zstd`` (a zstd seekable
    /// archive: ``compressed_size``, ``frames``, ``largest_frame``, or
    /// None), ``time`` (a sidecar with a time index, built by
    /// ``lidx index --time``: ``format``, ``detected``, ``zone``, ``first``,
    /// ``last``; or None); and ``action`` and ``damage``.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let st = self.state()?;
        let index = &st.index;
        let i = index.info();
        let d = PyDict::new(py);
        d.set_item("file", self.path.as_os_str())?;
        d.set_item(
            "sidecar",
            (!st.in_memory).then(|| index.sidecar_path().as_os_str()),
        )?;
        d.set_item("lines", i.lines)?;
        d.set_item("source_size", i.source_size)?;
        d.set_item("sidecar_size", i.sidecar_size)?;
        d.set_item("sidecar_percent", (i.sidecar_percent() * 1e4).round() / 1e4)?;
        d.set_item("checkpoints", i.checkpoints)?;
        d.set_item("pages", i.pages)?;
        d.set_item("page_size", i.page_size)?;
        d.set_item("height", i.height)?;
        d.set_item("spacing", i.spacing)?;
        d.set_item("version", format!("{}.{}", i.version.0, i.version.1))?;
        d.set_item("source", i.verdict.to_string())?;
        d.set_item("fresh", i.verdict == Verdict::Unchanged)?;
        d.set_item("evidence", evidence(index))?;
        match i.gzip {
            Some((size, aps, span)) => {
                let g = PyDict::new(py);
                g.set_item("compressed_size", size)?;
                g.set_item("access_points", aps)?;
                g.set_item("span", span)?;
                g.set_item("windowless", i.windowless)?;
                g.set_item("piece_len", i.piece_len)?;
                d.set_item("gzip", g)?;
            }
            None => d.set_item("gzip", py.None())?,
        }
        match i.zstd {
            Some((size, frames, largest)) => {
                let z = PyDict::new(py);
                z.set_item("compressed_size", size)?;
                z.set_item("frames", frames)?;
                z.set_item("largest_frame", largest)?;
                d.set_item("zstd", z)?;
            }
            None => d.set_item("zstd", py.None())?,
        }
        let time = py.detach(|| index.time_info()).py(py)?;
        match time {
            Some(t) => {
                let (format, detected) = match t.format.strip_prefix("auto:") {
                    Some(f) => (f.to_string(), true),
                    None => (t.format, false),
                };
                let td = PyDict::new(py);
                td.set_item("format", format)?;
                td.set_item("detected", detected)?;
                td.set_item("zone", t.tz)?;
                td.set_item("first", t.range.map(|r| lidx::time::format_instant(r.0)))?;
                td.set_item("last", t.range.map(|r| lidx::time::format_instant(r.1)))?;
                d.set_item("time", td)?;
            }
            None => d.set_item("time", py.None())?,
        }
        d.set_item("action", st.action)?;
        d.set_item("damage", index.damage())?;
        Ok(d)
    }

    /// Index.verify(full=False)
    /// --
    ///
    /// Checks the sidecar as ``lidx verify``: every page's CRC, the tree
    /// and the fingerprint; with ``full``, also re-reads the file and
    /// compares every checkpoint. Returns ``{"pages", "checkpoints",
    /// "verdict", "full"}``; damage raises ``SidecarError`` or
    /// ``StaleError``.
    #[pyo3(signature = (full=false))]
    fn verify<'py>(&self, py: Python<'py>, full: bool) -> PyResult<Bound<'py, PyDict>> {
        let st = self.state()?;
        let index = &st.index;
        let r = py.detach(|| index.verify(full)).py(py)?;
        let d = PyDict::new(py);
        d.set_item("pages", r.pages)?;
        d.set_item("checkpoints", r.checkpoints)?;
        d.set_item("verdict", verdict_name(r.verdict))?;
        d.set_item("full", r.full)?;
        Ok(d)
    }

    /// The sidecar's bytes, as the index in use reads them (even if its file
    /// was replaced since): store them anywhere and open the file with them
    /// later with :meth:`from_bytes`. About 0.025% of a plain file, 3% of a
    /// gzip archive.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let st = self.state()?;
        let side = st.index.sidecar_file();
        let n = usize::try_from(side.len())
            .map_err(|_| new_error(py, "InvalidArgumentError", "sidecar too large".into()))?;
        PyBytes::new_with(py, n, |buf| py.detach(|| side.read_exact_at(buf, 0)).py(py))
    }

    /// Index.seek_points()
    /// --
    ///
    /// Where reading can start, in order: ``(uncompressed_offset,
    /// compressed_offset)`` pairs, as ``indexed_gzip``'s ``seek_points()``:
    /// a gzip archive's access points, a zstd archive's frames, a plain
    /// file's checkpoints (the same offset twice).
    fn seek_points(&self, py: Python<'_>) -> PyResult<Vec<(u64, u64)>> {
        let st = self.state()?;
        py.detach(|| st.index.seek_points())
            .map_err(|e| self.err(py, e))
    }

    /// Index.partitions(target_bytes=134217728, lines=None)
    /// --
    ///
    /// The file's lines split into :class:`Partition` objects of about
    /// ``target_bytes`` of text each (default 128 MiB, Spark's
    /// ``maxPartitionBytes``), in order, for workers that read them apart
    /// (``lidx.spark``, ``lidx.dask``, a process pool): every line is in
    /// exactly one partition and none is split. Each partition starts at
    /// a checkpoint just after an access point (gzip) or a frame (zstd),
    /// so reading it decodes from there, never from the start of an
    /// archive; an archive is never split finer than its access points.
    /// ``lines=(first, last)`` plans those lines only. Reads only the
    /// sidecar.
    #[pyo3(signature = (target_bytes=crate::partition::DEFAULT_TARGET, lines=None))]
    fn partitions(
        &self,
        py: Python<'_>,
        target_bytes: u64,
        lines: Option<(i64, Option<i64>)>,
    ) -> PyResult<Vec<crate::partition::Partition>> {
        let st = self.state()?;
        crate::partition::plan(py, &st.index, target_bytes, lines)
    }

    /// Index._batches(first, last, *, max_bytes=8388608, times=False, text=True)
    /// --
    ///
    /// Lines ``first`` to ``last`` (1-based, both included) in batches of
    /// whole lines as Arrow-ready buffers: for ``lidx.spark`` and
    /// ``lidx.dask`` (see ``lidx._columns``).
    #[pyo3(signature = (first, last, *, max_bytes=8 << 20, times=false, text=true))]
    fn _batches(
        &self,
        py: Python<'_>,
        first: u64,
        last: u64,
        max_bytes: usize,
        times: bool,
        text: bool,
    ) -> PyResult<crate::partition::Batches> {
        let st = self.state()?;
        let range = first.max(1) - 1..last;
        crate::partition::Batches::new(py, st.index.clone(), range, max_bytes, times, text)
    }

    /// Index.export_index(filename)
    /// --
    ///
    /// Writes the sidecar's bytes (as :meth:`to_bytes`) to ``filename`` as
    /// a build writes a sidecar: a temporary file next to it, flushed,
    /// renamed into place, so a reader never sees half of it. Open the file with it later with
    /// ``Index(path, sidecar=filename, build=False)``.
    fn export_index(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::path)] filename: PathBuf,
    ) -> PyResult<()> {
        let st = self.state()?;
        let side = st.index.sidecar_file();
        let ps = st.index.superblock().page_size as usize;
        py.detach(|| -> lidx::Result<()> {
            use lidx::ingest::build::PageSink;
            // Whole pages, a chunk at a time; the superblock last,
            // as a build writes it.
            let pages = side.len() / ps as u64;
            let mut out = AtomicFile::create(&filename, ps as u32)?;
            let mut buf = vec![0u8; ps * 256];
            let mut id = 1u64;
            while id < pages {
                let n = (pages - id).min(256) as usize;
                side.read_exact_at(&mut buf[..n * ps], id * ps as u64)?;
                out.write_pages(id as u32, ps, &buf[..n * ps])?;
                id += n as u64;
            }
            side.read_exact_at(&mut buf[..ps], 0)?;
            out.commit(&buf[..ps])
        })
        .map_err(|e| self.err(py, e))
    }

    /// A :class:`LineFile` over the text: a seekable, read-only binary file
    /// (``io.RawIOBase``) with ``seek_line``, sharing this index (closing
    /// it leaves the index open).
    fn open<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        py.import("lidx._file")?
            .getattr("LineFile")?
            .call1((slf, false))
    }

    /// Releases the files and memory of the index; later calls raise
    /// ``ValueError``. (Also on leaving a ``with`` block.)
    pub(crate) fn close(&self) {
        self.state.write().take();
    }

    /// True once closed.
    #[getter]
    fn closed(&self) -> bool {
        self.state.read().is_none()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        match self.state.read().as_ref() {
            None => format!("<lidx.Index {:?} closed>", self.path),
            Some(st) => {
                let lines = match st.index.damage() {
                    Some(_) => format!("{} readable lines (damaged)", st.index.line_count()),
                    None => lidx::count_of(st.index.line_count(), "line", "lines"),
                };
                format!("<lidx.Index {:?}: {lines}>", self.path)
            }
        }
    }
}

/// What the verdict rests on, in words (as `lidx info`).
fn evidence(index: &lidx::Index) -> String {
    match (index.verdict(), index.evidence()) {
        (_, Some(e)) => e.to_string(),
        (Verdict::Unverified, _) => "the file's size, head and tail are as indexed but its modification time differs; the next query re-reads it once to check its content (`lidx verify --full` does it now)".to_string(),
        (v, None) => format!("the source was {v} since indexing"),
    }
}
