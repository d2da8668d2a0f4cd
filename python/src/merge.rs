//! `lidx.merge`: several logs (`Index` and `Family` objects) read as one,
//! merged by time (the core's `lidx::merge::merge_by_time`, a k-way merge
//! through the logs' time indexes), in a background thread whose lines a
//! Python iterator pulls.
//!
//! The merge runs on its own thread over clones of the sources' shared
//! indexes and hands its lines, in batches of [`BATCH_LINES`] lines or
//! about [`BATCH_BYTES`], to a channel of [`CHANNEL_BATCHES`] places; the
//! iterator takes them with the GIL released. Memory is bounded by those
//! batches and the core merge's batch per source, whatever the logs'
//! size. When the iterator is dropped or closed, the channel closes and
//! the merge stops at its next batch.

use crate::args;
use crate::errors::{new_error, to_py};
use crate::family::{Family, zone_of};
use crate::grep::{Msg, receive, u64_at};
use crate::index::{Index, Shared};
use lidx::merge::{Input, MergedLine, Part, merge_by_time};
use parking_lot::Mutex;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ops::Range;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Lines per batch sent to the iterator, at most.
const BATCH_LINES: usize = 4096;
/// Bytes of records per batch, about (a batch ends at the line that
/// crosses it).
const BATCH_BYTES: usize = 1 << 20;
/// Batches waiting in the channel at most.
const CHANNEL_BATCHES: usize = 2;
/// A record's header: source, line, has-time, time, length (u64s).
const HEADER: usize = 40;

/// One source's parts: an index, the base of its line numbers and
/// offsets, and its lines (0-based in the index).
type Parts = Vec<(Shared, u64, u64, Range<u64>)>;

/// `require_time`'s error, naming the source.
fn require_time(py: Python<'_>, i: usize, index: &lidx::Index) -> PyResult<()> {
    crate::index::require_time(py, index).map_err(|e| {
        new_error(
            py,
            "InvalidArgumentError",
            format!("sources[{i}]: {}", e.value(py)),
        )
    })
}

/// An `Index` source: its lines in the time range.
fn index_parts(
    py: Python<'_>,
    i: usize,
    index: Shared,
    since: Option<&Bound<'_, PyAny>>,
    until: Option<&Bound<'_, PyAny>>,
) -> PyResult<Parts> {
    require_time(py, i, &index)?;
    let mut zone = || py.detach(|| args::zone_of(&index));
    let since = args::optional_instant(since, "since", &mut zone)?;
    let until = args::optional_instant(until, "until", &mut zone)?;
    let lines = if since.is_some() || until.is_some() {
        py.detach(|| index.time_range(since, until))
            .map_err(|e| to_py(py, e))?
    } else {
        0..index.line_count()
    };
    Ok(vec![(index, 0, 0, lines)])
}

/// A `Family` source: each member's part of the family's lines in the
/// time range.
fn family_parts(
    py: Python<'_>,
    i: usize,
    family: Arc<lidx::family::Family>,
    since: Option<&Bound<'_, PyAny>>,
    until: Option<&Bound<'_, PyAny>>,
) -> PyResult<Parts> {
    for m in family.members() {
        require_time(py, i, &m.index)?;
    }
    let f = &family;
    let mut zone = || py.detach(|| zone_of(f));
    let since = args::optional_instant(since, "since", &mut zone)?;
    let until = args::optional_instant(until, "until", &mut zone)?;
    let want = if since.is_some() || until.is_some() {
        py.detach(|| f.time_range(since, until))
            .map_err(|e| to_py(py, e))?
    } else {
        f.first_line()..f.end_line()
    };
    let mut parts = Vec::new();
    for (k, m) in f.members().iter().enumerate() {
        let own = m.lines();
        let (s, e) = (want.start.max(own.start), want.end.min(own.end));
        if s < e {
            parts.push((
                Shared::Member(Arc::clone(f), k),
                m.base_line,
                m.base_byte,
                s - m.base_line..e - m.base_line,
            ));
        }
    }
    Ok(parts)
}

/// merge(sources, since=None, until=None)
/// --
///
/// Several logs read as one, merged by time: an iterator of ``(source,
/// line_no, time, line)`` for every line of ``sources`` (a list of
/// :class:`Index` and :class:`Family` objects) in time order — ``source``
/// the log's position in ``sources``, ``line_no`` its number there (a
/// family's global number), ``time`` its time in nanoseconds since
/// 1970-01-01T00:00:00Z or None, ``line`` its bytes with the ``\n`` (a
/// log's last line may have none). A line's time is its stamp's, or for a
/// line without one (a stack trace's) the last stamp's before it, so a
/// record stays whole; lines before a log's first stamp have none and come
/// first. Ties keep the order of ``sources``, then of the lines. A log
/// whose times are not in order is still read in its own order: the merge
/// interleaves, it never sorts a log.
///
/// ``since`` and ``until`` keep, in each log, its lines of that time range
/// (as :meth:`Index.time_range`; times as :meth:`Index.line_at_time` takes
/// them, a time without a zone read in each log's own zone). Every log
/// needs a time index (``Index(path, time=True)``, ``Family(live,
/// time=True)``; else ``InvalidArgumentError`` naming it); errors about
/// the sources are raised here, errors while reading by the iteration.
///
/// The merge runs in a background thread, a few batches of lines ahead of
/// the consumer (memory stays bounded, whatever the logs' size), with the
/// GIL released. Stopping early (``break``, ``close()``) stops it.
#[pyfunction]
#[pyo3(signature = (sources, since=None, until=None))]
pub fn merge(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    since: Option<&Bound<'_, PyAny>>,
    until: Option<&Bound<'_, PyAny>>,
) -> PyResult<Merged> {
    let mut all: Vec<Parts> = Vec::new();
    for (i, s) in sources.try_iter()?.enumerate() {
        let s = s?;
        let parts = if let Ok(ix) = s.cast::<Index>() {
            let index = ix.get().state()?.index.clone();
            index_parts(py, i, index, since, until)?
        } else if let Ok(f) = s.cast::<Family>() {
            family_parts(py, i, f.get().core()?, since, until)?
        } else {
            return Err(PyTypeError::new_err(format!(
                "sources[{i}] must be a lidx.Index or a lidx.Family, not {}",
                s.get_type().name()?
            )));
        };
        all.push(parts);
    }
    let (tx, rx) = sync_channel(CHANNEL_BATCHES);
    std::thread::Builder::new()
        .name("lidx-merge".into())
        .spawn(move || run(&all, &tx))
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the merge thread: {e}")))?;
    Ok(Merged {
        rx: Mutex::new(Some(rx)),
        batch: Vec::new(),
        at: 0,
    })
}

/// The merge thread.
fn run(sources: &[Parts], tx: &SyncSender<Msg>) {
    let inputs: Vec<Input<'_>> = sources
        .iter()
        .map(|parts| Input {
            parts: parts
                .iter()
                .map(|(index, base, byte_base, lines)| Part {
                    index,
                    base: *base,
                    byte_base: *byte_base,
                    lines: lines.clone(),
                })
                .collect(),
        })
        .collect();
    let mut batch = Vec::new();
    let mut lines = 0;
    let mut gone = false;
    let result = merge_by_time(&inputs, &mut |l: &MergedLine<'_>| {
        batch.extend_from_slice(&(l.input as u64).to_le_bytes());
        batch.extend_from_slice(&l.line.to_le_bytes());
        batch.extend_from_slice(&u64::from(l.time.is_some()).to_le_bytes());
        batch.extend_from_slice(&l.time.unwrap_or(0).to_le_bytes());
        batch.extend_from_slice(&(l.bytes.len() as u64).to_le_bytes());
        batch.extend_from_slice(l.bytes);
        lines += 1;
        if lines >= BATCH_LINES || batch.len() >= BATCH_BYTES {
            lines = 0;
            if tx.send(Msg::Batch(std::mem::take(&mut batch))).is_err() {
                // The iterator is gone: stop.
                gone = true;
                return Ok(false);
            }
        }
        Ok(true)
    });
    if gone || (!batch.is_empty() && tx.send(Msg::Batch(batch)).is_err()) {
        return;
    }
    let last = match result {
        Ok(_) => Msg::Done,
        Err(e) => Msg::Err(e),
    };
    // The iterator may be gone: then nobody wants the end.
    let _ = tx.send(last);
}

/// The lines of several logs merged by time, as ``(source, line_no, time,
/// line)`` (from :func:`merge`). Not for use by several threads at once.
#[pyclass(module = "lidx", name = "Merged")]
pub struct Merged {
    /// `None` once the merge is complete, failed or closed.
    rx: Mutex<Option<Receiver<Msg>>>,
    /// The batch being yielded, and where in it.
    batch: Vec<u8>,
    at: usize,
}

/// One merged line as Python sees it.
type Record<'py> = (u64, u64, Option<i64>, Bound<'py, PyBytes>);

#[pymethods]
impl Merged {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Record<'py>>> {
        loop {
            if self.at < self.batch.len() {
                let b = &self.batch;
                let at = self.at;
                let source = u64_at(b, at);
                let line = u64_at(b, at + 8);
                let time = (u64_at(b, at + 16) != 0).then(|| u64_at(b, at + 24) as i64);
                let len = u64_at(b, at + 32) as usize;
                let bytes = PyBytes::new(py, &b[at + HEADER..at + HEADER + len]);
                self.at = at + HEADER + len;
                return Ok(Some((source, line + 1, time, bytes)));
            }
            if self.rx.get_mut().is_none() {
                return Ok(None);
            }
            match receive(py, self.rx.get_mut())? {
                Some(Msg::Batch(b)) => {
                    self.batch = b;
                    self.at = 0;
                }
                Some(Msg::Done) => {
                    self.rx.get_mut().take();
                    return Ok(None);
                }
                Some(Msg::Err(e)) => {
                    self.rx.get_mut().take();
                    return Err(to_py(py, e));
                }
                None => {
                    return Err(PyRuntimeError::new_err(
                        "lidx: the merge thread stopped without a result",
                    ));
                }
            }
        }
    }

    /// Stops the merge (the rest of the lines are dropped).
    fn close(&mut self) {
        self.rx.get_mut().take();
        self.batch = Vec::new();
        self.at = 0;
    }
}
