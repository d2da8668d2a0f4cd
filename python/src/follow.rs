//! `Index.follow`: new complete lines of a growing file, through the core's
//! `lidx::Follower` (which keeps the sidecar current by extension and
//! starts over on a truncated or replaced file).
//!
//! A follower that starts behind the end (``start=-10``, or an early line
//! of a big file) first pages through the lines that were complete when
//! it was made, from the index it was made from, [`BACKLOG_PAGE`] lines at
//! a time; the core follower then starts where that backlog ends, so one
//! poll never holds more than a page of old lines.

use crate::errors::to_py;
use crate::index::Shared;
use crate::numbering;
use lidx::{FollowEvent, LineBuf, OpenOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::collections::VecDeque;
use std::path::Path;
use std::time::{Duration, Instant};

/// Lines of the backlog a poll returns at most.
const BACKLOG_PAGE: u64 = 4096;

/// How often a waiting iteration checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Lines of the file that end in `\n` (a last line without it may still
/// grow).
fn complete_lines(index: &lidx::Index) -> lidx::Result<u64> {
    let n = index.line_count();
    let len = index.source_len();
    if n == 0 || len == 0 {
        return Ok(n);
    }
    let mut last = [0u8; 1];
    index.source().read_exact_at(&mut last, len - 1)?;
    Ok(if last[0] == b'\n' { n } else { n - 1 })
}

/// Follows a growing file (from :meth:`Index.follow`): ``poll()`` returns
/// the lines completed since the last poll as ``(line_no, line)``;
/// iterating waits for them. Not for use by several threads at once.
#[pyclass(module = "lidx", name = "Follower")]
pub struct Follower {
    /// Lines complete when the follower was made, still to report:
    /// `(index, next, end)`, 0-based, half-open.
    backlog: Option<(Shared, u64, u64)>,
    /// The core follower (taken while it polls).
    inner: Option<lidx::Follower>,
    /// Lines polled but not yet yielded by the iteration.
    queue: VecDeque<(u64, Py<PyBytes>)>,
    restarts: u64,
    interval: Duration,
}

impl Follower {
    pub fn new(
        py: Python<'_>,
        path: &Path,
        index: Shared,
        start: Option<i64>,
        opts: OpenOptions,
        interval: f64,
    ) -> PyResult<Follower> {
        if !(interval.is_finite() && interval >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "interval must be a number of seconds >= 0, not {interval}"
            )));
        }
        if let Some(e) = index.damaged_error() {
            return Err(to_py(py, e));
        }
        let complete = py
            .detach(|| complete_lines(&index))
            .map_err(|e| to_py(py, e))?;
        let from = match start {
            None => complete,
            Some(n) => numbering::line(py, &index, n)?,
        };
        let inner = py
            .detach(|| lidx::Follower::new(path, from.max(complete), &opts))
            .map_err(|e| to_py(py, e))?;
        Ok(Follower {
            backlog: (from < complete).then_some((index, from, complete)),
            inner: Some(inner),
            queue: VecDeque::new(),
            restarts: 0,
            interval: Duration::from_secs_f64(interval),
        })
    }

    /// One poll: the next page of the backlog, or what the core follower
    /// finds, as `(first line, bytes of the lines)` (0-based).
    fn poll_once(&mut self, py: Python<'_>) -> PyResult<(u64, Vec<u8>)> {
        if let Some((index, next, end)) = self.backlog.take() {
            let to = end.min(next + BACKLOG_PAGE);
            let buf = py
                .detach(|| {
                    let mut b = LineBuf::new();
                    index.read_lines(next..to, &mut b).map(|_| b)
                })
                .map_err(|e| to_py(py, e))?;
            if to < end {
                self.backlog = Some((index, to, end));
            }
            return Ok((next, buf.bytes().to_vec()));
        }
        let mut f = self
            .inner
            .take()
            .ok_or_else(|| PyValueError::new_err("the follower failed earlier"))?;
        let (f, restarted, r) = py.detach(move || {
            let mut out = Vec::new();
            let mut restarted = 0;
            let r = loop {
                let first = f.next_line();
                match f.poll(false, &mut out) {
                    // The new file's lines, at once.
                    Ok(FollowEvent::Restarted) if restarted == 0 => restarted += 1,
                    Ok(_) => break Ok(first),
                    Err(e) => break Err(e),
                }
            };
            (f, restarted, r.map(|first| (first, out)))
        });
        self.inner = Some(f);
        self.restarts += restarted;
        r.map_err(|e| to_py(py, e))
    }

    /// Splits `bytes` (whole lines from 0-based line `first`) into
    /// `(line_no, line)` pairs.
    fn split<'py>(
        py: Python<'py>,
        first: u64,
        bytes: &[u8],
    ) -> impl Iterator<Item = (u64, Bound<'py, PyBytes>)> {
        let mut at = 0;
        let mut n = first;
        std::iter::from_fn(move || {
            if at >= bytes.len() {
                return None;
            }
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
            let line = PyBytes::new(py, &bytes[at..end]);
            at = end;
            n += 1;
            Some((n, line))
        })
    }
}

#[pymethods]
impl Follower {
    /// The number of the next line to report.
    #[getter]
    fn next_line(&self) -> u64 {
        match (&self.backlog, &self.inner) {
            (Some((_, next, _)), _) => next + 1,
            (None, Some(f)) => f.next_line() + 1,
            (None, None) => 0,
        }
    }

    /// How many times the file was found truncated or replaced (then its
    /// lines are reported again from line 1).
    #[getter]
    fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Follower.poll()
    /// --
    ///
    /// The lines completed since the last poll (or the next page, at most
    /// 4096 lines, of those complete when following started), as a list of
    /// ``(line_no, line)``; empty when there are none. Does not wait.
    fn poll<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut items: Vec<Bound<'py, PyTuple>> = Vec::new();
        for (n, l) in self.queue.drain(..) {
            items.push(PyTuple::new(
                py,
                [n.into_pyobject(py)?.into_any(), l.into_bound(py).into_any()],
            )?);
        }
        let (first, bytes) = self.poll_once(py)?;
        for (n, l) in Follower::split(py, first, &bytes) {
            items.push(PyTuple::new(
                py,
                [n.into_pyobject(py)?.into_any(), l.into_any()],
            )?);
        }
        PyList::new(py, items)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next complete line, waiting for it (forever, until Ctrl-C or
    /// ``break``).
    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<(u64, Bound<'py, PyBytes>)> {
        loop {
            if let Some((n, l)) = self.queue.pop_front() {
                return Ok((n, l.into_bound(py)));
            }
            let (first, bytes) = self.poll_once(py)?;
            if bytes.is_empty() {
                let until = Instant::now() + self.interval;
                loop {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    py.detach(|| std::thread::sleep(left.min(SIGNAL_CHECK)));
                    py.check_signals()?;
                }
                continue;
            }
            for (n, l) in Follower::split(py, first, &bytes) {
                self.queue.push_back((n, l.unbind()));
            }
        }
    }
}
