//! A build's progress, reported to a Python callable, and Ctrl-C.
//!
//! The core calls its progress closure for every buffer it reads, with the
//! GIL released. At most every [`INTERVAL`] (and on the first call) the
//! closure attaches to the interpreter, checks for a pending signal (so
//! Ctrl-C cancels a long build: `KeyboardInterrupt` is raised once the
//! core has stopped and removed its temporary file) and calls the
//! callable with `(done, total)`. The callable returning `False` cancels
//! the build ([`lidx::Error::Cancelled`], raised as `lidx.CancelledError`);
//! an exception it raises cancels the build too, and is raised in place of
//! the cancellation, unchanged.

use crate::errors::to_py;
use pyo3::prelude::*;
use pyo3::types::PyBool;
use std::time::{Duration, Instant};

/// The least time between two calls of the callable.
pub const INTERVAL: Duration = Duration::from_millis(50);

/// The progress of one build, extension or content check.
pub struct Progress {
    callback: Option<Py<PyAny>>,
    last: Option<Instant>,
    /// An exception raised by the callable, or a signal's: raised once
    /// the core has stopped.
    error: Option<PyErr>,
}

impl Progress {
    /// Progress reported to `callback` (or only signals checked).
    pub fn new(callback: Option<Py<PyAny>>) -> Progress {
        Progress {
            callback,
            last: None,
            error: None,
        }
    }

    /// The core's progress closure: returns false to cancel.
    pub fn tick(&mut self, done: u64, total: u64) -> bool {
        if self.error.is_some() {
            return false;
        }
        let now = Instant::now();
        if self
            .last
            .is_some_and(|t| now.duration_since(t) < INTERVAL && done < total)
        {
            return true;
        }
        self.last = Some(now);
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                self.error = Some(e);
                return false;
            }
            let Some(cb) = &self.callback else {
                return true;
            };
            match cb.call1(py, (done, total)) {
                // Only `False` itself cancels: a callable that returns
                // nothing (None) lets the build go on.
                Ok(r) => !r.bind(py).is(PyBool::new(py, false)),
                Err(e) => {
                    self.error = Some(e);
                    false
                }
            }
        })
    }

    /// The core's result, with the callable's exception (or the signal's)
    /// in place of the cancellation it caused.
    pub fn finish<T>(self, py: Python<'_>, result: lidx::Result<T>) -> PyResult<T> {
        match (result, self.error) {
            (Err(lidx::Error::Cancelled { .. }), Some(e)) => Err(e),
            (Err(e), _) => Err(to_py(py, e)),
            (Ok(v), _) => Ok(v),
        }
    }
}
