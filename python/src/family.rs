//! `lidx.Family`: a rotation family (`app.log`, `app.log.1`,
//! `app.log.2.gz`, ...) read as one log with global line numbers that
//! never change (the core's `lidx::family`), and `lidx.Member`, one of
//! its files with an `Index` that shares the family's.
//!
//! Numbering is the package's (module `numbering`): global lines from 1,
//! negative numbers from the newest line, ranges holding both ends. The
//! core family is immutable once open; it is held behind an `Arc` shared
//! with the members' `Index` objects and the merges that read it.

use crate::args;
use crate::errors::{IntoPy, new_error, to_py};
use crate::index::{Index, action_name, open_options, require_time};
use crate::numbering;
use crate::progress::Progress;
use lidx::family::FamilyAction;
use lidx::{Action, Error, OpenOptions};
use parking_lot::RwLock;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An open family and its members as Python sees them.
struct State {
    family: Arc<lidx::family::Family>,
    members: Vec<Py<Member>>,
}

/// A rotation family read as one log: the live file ``app.log`` and its
/// rotated files (``app.log.1``, ``app.log.2.gz``, ``app.log.3.zst``, or
/// logrotate's dated names), oldest first, with global line numbers that
/// never change.
///
/// ``Family(live, *, cache_mb=16, build=True, spacing=None, span=None,
/// plain=False, force=False, progress=None, renumber=False, time=False,
/// time_format=None, tz=None)``
///
/// Opening finds the files by name, opens each member's sidecar (built or
/// extended as ``Index`` does: the keyword arguments are ``Index``'s, for
/// every member; ``progress`` sees the bytes of all the files built in
/// turn), and reads the family's manifest (``LIVE.family.lidx``), which
/// records each member by content: a member keeps the numbers it was given
/// when first seen however it is renamed or compressed, and when the
/// oldest member is deleted the others keep theirs (:attr:`first_line` is
/// then above 1). Files that cannot be numbered exactly — a member missing
/// between others, one replaced by another file, one that grew after it
/// was rotated — raise :class:`FamilyError` naming the file;
/// ``renumber=True`` numbers the members from line 1 again. A rotated file
/// is counted once it has been left alone for 2 seconds (a writer may
/// still append to it), so an open right after a rotation may wait that
/// long. ``live`` is a local path; the live file itself may be missing
/// for a moment after a rotation.
///
/// The queries are ``Index``'s, in global numbers: :meth:`lines`,
/// :meth:`line`, :meth:`line_at`, :meth:`line_at_time`,
/// :meth:`time_range`, ``len()``; :attr:`members` gives each file with its
/// own :class:`Index`. Thread-safe; the GIL is released during every read.
#[pyclass(frozen, module = "lidx", name = "Family")]
pub struct Family {
    /// The live file as given.
    live: PathBuf,
    /// `None` once closed.
    state: RwLock<Option<Arc<State>>>,
}

/// One file of a :class:`Family` (from :attr:`Family.members`):
/// :attr:`path`, :attr:`first_line` (the global number of its first line;
/// its line ``k`` is the family's ``first_line + k - 1``),
/// :attr:`line_count`, :attr:`offset` (the global offset of its first byte
/// of text) and :attr:`index`, an :class:`Index` over the member in its
/// own numbers, sharing the family's (closed with it).
#[pyclass(frozen, module = "lidx", name = "Member")]
pub struct Member {
    path: OsString,
    first_line: u64,
    line_count: u64,
    offset: u64,
    index: Py<Index>,
}

#[pymethods]
impl Member {
    /// The member's file now.
    #[getter]
    fn path(&self) -> &OsStr {
        &self.path
    }

    /// The global number of its first line.
    #[getter]
    fn first_line(&self) -> u64 {
        self.first_line
    }

    /// Its number of lines.
    #[getter]
    fn line_count(&self) -> u64 {
        self.line_count
    }

    /// The global byte offset of its first byte of text (the text of the
    /// members before it, back to line 1 of the numbering, comes first).
    #[getter]
    fn offset(&self) -> u64 {
        self.offset
    }

    /// Its :class:`Index`, in its own line numbers.
    #[getter]
    fn index(&self, py: Python<'_>) -> Py<Index> {
        self.index.clone_ref(py)
    }

    fn __repr__(&self) -> String {
        let lines = match self.line_count {
            0 => "no lines".to_string(),
            n => format!("lines {}–{}", self.first_line, self.first_line + n - 1),
        };
        format!("<lidx.Member {:?}: {lines}>", Path::new(&self.path))
    }
}

/// Builds, extends or refreshes the sidecars of the family's files before
/// the family is opened, so that `progress` sees the whole set (bytes of
/// every file, in turn); records what opening did to each. A file that
/// fails here is left to the family's open, which reports it; a
/// cancellation is returned.
fn build_members(
    live: &Path,
    opts: &OpenOptions,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> lidx::Result<HashMap<PathBuf, Action>> {
    let files = lidx::family::prepare(live)?;
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .collect();
    let total: u64 = sizes.iter().sum();
    let mut finished = 0u64;
    let mut actions = HashMap::new();
    for (file, &size) in files.iter().zip(&sizes) {
        let r = opts.open_cancellable(file, &mut |done, _| {
            progress((finished + done.min(size)).min(total), total)
        });
        match r {
            Ok(opened) => {
                actions.insert(file.clone(), opened.action);
            }
            Err(e @ Error::Cancelled { .. }) => return Err(e),
            Err(_) => {}
        }
        finished += size;
    }
    Ok(actions)
}

impl Family {
    fn state(&self) -> PyResult<Arc<State>> {
        self.state
            .read()
            .clone()
            .ok_or_else(|| PyValueError::new_err("I/O operation on a closed lidx.Family"))
    }

    /// The open core family (for `lidx.merge`).
    pub(crate) fn core(&self) -> PyResult<Arc<lidx::family::Family>> {
        Ok(Arc::clone(&self.state()?.family))
    }

    /// A line that is not in the family: rotated away or past the end.
    fn not_present(&self, py: Python<'_>, f: &lidx::family::Family, what: &str, g: u64) -> PyErr {
        let (first, end) = (f.first_line(), f.end_line());
        let held = if first < end {
            format!("its members hold lines {}–{end}", first + 1)
        } else {
            "its members hold no line".to_string()
        };
        let why = if g < first {
            "was rotated away"
        } else {
            "is past the end"
        };
        new_error(
            py,
            "OutOfRangeError",
            format!("{}: {what} {why} ({held})", self.live.display()),
        )
    }

    /// The global line `n` (0-based), present in the family.
    fn present_line(&self, py: Python<'_>, f: &lidx::family::Family, n: i64) -> PyResult<u64> {
        let end = f.end_line();
        match numbering::line_in(py, n, end)? {
            Some(g) if f.member_of(g).is_some() => Ok(g),
            Some(g) => Err(self.not_present(py, f, &format!("line {n}"), g)),
            None => Err(new_error(
                py,
                "OutOfRangeError",
                format!(
                    "{}: line {n} is before the first line (the family has {})",
                    self.live.display(),
                    lidx::count_of(end, "line", "lines")
                ),
            )),
        }
    }

    /// Reads the global lines `r` (0-based, those present) as a list of
    /// lines, with the GIL released.
    fn read<'py>(
        &self,
        py: Python<'py>,
        f: &lidx::family::Family,
        r: Range<u64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let r = r.start.max(f.first_line())..r.end.min(f.end_line());
        if r.start >= r.end {
            return Ok(PyList::empty(py));
        }
        let (buf, lines) = py
            .detach(|| -> lidx::Result<(Vec<u8>, u64)> {
                let need = f.read_lines_into(r.clone(), &mut [])?;
                let mut buf = vec![0u8; need.len as usize];
                let got = f.read_lines_into(r.clone(), &mut buf)?;
                if !got.read {
                    return Err(Error::SourceChanged {
                        path: self.live.clone(),
                        what: "the lines grew while they were read".into(),
                    });
                }
                Ok((buf, got.lines))
            })
            .py(py)?;
        // Each line read ends with its newline but maybe the family's last.
        let mut out = Vec::with_capacity(lines as usize);
        let mut at = 0;
        while at < buf.len() {
            let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i + 1);
            out.push(PyBytes::new(py, &buf[at..end]));
            at = end;
        }
        debug_assert_eq!(out.len() as u64, lines);
        PyList::new(py, out)
    }
}

#[pymethods]
impl Family {
    #[new]
    #[pyo3(signature = (live, *, cache_mb=16, build=true, spacing=None, span=None, plain=false, force=false, progress=None, renumber=false, time=false, time_format=None, tz=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        #[pyo3(from_py_with = args::path)] live: PathBuf,
        #[pyo3(from_py_with = args::cache_mb)] cache_mb: usize,
        build: bool,
        #[pyo3(from_py_with = args::spacing)] spacing: Option<u64>,
        #[pyo3(from_py_with = args::span)] span: Option<u64>,
        plain: bool,
        force: bool,
        progress: Option<Py<PyAny>>,
        renumber: bool,
        time: bool,
        time_format: Option<String>,
        tz: Option<String>,
    ) -> PyResult<Family> {
        if lidx::io::is_url(&live) {
            return Err(to_py(
                py,
                Error::InvalidArgument(format!(
                    "{}: a rotation family is a local directory's files, not a URL",
                    live.display()
                )),
            ));
        }
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
        let mut p = Progress::new(progress);
        let r = py.detach(|| {
            let actions = if build {
                build_members(&live, &opts, &mut |d, t| p.tick(d, t))?
            } else {
                HashMap::new()
            };
            // A forced rebuild was done just above, once.
            let mut oo = opts.clone();
            oo.force(false);
            Ok((lidx::family::Family::open(&live, &oo, renumber)?, actions))
        });
        let (family, actions) = p.finish(py, r)?;
        opts.force(false);
        let family = Arc::new(family);
        let members = family
            .members()
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let action = actions.get(&m.path).map_or("opened", |a| action_name(*a));
                let index =
                    Index::member(m.path.clone(), opts.clone(), Arc::clone(&family), k, action);
                Py::new(
                    py,
                    Member {
                        path: m.path.as_os_str().to_owned(),
                        first_line: m.base_line + 1,
                        line_count: m.index.line_count(),
                        offset: m.base_byte,
                        index: Py::new(py, index)?,
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Family {
            live,
            state: RwLock::new(Some(Arc::new(State { family, members }))),
        })
    }

    /// The live file as given (the family's name).
    #[getter]
    fn path(&self) -> &OsStr {
        self.live.as_os_str()
    }

    /// Where the family's manifest is (next to the live file, or in the
    /// user cache directory when that directory is not writable).
    #[getter]
    fn manifest_path(&self) -> PyResult<OsString> {
        Ok(self.state()?.family.manifest_path().as_os_str().to_owned())
    }

    /// What opening did to the numbering: ``"opened"`` (the manifest was
    /// current), ``"numbered"`` (there was none: the members were numbered
    /// from line 1), ``"updated"`` (members were added, dropped or sealed;
    /// no number changed) or ``"renumbered"`` (``renumber=True``).
    #[getter]
    fn action(&self) -> PyResult<&'static str> {
        Ok(match self.state()?.family.action() {
            FamilyAction::Opened => "opened",
            FamilyAction::Numbered => "numbered",
            FamilyAction::Updated => "updated",
            FamilyAction::Renumbered => "renumbered",
        })
    }

    /// The members, oldest first (the live file last), each a
    /// :class:`Member`.
    #[getter]
    fn members<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let st = self.state()?;
        PyList::new(py, st.members.iter().map(|m| m.clone_ref(py)))
    }

    /// The global number of the oldest line present (above 1 once members
    /// were deleted: their lines were rotated away, nothing was
    /// renumbered).
    #[getter]
    fn first_line(&self) -> PyResult<u64> {
        Ok(self.state()?.family.first_line() + 1)
    }

    /// The number just past the newest line: ``range(first_line,
    /// end_line)`` are the lines present, ``end_line - 1`` (or ``-1``) is
    /// the newest.
    #[getter]
    fn end_line(&self) -> PyResult<u64> {
        Ok(self.state()?.family.end_line() + 1)
    }

    /// Number of lines present in the members (``len(family)`` too).
    #[getter]
    fn line_count(&self) -> PyResult<u64> {
        Ok(self.state()?.family.line_count())
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(usize::try_from(self.state()?.family.line_count()).unwrap_or(usize::MAX))
    }

    /// Family.member_of(n)
    /// --
    ///
    /// The position in :attr:`members` of the member that holds global
    /// line ``n`` (``-1``: the newest line). A line rotated away or past
    /// the end: ``OutOfRangeError``.
    fn member_of(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::line_no)] n: i64,
    ) -> PyResult<usize> {
        let st = self.state()?;
        let f = &st.family;
        let g = self.present_line(py, f, n)?;
        Ok(f.member_of(g).expect("a present line has a member"))
    }

    /// Family.lines(first, last)
    /// --
    ///
    /// Global lines ``first`` to ``last``, both included, each with its
    /// ``\n``, as :meth:`Index.lines`; negative numbers count from the
    /// newest line. Lines the range names that are not present (rotated
    /// away, or past the end) are not returned. A member's last line
    /// without a ``\n`` is given one when a line of the next member
    /// follows it, so that each line ends with ``\n`` except, possibly,
    /// the family's very last.
    fn lines<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::line_no)] first: i64,
        #[pyo3(from_py_with = args::line_no)] last: i64,
    ) -> PyResult<Bound<'py, PyList>> {
        let st = self.state()?;
        let f = &st.family;
        let r = numbering::range_in(py, first, Some(last), f.end_line())?;
        self.read(py, f, r)
    }

    /// Family.line(n)
    /// --
    ///
    /// Global line ``n`` as it is in its member (``-1``: the newest line).
    /// A line rotated away or past the end: ``OutOfRangeError``.
    fn line<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::line_no)] n: i64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let st = self.state()?;
        let f = &st.family;
        let g = self.present_line(py, f, n)?;
        let lines = self.read(py, f, g..g + 1)?;
        Ok(lines.get_item(0)?.cast_into::<PyBytes>()?)
    }

    /// Family.line_at(offset)
    /// --
    ///
    /// The global number of the line holding global byte ``offset`` (a
    /// member's text starts at its :attr:`Member.offset`). An offset no
    /// member holds (rotated away, or past the end): ``OutOfRangeError``.
    fn line_at(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::offset)] offset: u64,
    ) -> PyResult<u64> {
        let st = self.state()?;
        let f = &st.family;
        match py.detach(|| f.line_at(offset)).py(py)? {
            Some(l) => Ok(l + 1),
            None => {
                let (first, end) = f
                    .members()
                    .first()
                    .zip(f.members().last())
                    .map_or((0, 0), |(a, b)| {
                        (a.base_byte, b.base_byte + b.index.source_len())
                    });
                let why = if offset < first {
                    "was rotated away"
                } else {
                    "is past the end"
                };
                Err(new_error(
                    py,
                    "OutOfRangeError",
                    format!(
                        "{}: offset {offset} {why} (its members hold bytes {first}–{})",
                        self.live.display(),
                        end.saturating_sub(1)
                    ),
                ))
            }
        }
    }

    /// Family.line_at_time(t)
    /// --
    ///
    /// The global number of the first line, in family order (oldest member
    /// first), whose time is at or after ``t``, or None when no line's is.
    /// ``t`` as :meth:`Index.line_at_time` takes it; a time without a zone
    /// is read in the newest member's time index's zone. Every member needs
    /// a time index (``Family(live, time=True)``).
    fn line_at_time(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        let st = self.state()?;
        let f = &st.family;
        require_times(py, f)?;
        let t = args::instant(t, "t", &mut || py.detach(|| zone_of(f)))?;
        let l = py.detach(|| f.line_at_time(t)).py(py)?;
        Ok((l < f.end_line()).then_some(l + 1))
    }

    /// Family.time_range(since=None, until=None)
    /// --
    ///
    /// The global lines of a time range, ``(first, last)`` (both included),
    /// or None when no line is in it: every member's own range (as
    /// :meth:`Index.time_range`) joined. Times as :meth:`line_at_time`.
    #[pyo3(signature = (since=None, until=None))]
    fn time_range(
        &self,
        py: Python<'_>,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<(u64, u64)>> {
        let st = self.state()?;
        let f = &st.family;
        require_times(py, f)?;
        let mut zone = || py.detach(|| zone_of(f));
        let since = args::optional_instant(since, "since", &mut zone)?;
        let until = args::optional_instant(until, "until", &mut zone)?;
        let r = py.detach(|| f.time_range(since, until)).py(py)?;
        Ok((r.start < r.end).then_some((r.start + 1, r.end)))
    }

    /// Releases the family's files and memory, and closes its members'
    /// :class:`Index` objects; later calls raise ``ValueError``. (Also on
    /// leaving a ``with`` block.)
    fn close(&self) {
        if let Some(st) = self.state.write().take() {
            for m in &st.members {
                m.get().index.get().close();
            }
        }
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
            None => format!("<lidx.Family {:?} closed>", self.live),
            Some(st) => {
                let f = &st.family;
                format!(
                    "<lidx.Family {:?}: {}, lines {}–{}>",
                    self.live,
                    lidx::count_of(f.members().len() as u64, "member", "members"),
                    f.first_line() + 1,
                    f.end_line()
                )
            }
        }
    }
}

/// Fails unless every member has a time index.
pub(crate) fn require_times(py: Python<'_>, f: &lidx::family::Family) -> PyResult<()> {
    f.members()
        .iter()
        .try_for_each(|m| require_time(py, &m.index))
}

/// The zone of the newest member's time index, in which a time without
/// one is read (as the command line reads `--since` for a family).
pub(crate) fn zone_of(f: &lidx::family::Family) -> lidx::Result<String> {
    match f.members().last() {
        Some(m) => args::zone_of(&m.index),
        None => Ok("local".into()),
    }
}
