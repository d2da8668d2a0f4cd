//! `Index.partitions` (the core's planner, `lidx::Index::partitions`) and
//! the column reader that `lidx.spark` and `lidx.dask` read a partition
//! with: batches of whole lines as Arrow-ready buffers (the lines' bytes
//! back to back without their `\n`, int32 offsets, and the lines' times
//! in microseconds with a validity bitmap), so that building an Arrow
//! array copies nothing in Python.

use crate::errors::{IntoPy, new_error};
use crate::index::Shared;
use lidx::{LineBatches, LineBuf};
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::ops::Range;

/// Text bytes per partition when none is asked: Spark's default
/// `spark.sql.files.maxPartitionBytes`.
pub const DEFAULT_TARGET: u64 = 128 << 20;

/// Partition(first, last, text_start, text_end, source_start, source_end, time_min, time_max)
/// --
///
/// One partition of a plan (:meth:`Index.partitions`): lines ``first`` to
/// ``last`` (1-based, both included), whose text is bytes ``text_start``
/// to ``text_end`` (uncompressed for an archive) and which a reader
/// decodes from bytes ``source_start`` to ``source_end`` of the file.
/// ``time_min`` and ``time_max`` (nanoseconds since the epoch, or None
/// without a time index or stamps) bound the times of its lines: exact
/// for a log written in time order, wider for one whose times go back.
#[pyclass(frozen, eq, module = "lidx", name = "Partition", get_all)]
#[derive(Clone, PartialEq, Eq)]
pub struct Partition {
    first: u64,
    last: u64,
    text_start: u64,
    text_end: u64,
    source_start: u64,
    source_end: u64,
    time_min: Option<i64>,
    time_max: Option<i64>,
}

#[pymethods]
impl Partition {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        first: u64,
        last: u64,
        text_start: u64,
        text_end: u64,
        source_start: u64,
        source_end: u64,
        time_min: Option<i64>,
        time_max: Option<i64>,
    ) -> Partition {
        Partition {
            first,
            last,
            text_start,
            text_end,
            source_start,
            source_end,
            time_min,
            time_max,
        }
    }

    /// Its lines as ``(first, last)``, as :meth:`Index.lines` takes them.
    #[getter]
    fn lines(&self) -> (u64, u64) {
        (self.first, self.last)
    }

    fn __getnewargs__(&self) -> (u64, u64, u64, u64, u64, u64, Option<i64>, Option<i64>) {
        (
            self.first,
            self.last,
            self.text_start,
            self.text_end,
            self.source_start,
            self.source_end,
            self.time_min,
            self.time_max,
        )
    }

    fn __repr__(&self) -> String {
        let time = match (self.time_min, self.time_max) {
            (Some(a), Some(b)) => format!(", time_min={a}, time_max={b}"),
            _ => String::new(),
        };
        format!(
            "Partition(lines {}..={}, text {}..{}, source {}..{}{time})",
            self.first,
            self.last,
            self.text_start,
            self.text_end,
            self.source_start,
            self.source_end
        )
    }
}

/// The plan of `lines` (1-based, both ends; None: all) of `index`.
pub fn plan(
    py: Python<'_>,
    index: &Shared,
    target_bytes: u64,
    lines: Option<(i64, Option<i64>)>,
) -> PyResult<Vec<Partition>> {
    if target_bytes == 0 {
        return Err(new_error(
            py,
            "InvalidArgumentError",
            "target_bytes must be at least 1".into(),
        ));
    }
    let range = match lines {
        None => 0..u64::MAX,
        Some((a, b)) => crate::numbering::range(py, index, a, b)?,
    };
    let parts = py.detach(|| index.partitions(range, target_bytes)).py(py)?;
    Ok(parts
        .into_iter()
        .map(|p| Partition {
            first: p.lines.start + 1,
            last: p.lines.end,
            text_start: p.text.start,
            text_end: p.text.end,
            source_start: p.source.start,
            source_end: p.source.end,
            time_min: p.time.map(|t| t.0),
            time_max: p.time.map(|t| t.1),
        })
        .collect())
}

/// The batches of one line range: what `Index._batches` returns.
///
/// Each item is ``(first, count, data, offsets, times, valid)``: the
/// first line's number (1-based) and the number of lines; their bytes
/// back to back without the ``\n`` (with ``text``, invalid UTF-8
/// replaced by U+FFFD); ``count + 1`` int32 offsets into ``data``; with
/// ``times``, ``count`` int64 microseconds since the epoch and a validity
/// bitmap (LSB first; None when every line has a time), else None twice.
#[pyclass(module = "lidx", name = "_Batches")]
pub struct Batches {
    index: Shared,
    reader: Mutex<Option<LineBatches>>,
    max_bytes: usize,
    times: bool,
    text: bool,
}

/// One batch's columns, built with the GIL released.
struct Columns {
    first: u64,
    count: usize,
    data: Vec<u8>,
    offsets: Vec<u8>,
    times: Option<(Vec<u8>, Option<Vec<u8>>)>,
}

impl Batches {
    pub fn new(
        py: Python<'_>,
        index: Shared,
        lines: Range<u64>,
        max_bytes: usize,
        times: bool,
        text: bool,
    ) -> PyResult<Batches> {
        if times {
            crate::index::require_time(py, &index)?;
        }
        let reader = py.detach(|| index.line_batches(lines)).py(py)?;
        Ok(Batches {
            index,
            reader: Mutex::new(Some(reader)),
            max_bytes: max_bytes.max(1),
            times,
            text,
        })
    }

    fn next_columns(&self) -> lidx::Result<Option<Columns>> {
        let mut guard = self.reader.lock();
        let Some(reader) = guard.as_mut() else {
            return Ok(None);
        };
        let mut buf = LineBuf::new();
        if !reader.next(&self.index, self.max_bytes, &mut buf)? {
            *guard = None;
            return Ok(None);
        }
        drop(guard);
        let count = buf.len();
        let mut data = Vec::with_capacity(buf.bytes().len());
        let mut offsets = Vec::with_capacity((count + 1) * 4);
        let push = |offsets: &mut Vec<u8>, at: usize| -> lidx::Result<()> {
            let at = i32::try_from(at).map_err(|_| {
                lidx::Error::InvalidArgument(format!(
                    "{}: a batch of lines from line {} holds more than 2 GiB",
                    self.index.source_path().display(),
                    buf.first_line() + 1
                ))
            })?;
            offsets.extend_from_slice(&at.to_le_bytes());
            Ok(())
        };
        push(&mut offsets, 0)?;
        let valid = !self.text || std::str::from_utf8(buf.bytes()).is_ok();
        for line in buf.iter() {
            if valid {
                data.extend_from_slice(line);
            } else {
                data.extend_from_slice(String::from_utf8_lossy(line).as_bytes());
            }
            push(&mut offsets, data.len())?;
        }
        let times = if self.times {
            let first = buf.first_line();
            let mut t = Vec::with_capacity(count);
            self.index.line_times(first..first + count as u64, &mut t)?;
            let mut micros = Vec::with_capacity(count * 8);
            let mut bitmap = vec![0u8; count.div_ceil(8)];
            let mut all = true;
            for (i, t) in t.iter().enumerate() {
                match t {
                    Some(ns) => {
                        micros.extend_from_slice(&ns.div_euclid(1000).to_le_bytes());
                        bitmap[i / 8] |= 1 << (i % 8);
                    }
                    None => {
                        micros.extend_from_slice(&0i64.to_le_bytes());
                        all = false;
                    }
                }
            }
            Some((micros, (!all).then_some(bitmap)))
        } else {
            None
        };
        Ok(Some(Columns {
            first: buf.first_line() + 1,
            count,
            data,
            offsets,
            times,
        }))
    }
}

#[pymethods]
impl Batches {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(c) = py.detach(|| self.next_columns()).py(py)? else {
            return Ok(None);
        };
        let (times, valid) = match &c.times {
            Some((t, v)) => (
                Some(PyBytes::new(py, t)),
                v.as_ref().map(|v| PyBytes::new(py, v)),
            ),
            None => (None, None),
        };
        let item = (
            c.first,
            c.count,
            PyBytes::new(py, &c.data),
            PyBytes::new(py, &c.offsets),
            times,
            valid,
        );
        Ok(Some(item.into_pyobject(py)?))
    }
}
