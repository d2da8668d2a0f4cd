//! Arguments as Python passes them, checked with errors that name them
//! (`#[pyo3(from_py_with = …)]`): an int out of range is an
//! `InvalidArgumentError` (a `ValueError`) saying which argument and why,
//! not a bare `OverflowError`; a path is a `str`, `bytes` or
//! `os.PathLike`, as `open()` takes.

use crate::errors::new_error;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};
use std::path::PathBuf;

/// `v` as a non-negative integer named `what`.
fn count(v: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    let py = v.py();
    if let Ok(n) = v.extract::<u64>() {
        return Ok(n);
    }
    if !v.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not {}",
            type_name(v)
        )));
    }
    let why = if v.lt(0)? {
        format!("{what} must be 0 or more, not {v}")
    } else {
        format!("{what} is too large: {v}")
    };
    Err(new_error(py, "InvalidArgumentError", why))
}

/// `v` or `None`.
fn optional(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<u64>> {
    if v.is_none() {
        return Ok(None);
    }
    count(v, what).map(Some)
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map_or_else(|_| "?".into(), |n| n.to_string())
}

/// A line number (1-based, or negative from the end).
pub fn line_no(v: &Bound<'_, PyAny>) -> PyResult<i64> {
    if let Ok(n) = v.extract::<i64>() {
        return Ok(n);
    }
    if !v.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "a line number must be an int, not {}",
            type_name(v)
        )));
    }
    Err(new_error(
        v.py(),
        "InvalidArgumentError",
        format!("line number {v} is out of range"),
    ))
}

/// A byte offset.
pub fn offset(v: &Bound<'_, PyAny>) -> PyResult<u64> {
    count(v, "offset")
}

/// A byte count.
pub fn size(v: &Bound<'_, PyAny>) -> PyResult<u64> {
    count(v, "size")
}

/// The page-cache budget in MiB.
pub fn cache_mb(v: &Bound<'_, PyAny>) -> PyResult<usize> {
    count(v, "cache_mb").map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Bytes between checkpoints: `None` or 0 for the default (as the C ABI's
/// 0).
pub fn spacing(v: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    Ok(optional(v, "spacing")?.filter(|&n| n != 0))
}

/// Bytes of text between a gzip archive's access points: `None` or 0 for
/// the default.
pub fn span(v: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    Ok(optional(v, "span")?.filter(|&n| n != 0))
}

/// `grep`'s `max_count`.
pub fn max_count(v: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    optional(v, "max_count")
}

/// `grep`'s `threads`: `None` or 0 for one per core.
pub fn threads(v: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    Ok(optional(v, "threads")?
        .filter(|&n| n != 0)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
}

/// A path: `str`, `bytes` or `os.PathLike` (whose `__fspath__` gives one
/// of those).
pub fn path(v: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let py = v.py();
    // os.fsencode: str (undecodable bytes kept, as the file system's
    // encoding gives them), bytes, os.PathLike.
    let fsencode = py.import("os")?.getattr("fsencode")?;
    let p = fsencode.call1((v,)).map_err(|_| {
        PyTypeError::new_err(format!(
            "a path must be str, bytes or os.PathLike, not {}",
            type_name(v)
        ))
    })?;
    let b = p.cast::<PyBytes>()?;
    Ok(PathBuf::from(std::ffi::OsString::from_vec(
        b.as_bytes().to_vec(),
    )))
}

/// A path or `None`.
pub fn optional_path(v: &Bound<'_, PyAny>) -> PyResult<Option<PathBuf>> {
    if v.is_none() {
        return Ok(None);
    }
    path(v).map(Some)
}

/// An instant, in nanoseconds since 1970-01-01T00:00:00Z: an `int` is
/// one already; a `str` is a time as the command line's `--since` takes
/// it (`2026-11-30T10:32`, `10:32`, `yesterday 10:32`, `-15m`,
/// `@SECONDS`, `now`); a `datetime.datetime` is its ISO form. A time
/// without a zone (a naive datetime too) is read in the zone `zone()`
/// gives (the time index's), asked only then.
pub fn instant(
    v: &Bound<'_, PyAny>,
    what: &str,
    zone: &mut dyn FnMut() -> lidx::Result<String>,
) -> PyResult<i64> {
    let py = v.py();
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int (nanoseconds since the epoch), a str or a datetime, not bool"
        )));
    }
    if v.is_instance_of::<PyInt>() {
        return v.extract::<i64>().map_err(|_| {
            new_error(
                py,
                "InvalidArgumentError",
                format!("{what} is out of range: {v} (nanoseconds since the epoch)"),
            )
        });
    }
    let text = if let Ok(s) = v.cast::<pyo3::types::PyString>() {
        s.to_cow()?.into_owned()
    } else if v.is_instance(&py.import("datetime")?.getattr("datetime")?)? {
        v.call_method0("isoformat")?.extract::<String>()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int (nanoseconds since the epoch), a str or a datetime, not {}",
            type_name(v)
        )));
    };
    let tz = zone().map_err(|e| crate::errors::to_py(py, e))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64);
    lidx::time::parse_expr(&text, &tz, now).map_err(|e| crate::errors::to_py(py, e))
}

/// An optional instant (`None`: no bound).
pub fn optional_instant(
    v: Option<&Bound<'_, PyAny>>,
    what: &str,
    zone: &mut dyn FnMut() -> lidx::Result<String>,
) -> PyResult<Option<i64>> {
    match v {
        Some(v) if !v.is_none() => instant(v, what, zone).map(Some),
        _ => Ok(None),
    }
}

/// The zone in which `index`'s time index reads stamps without one (as
/// the command line reads `--since`), or the system's without a time
/// index.
pub fn zone_of(index: &lidx::Index) -> lidx::Result<String> {
    Ok(index
        .time_info()?
        .map(|i| i.tz)
        .unwrap_or_else(|| "local".into()))
}
