//! The Python package `lidx`: the extension module `lidx._lidx`.
//!
//! A face of the `lidx` library like the command line, using only its
//! public API. The classes here are what Python sees as `lidx.Index`
//! (`index`), `lidx.Matches` (`grep`), `lidx.Follower` (`follow`),
//! `lidx.Family` and `lidx.Member` (`family`), `lidx.merge` with its
//! iterator `lidx.Merged` (`merge`), and `lidx.Collection` (`collection`);
//! the file object `lidx.LineFile` and the exception classes are Python
//! (`lidx/_file.py`, `lidx/_errors.py`), and `lidx/__init__.pyi` types it
//! all.
//!
//! Conventions of the Python API, stated once in `numbering`: lines are
//! numbered from 1 (as by the command line), negative numbers count from
//! the end, ranges hold both ends; byte offsets are 0-based. Every read,
//! build and search runs with the GIL released ([`Python::detach`]); a
//! build's progress and Ctrl-C reach Python through `progress`. Errors
//! are raised with the command line's messages (`errors`). Nothing is
//! printed, and nothing is kept in statics.

#![deny(missing_docs)]

mod args;
mod collection;
mod errors;
mod family;
mod follow;
mod grep;
mod index;
mod merge;
mod numbering;
mod objects;
mod partition;
mod progress;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _lidx(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<index::Index>()?;
    m.add_class::<grep::Matches>()?;
    m.add_class::<follow::Follower>()?;
    m.add_class::<family::Family>()?;
    m.add_class::<family::Member>()?;
    m.add_class::<merge::Merged>()?;
    m.add_class::<collection::Collection>()?;
    m.add_class::<partition::Partition>()?;
    m.add_class::<partition::Batches>()?;
    m.add_function(wrap_pyfunction!(merge::merge, m)?)?;
    m.add_function(wrap_pyfunction!(objects::_list_objects, m)?)?;
    m.add_function(wrap_pyfunction!(objects::_put_object, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
