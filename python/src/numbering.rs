//! Line numbers as the Python API takes them, turned into the core's.
//!
//! The Python API numbers lines from 1, as the command line, `sed`,
//! `grep -n`, editors and Python's own line numbers (`linecache.getline`,
//! tracebacks, `ast` nodes) do; a negative number counts from the end: `-1`
//! is the last line (the command line's `$`), `-10` the tenth from the end
//! (`$-9`). A range `(first, last)` holds both ends, as `sed -n 'A,Bp'` and
//! `lidx lines A:B`; the lines it names outside the file are not returned,
//! at either end (`(-10, -1)` on a 5-line file is its 5 lines). The core
//! takes 0-based numbers and half-open ranges.

use crate::errors::{new_error, to_py};
use pyo3::prelude::*;
use std::ops::Range;

/// One end of a range as given.
#[derive(Clone, Copy)]
enum Ln {
    /// Line N, counted from 1.
    Start(u64),
    /// `-K`: the K-th line from the end (1 = the last).
    End(u64),
}

fn parse(py: Python<'_>, n: i64) -> PyResult<Ln> {
    match n {
        0 => Err(new_error(
            py,
            "InvalidArgumentError",
            "line numbers start at 1 (0 is not a line number; -1 is the last line)".into(),
        )),
        n if n > 0 => Ok(Ln::Start(n as u64)),
        n => Ok(Ln::End(n.unsigned_abs())),
    }
}

/// A count from the end, in an archive whose last line is unknown.
fn unknown_end(py: Python<'_>, index: &lidx::Index, what: String) -> PyErr {
    match index.damaged_error() {
        Some(lidx::Error::Damaged {
            what: damage,
            lines,
        }) => to_py(
            py,
            lidx::Error::Damaged {
                what: format!("{what} counts from the last line, which is unknown: {damage}"),
                lines,
            },
        ),
        _ => new_error(py, "Error", what),
    }
}

/// The 0-based number of line `n` (1-based, or negative from the end). A
/// line past the end is left to the core, whose error names it as given.
pub fn line(py: Python<'_>, index: &lidx::Index, n: i64) -> PyResult<u64> {
    match parse(py, n)? {
        Ln::Start(k) => Ok(k - 1),
        Ln::End(k) => {
            if index.damage().is_some() {
                return Err(unknown_end(py, index, format!("line {n}")));
            }
            let count = index.line_count();
            if k > count {
                return Err(new_error(
                    py,
                    "OutOfRangeError",
                    format!(
                        "line {n} is before the first line (the file has {})",
                        lidx::count_of(count, "line", "lines")
                    ),
                ));
            }
            Ok(count - k)
        }
    }
}

/// Lines `first` to `last` (both included; `last` None: to the end) as a
/// 0-based half-open range. Neither end is clamped to the line count
/// (the end is `u64::MAX` for "to the end"), so that a caller can
/// tell a range that reaches past the end.
pub fn range(
    py: Python<'_>,
    index: &lidx::Index,
    first: i64,
    last: Option<i64>,
) -> PyResult<Range<u64>> {
    let from_end = first < 0 || last.is_some_and(|l| l < 0);
    if from_end && index.damage().is_some() {
        // A range that is wrong in itself says so first.
        range_in(py, first, last, 0)?;
        return Err(unknown_end(
            py,
            index,
            format!("range {}", shown(first, last)),
        ));
    }
    range_in(py, first, last, index.line_count())
}

fn shown(first: i64, last: Option<i64>) -> String {
    match last {
        Some(l) => format!("({first}, {l})"),
        None => format!("({first}, None)"),
    }
}

/// As [`range`], for lines numbered up to `end` (1-based: the last line's
/// number), negative numbers counting back from it: a rotation family's
/// global numbers too. The start is not clamped to the first line.
pub fn range_in(py: Python<'_>, first: i64, last: Option<i64>, end: u64) -> PyResult<Range<u64>> {
    let a = parse(py, first)?;
    let b = last.map(|l| parse(py, l)).transpose()?;
    let inverted = match (a, b) {
        (Ln::Start(x), Some(Ln::Start(y))) => y < x,
        (Ln::End(x), Some(Ln::End(y))) => y > x,
        _ => false,
    };
    if inverted {
        return Err(new_error(
            py,
            "InvalidArgumentError",
            format!(
                "invalid range {}: the end is before the start",
                shown(first, last)
            ),
        ));
    }
    let count = end as i128;
    let at = |l: Ln| match l {
        Ln::Start(n) => n as i128,
        Ln::End(k) => count - k as i128 + 1,
    };
    let start = (at(a).max(1) - 1) as u64;
    let end = match b {
        None => u64::MAX,
        Some(l) => at(l).clamp(start as i128, u64::MAX as i128) as u64,
    };
    Ok(start..end)
}

/// The 0-based number of line `n` (1-based, or negative from `end`, the
/// last line's number), without a check that it is present.
pub fn line_in(py: Python<'_>, n: i64, end: u64) -> PyResult<Option<u64>> {
    Ok(match parse(py, n)? {
        Ln::Start(k) => Some(k - 1),
        Ln::End(k) => end.checked_sub(k),
    })
}
