//! Object stores for the engine integrations (`lidx.spark`, `lidx.dask`):
//! listing a bucket's "directory", and the one upload lidx makes, a
//! sidecar put next to its object when the user asks for it.

use crate::errors::IntoPy;
use pyo3::prelude::*;

/// _list_objects(prefix_url)
/// --
///
/// The objects under ``prefix_url`` (``s3://bucket/logs/``), as ``(url,
/// size)`` in key order, listed recursively.
#[pyfunction]
pub fn _list_objects(py: Python<'_>, prefix_url: &str) -> PyResult<Vec<(String, u64)>> {
    #[cfg(feature = "remote")]
    {
        let opts = lidx::io::remote::RemoteOptions::default();
        py.detach(|| lidx::io::remote::list(prefix_url, &opts))
            .py(py)
    }
    #[cfg(not(feature = "remote"))]
    {
        Err(crate::errors::new_error(
            py,
            "InvalidArgumentError",
            format!("{prefix_url}: this build of lidx reads local files only"),
        ))
    }
}

/// _put_object(url, data)
/// --
///
/// Writes ``data`` as the object at ``url`` in one ``PUT``.
#[pyfunction]
pub fn _put_object(py: Python<'_>, url: &str, data: Vec<u8>) -> PyResult<()> {
    #[cfg(feature = "remote")]
    {
        let opts = lidx::io::remote::RemoteOptions::default();
        py.detach(|| lidx::io::remote::put(url, data, &opts)).py(py)
    }
    #[cfg(not(feature = "remote"))]
    {
        let _ = data;
        Err(crate::errors::new_error(
            py,
            "InvalidArgumentError",
            format!("{url}: this build of lidx reads local files only"),
        ))
    }
}
