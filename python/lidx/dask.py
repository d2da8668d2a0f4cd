"""lidx for Dask: any indexed file — plain text, gzip, zstd, local or in a
bucket — as a Dask DataFrame of many partitions, with exact line numbers.

``dask.bag.read_text`` and ``dask.dataframe.read_csv`` refuse
``blocksize`` for a compressed file and read it in one partition; with
its sidecar, lidx splits it at its access points. Needs Dask's DataFrame
(``pip install 'lidx[dask]'``)::

    import lidx.dask

    lidx.dask.build_indexes("logs/*.gz", time=True)          # once
    df = lidx.dask.read_lines("logs/app.log.gz")             # index: line
    df.loc[1_000_000:1_000_099].compute()                    # two partitions read at most
    df = lidx.dask.read_lines("logs/", since="2026-11-30T10:00", until="2026-11-30T11:00")

Columns as ``lidx.spark``'s: ``path``, ``line`` (1-based), ``text``
(``str``, or ``bytes`` with ``binary=True``) and ``time`` (UTC, ``NaT``
without a time index).
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

from . import _engines

__all__ = ["read_lines", "build_indexes"]


def _read_partition(task, binary: bool, times: bool, index_by_line: bool):
    import pandas as pd
    import pyarrow as pa

    t = _engines.Task(*task)
    batches = list(_engines.read_task(t, binary=binary, times=times))
    table = pa.Table.from_batches(batches, schema=_engines.arrow_schema(binary))
    df = _to_pandas(table, binary)
    if index_by_line:
        df = df.set_index("line", drop=False)
        df.index.name = None
    return df


def _to_pandas(table, binary: bool):
    import pandas as pd

    import pyarrow as pa

    # Bytes as an Arrow binary column: an object column of bytes would be
    # turned into strings by Dask's string conversion.
    mapper = {pa.binary(): pd.ArrowDtype(pa.binary())}.get if binary else None
    df = table.to_pandas(types_mapper=mapper)
    if df["time"].dtype != "datetime64[us, UTC]":
        df["time"] = df["time"].astype("datetime64[us, UTC]")
    return df


def _meta(binary: bool, index_by_line: bool):
    import pyarrow as pa

    empty = pa.Table.from_batches([], schema=_engines.arrow_schema(binary))
    df = _to_pandas(empty, binary)
    if index_by_line:
        df = df.set_index("line", drop=False)
        df.index.name = None
    return df


def read_lines(
    urlpath: Union[str, Sequence[str]],
    *,
    partition_bytes: int = _engines.DEFAULT_PARTITION_BYTES,
    lines: Optional[Tuple[Optional[int], Optional[int]]] = None,
    since=None,
    until=None,
    binary: bool = False,
    sidecar_dir: Optional[str] = None,
    build: bool = False,
    recursive: bool = False,
):
    """The lines of ``urlpath`` (a file, a URL, a directory, a glob, or a
    list of them, as :func:`lidx.spark` names files) as a Dask DataFrame
    with the columns ``path``, ``line``, ``text`` and ``time``, one
    partition per lidx partition (about ``partition_bytes`` of text).

    For a single file the index is the line number, with known
    ``divisions``, so ``df.loc[a:b]`` reads only the partitions that hold
    those lines. ``lines=(first, last)`` reads those lines of each file;
    ``since``/``until`` the lines of a time window, exactly as ``lidx
    lines --since/--until`` selects them (through the time index: only
    the partitions that hold them are read). Each file needs a fresh
    sidecar (see :func:`build_indexes`; ``build=True`` builds missing ones
    here while planning); a file without one is an error naming it."""
    import dask.dataframe as dd

    files = _engines.expand(urlpath, recursive=recursive)
    bounds = _engines.Bounds()
    if lines is not None:
        bounds.lines(lines[0], lines[1])
    tasks = _engines.plan(
        files,
        partition_bytes=partition_bytes,
        bounds=bounds,
        since=since,
        until=until,
        sidecar_dir=sidecar_dir,
        build=build,
    )
    single = len(files) == 1
    meta = _meta(binary, single)
    if not tasks:
        return dd.from_pandas(meta, npartitions=1)
    divisions = None
    if single:
        divisions = tuple(t.first for t in tasks) + (tasks[-1].last,)
    return dd.from_map(
        _read_partition,
        [tuple(t) for t in tasks],
        binary=binary,
        times=True,
        index_by_line=single,
        meta=meta,
        divisions=divisions,
        label="lidx-read-lines",
        enforce_metadata=False,
    )


def build_indexes(
    urlpath: Union[str, Sequence[str]],
    *,
    sidecar_dir: Optional[str] = None,
    upload: bool = False,
    time: bool = False,
    time_format: Optional[str] = None,
    tz: Optional[str] = None,
    force: bool = False,
    recursive: bool = False,
) -> List[tuple]:
    """Builds the sidecars of ``urlpath``'s files, one Dask task per file
    (on the cluster of the current client, if any), as
    :func:`lidx.spark.build_indexes` does. Returns ``(path, sidecar,
    action)`` per file."""
    import dask

    files = _engines.expand(urlpath, recursive=recursive)
    args = dict(sidecar_dir=sidecar_dir, upload=upload, time=time, time_format=time_format, tz=tz, force=force)
    jobs = [dask.delayed(_engines.build, pure=False)(f, **args) for f in files]
    return list(dask.compute(*jobs))
