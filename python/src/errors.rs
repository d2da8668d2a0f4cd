//! `lidx::Error` as Python exceptions.
//!
//! The classes live in `lidx/_errors.py` (Python: several of them also
//! derive from a built-in exception, `FileNotFoundError`, `IndexError`,
//! `ValueError`, which a class made in Rust cannot). Each exception's
//! message is the error's `Display`, exactly what the command line prints
//! after `lidx: `; the class says what kind of failure it is. The module is
//! looked up when an error is raised (no class is cached in a static: the
//! extension keeps no global state).

use lidx::Error;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::path::Path;

/// Which exception class an error is raised as (a name in `lidx._errors`).
fn class_of(e: &Error) -> &'static str {
    match e {
        Error::Cancelled { .. } => "CancelledError",
        Error::Io { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => "NotFoundError",
            std::io::ErrorKind::PermissionDenied => "PermissionDeniedError",
            _ => "FileError",
        },
        Error::NotAnIndex { .. }
        | Error::UnsupportedVersion { .. }
        | Error::UnsupportedFeature { .. }
        | Error::ChecksumMismatch { .. }
        | Error::Corrupt { .. }
        | Error::Foreign { .. } => "SidecarError",
        Error::Stale { .. } | Error::SourceChanged { .. } => "StaleError",
        Error::Missing { .. } => "NoSidecarError",
        Error::CorruptSource { .. }
        | Error::Damaged { .. }
        | Error::NoSidecarForDamage { .. }
        | Error::UnsupportedSource { .. } => "SourceError",
        Error::Remote { .. } => "RemoteError",
        Error::OutOfRange { .. } => "OutOfRangeError",
        Error::InvalidArgument(_) => "InvalidArgumentError",
        Error::Family { .. } => "FamilyError",
        _ => "Error",
    }
}

/// An exception of class `class` (a name in `lidx._errors`) with message
/// `message`.
pub fn new_error(py: Python<'_>, class: &str, message: String) -> PyErr {
    match make(py, class, message.clone(), None) {
        Ok(err) => err,
        // Only a broken installation (no lidx/_errors.py) lands here.
        Err(e) => PyRuntimeError::new_err(format!("{message} (and lidx._errors: {e})")),
    }
}

/// Sets an exception's attributes beyond its message.
type SetAttrs<'a> = &'a dyn Fn(&Bound<'_, PyAny>) -> PyResult<()>;

fn make(
    py: Python<'_>,
    class: &str,
    message: String,
    attrs: Option<SetAttrs<'_>>,
) -> PyResult<PyErr> {
    let module = py.import("lidx._errors")?;
    let value = module.getattr(class)?.call1((message,))?;
    if let Some(set) = attrs {
        set(&value)?;
    }
    Ok(PyErr::from_value(value))
}

/// `e` as a Python exception whose message is the command line's.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    to_py_about(py, e, None)
}

/// As [`to_py`]; a request past the end is prefixed with `file`, as the
/// command line prints it (`lidx: FILE: offset 9 is past the end (...)`).
pub fn to_py_about(py: Python<'_>, e: Error, file: Option<&Path>) -> PyErr {
    let class = class_of(&e);
    let message = match (&e, file) {
        (Error::OutOfRange { .. }, Some(f)) => format!("{}: {e}", f.display()),
        _ => e.to_string(),
    };
    let set = |v: &Bound<'_, PyAny>| -> PyResult<()> {
        match &e {
            Error::Io { path, source, .. } => {
                // The attributes of an OSError; its str() stays the message
                // (lidx._errors.Error.__str__).
                v.setattr("errno", source.raw_os_error())?;
                let text = source.to_string();
                let human = text.find(" (os error").map_or(&text[..], |i| &text[..i]);
                v.setattr("strerror", human)?;
                v.setattr("filename", path.to_string_lossy().into_owned())?;
            }
            Error::Damaged { lines, .. } | Error::NoSidecarForDamage { lines, .. } => {
                v.setattr("lines", *lines)?;
            }
            Error::OutOfRange { lines, size, .. } => {
                v.setattr("lines", *lines)?;
                v.setattr("size", *size)?;
            }
            _ => {}
        }
        Ok(())
    };
    match make(py, class, message.clone(), Some(&set)) {
        Ok(err) => err,
        Err(err) => PyRuntimeError::new_err(format!("{message} (and lidx._errors: {err})")),
    }
}

/// Extension for `lidx::Result`: `.py(py)?` raises the error as Python's.
pub trait IntoPy<T> {
    /// The result with its error as a Python exception.
    fn py(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for lidx::Result<T> {
    fn py(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
