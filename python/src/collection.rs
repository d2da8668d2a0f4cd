//! `lidx.Collection`: several logs (`Index` and `Family` objects) read as
//! one numbered whole, one after the other or merged by time — the core's
//! `lidx::join::Joined`, as `lidx view a.log b.log` and `lidx view
//! --merge` show them.

use crate::args;
use crate::errors::{new_error, to_py};
use crate::family::{Family, zone_of};
use crate::grep::{self, Matches};
use crate::index::{Index, Shared};
use crate::numbering;
use lidx::join::{Joined, Log, Order};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::ops::Range;
use std::sync::Arc;

/// Several logs read as one, with the way back from each line to its log.
///
/// ``Collection(sources, *, merge=False, since=None, until=None,
/// cache_mb=16)``
///
/// ``sources`` is a list of :class:`Index` and :class:`Family` objects
/// (open; the collection shares their indexes and keeps them alive). The
/// whole holds their lines one source after the other, or with ``merge``
/// interleaved by time through their time indexes (as :func:`merge`: ties
/// in the order of ``sources``, then of the lines; every source needs a
/// time index). ``since`` and ``until`` keep each source's lines of that
/// time range (as :meth:`Index.time_range`); several sources with a time
/// range are merged, as the command line merges them.
///
/// The whole is numbered from 1 as an :class:`Index` is (negative numbers
/// count from the end): :meth:`line`, :meth:`lines`, ``len()``. A
/// source's last line without ``\n`` is given one in the whole.
/// :meth:`origin` says where a line of the whole comes from,
/// :meth:`line_of` where a source's line is in the whole,
/// :meth:`line_at_time` finds a time, and :meth:`grep` searches the whole. Building a merge reads every line
/// once, for its time; a concatenation reads nothing. Memory: about 70
/// bytes each time the whole goes from one source to another (a merge of
/// more than 4 M such turns is refused: narrow it with ``since`` and
/// ``until``). Thread-safe; the GIL is released during every read.
#[pyclass(frozen, module = "lidx", name = "Collection")]
pub struct Collection {
    joined: Arc<Joined>,
}

/// A source as a log, with its lines in the time range.
fn log_of(
    py: Python<'_>,
    i: usize,
    s: &Bound<'_, PyAny>,
    since: Option<&Bound<'_, PyAny>>,
    until: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Log, Range<u64>)> {
    let timed = since.is_some() || until.is_some();
    if let Ok(ix) = s.cast::<Index>() {
        let index = match &ix.get().state()?.index {
            Shared::Own(i) => Arc::clone(i),
            Shared::Member(..) => {
                return Err(PyTypeError::new_err(format!(
                    "sources[{i}] is a family member's index: give the lidx.Family, or an Index of the member's file"
                )));
            }
        };
        let lines = if timed {
            crate::index::require_time(py, &index)?;
            let mut zone = || py.detach(|| args::zone_of(&index));
            let since = args::optional_instant(since, "since", &mut zone)?;
            let until = args::optional_instant(until, "until", &mut zone)?;
            py.detach(|| index.time_range(since, until))
                .map_err(|e| to_py(py, e))?
        } else {
            0..index.line_count()
        };
        Ok((Log::File(index), lines))
    } else if let Ok(f) = s.cast::<Family>() {
        let family = f.get().core()?;
        let lines = if timed {
            for m in family.members() {
                crate::index::require_time(py, &m.index)?;
            }
            let fam = &family;
            let mut zone = || py.detach(|| zone_of(fam));
            let since = args::optional_instant(since, "since", &mut zone)?;
            let until = args::optional_instant(until, "until", &mut zone)?;
            py.detach(|| fam.time_range(since, until))
                .map_err(|e| to_py(py, e))?
        } else {
            family.first_line()..family.end_line()
        };
        Ok((Log::Family(family), lines))
    } else {
        Err(PyTypeError::new_err(format!(
            "sources[{i}] must be a lidx.Index or a lidx.Family, not {}",
            s.get_type().name()?
        )))
    }
}

#[pymethods]
impl Collection {
    #[new]
    #[pyo3(signature = (sources, *, merge=false, since=None, until=None, cache_mb=None))]
    fn new(
        py: Python<'_>,
        sources: &Bound<'_, PyAny>,
        merge: bool,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
        cache_mb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Collection> {
        let cache = match cache_mb {
            Some(c) => args::cache_mb(c)?,
            None => 16,
        }
        .saturating_mul(1 << 20);
        let (mut logs, mut windows) = (Vec::new(), Vec::new());
        for (i, s) in sources.try_iter()?.enumerate() {
            let (log, lines) = log_of(py, i, &s?, since, until)?;
            logs.push(log);
            windows.push(lines);
        }
        if logs.is_empty() {
            return Err(new_error(
                py,
                "InvalidArgumentError",
                "a collection needs at least one source".into(),
            ));
        }
        let timed = since.is_some() || until.is_some();
        let order = if merge || (timed && logs.len() > 1) {
            Order::Time
        } else {
            Order::Concat
        };
        let joined = py
            .detach(|| Joined::new(logs, Some(windows), order, cache, &mut |_, _| true))
            .map_err(|e| to_py(py, e))?;
        Ok(Collection {
            joined: Arc::new(joined),
        })
    }

    /// The number of lines of the whole.
    #[getter]
    fn line_count(&self) -> u64 {
        self.joined.index().line_count()
    }

    fn __len__(&self) -> usize {
        usize::try_from(self.line_count()).unwrap_or(usize::MAX)
    }

    /// True when the whole is merged by time, False when its sources
    /// follow each other.
    #[getter]
    fn merged(&self) -> bool {
        self.joined.order() == Order::Time
    }

    /// Collection.lines(first, last)
    /// --
    ///
    /// Lines ``first`` to ``last`` of the whole, both included, each with
    /// its ``\n``, as :meth:`Index.lines`.
    fn lines<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::line_no)] first: i64,
        #[pyo3(from_py_with = args::line_no)] last: i64,
    ) -> PyResult<Bound<'py, PyList>> {
        let index = self.joined.index();
        let r = numbering::range(py, index, first, Some(last))?;
        self.read(py, r)
    }

    /// Collection.line(n)
    /// --
    ///
    /// Line ``n`` of the whole (``-1``: the last), with its ``\n``.
    fn line<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::line_no)] n: i64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let l = self.present(py, n)?;
        let lines = self.read(py, l..l + 1)?;
        Ok(lines.get_item(0)?.cast_into::<PyBytes>()?)
    }

    /// Collection.origin(n)
    /// --
    ///
    /// Where line ``n`` of the whole comes from: ``(source, line_no)``,
    /// the source's position in ``sources`` and the line's number there
    /// (1-based; a family's global number).
    fn origin(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::line_no)] n: i64,
    ) -> PyResult<(usize, u64)> {
        let l = self.present(py, n)?;
        let (k, own) = self.joined.origin(l).expect("a present line");
        Ok((k, own + 1))
    }

    /// Collection.line_of(source, line_no)
    /// --
    ///
    /// The number in the whole of line ``line_no`` (1-based; a family's
    /// global number) of ``sources[source]``, or of the first line after
    /// it of that source that the whole holds; None when it holds none.
    fn line_of(&self, py: Python<'_>, source: usize, line_no: u64) -> PyResult<Option<u64>> {
        if source >= self.joined.logs().len() {
            return Err(new_error(
                py,
                "OutOfRangeError",
                format!(
                    "source {source}: the collection has {}",
                    lidx::count_of(self.joined.logs().len() as u64, "source", "sources")
                ),
            ));
        }
        if line_no == 0 {
            return Err(new_error(
                py,
                "InvalidArgumentError",
                "line numbers start at 1".into(),
            ));
        }
        Ok(self.joined.line_of(source, line_no - 1).map(|l| l + 1))
    }

    /// Collection.line_at_time(t)
    /// --
    ///
    /// The number in the whole of the first line at or after ``t`` in any
    /// source (the earliest in the whole of each source's first line at or
    /// after ``t``), or None. ``t`` as :meth:`Index.line_at_time` takes
    /// it; a time without a zone is read in the zone of the first source
    /// with a time index. Sources without a time index are passed over
    /// (none has one: ``InvalidArgumentError``).
    fn line_at_time(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        let Some(zoned) = self.joined.logs().iter().find_map(|l| l.timed_index()) else {
            return Err(new_error(
                py,
                "InvalidArgumentError",
                "no source of the collection has a time index (open them with time=True)".into(),
            ));
        };
        let t = args::instant(t, "t", &mut || py.detach(|| args::zone_of(zoned)))?;
        let l = py
            .detach(|| self.joined.line_at_time(t))
            .map_err(|e| to_py(py, e))?;
        Ok(l.map(|l| l + 1))
    }

    /// Collection.grep(pattern, lines=None, *, ignore_case=False, smart_case=False, fixed_strings=False, word_regexp=False, line_regexp=False, invert_match=False, max_count=None, crlf=False, unicode=True, threads=None)
    /// --
    ///
    /// Searches the whole as :meth:`Index.grep` searches a file, and yields
    /// ``(line_no, offset, line)`` in the whole's order: the line's number
    /// in the whole (:meth:`origin` says whose it is), its offset in the
    /// whole's text and its bytes.
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
        let index = Shared::Own(Arc::clone(self.joined.index()));
        grep::request(py, index, pattern, lines, &flags)
    }

    fn __repr__(&self) -> String {
        format!(
            "<lidx.Collection of {}{}: {}>",
            lidx::count_of(self.joined.logs().len() as u64, "source", "sources"),
            if self.merged() { " merged by time" } else { "" },
            lidx::count_of(self.line_count(), "line", "lines")
        )
    }
}

impl Collection {
    /// The 0-based number of line `n`, which must be present.
    fn present(&self, py: Python<'_>, n: i64) -> PyResult<u64> {
        let count = self.line_count();
        match numbering::line_in(py, n, count)? {
            Some(l) if l < count => Ok(l),
            _ => Err(new_error(
                py,
                "OutOfRangeError",
                format!(
                    "line {n} is not in the collection (it has {})",
                    lidx::count_of(count, "line", "lines")
                ),
            )),
        }
    }

    /// The lines `r` (0-based, clamped to the whole), each with its `\n`.
    fn read<'py>(&self, py: Python<'py>, r: Range<u64>) -> PyResult<Bound<'py, PyList>> {
        let index = self.joined.index();
        let r = r.start.min(index.line_count())..r.end.min(index.line_count());
        if r.start >= r.end {
            return Ok(PyList::empty(py));
        }
        let buf = py
            .detach(|| -> lidx::Result<Vec<u8>> {
                let need = index.read_lines_into(r.clone(), &mut [])?;
                let mut buf = vec![0u8; need.len as usize];
                index.read_lines_into(r.clone(), &mut buf)?;
                Ok(buf)
            })
            .map_err(|e| to_py(py, e))?;
        let out = PyList::empty(py);
        for l in buf.split_inclusive(|&b| b == b'\n') {
            out.append(PyBytes::new(py, l))?;
        }
        Ok(out)
    }
}
