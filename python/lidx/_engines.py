"""What ``lidx.spark`` and ``lidx.dask`` share: naming the files (paths,
globs, directories, URLs), finding their sidecars, planning the tasks
(``Index.partitions``, restricted by line and time bounds), and reading a
task as Arrow record batches with the columns ``path``, ``line``, ``text``
and ``time``.

Nothing here depends on an engine: a task is a small picklable tuple, and
reading one opens the file's index on the worker (never building a
sidecar there: a missing or stale sidecar is an error naming the file).
"""

from __future__ import annotations

import array
import datetime as _dt
import fnmatch
import glob as _glob
import hashlib
import os
import re
from typing import Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import _lidx
from ._errors import InvalidArgumentError

#: Text bytes per partition by default: Spark's ``maxPartitionBytes``.
DEFAULT_PARTITION_BYTES = 128 << 20

#: Bytes of text per Arrow record batch a task yields.
BATCH_BYTES = 8 << 20

_REMOTE = ("http://", "https://", "s3://", "gs://", "az://", "abfs://", "abfss://")
_LISTABLE = ("s3://", "gs://", "az://", "abfs://", "abfss://")
_GLOB = re.compile(r"[*?\[{]")


def is_url(path: str) -> bool:
    return path.startswith(_REMOTE)


class Task(NamedTuple):
    """One partition to read: lines ``first`` to ``last`` (1-based, both
    included) of ``path``, through ``sidecar`` (None: the default place)."""

    path: str
    sidecar: Optional[str]
    first: int
    last: int
    time_min: Optional[int]
    time_max: Optional[int]
    source_bytes: int


def _braces(pattern: str) -> List[str]:
    """Expands ``{a,b}`` alternatives as Hadoop's globs do."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    out = []
    for alt in m.group(1).split(","):
        out.extend(_braces(pattern[: m.start()] + alt + pattern[m.end() :]))
    return out


def _hidden(name: str) -> bool:
    # As Hadoop's file listing: names starting with "_" or "." are not
    # data; a sidecar is never a source.
    return name.startswith(("_", ".")) or name.endswith(".lidx")


def _walk_local(root: str, recursive: bool) -> List[str]:
    out = []
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if _hidden(entry.name):
            continue
        if entry.is_dir():
            if recursive:
                out.extend(_walk_local(entry.path, recursive))
        elif entry.is_file():
            out.append(entry.path)
    return out


def expand(
    paths: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
    *,
    recursive: bool = False,
    glob_filter: Optional[str] = None,
) -> List[str]:
    """The files that ``paths`` name, in order, each once: a file or an
    object's URL as it is; a directory (or a bucket prefix ending in
    ``/``) by its files, without names starting with ``.`` or ``_`` and
    without sidecars, recursively with ``recursive``; a glob (``*``,
    ``?``, ``[...]``, ``{a,b}``) by what it matches. ``file://`` URLs are
    local paths. ``glob_filter`` keeps the files whose name matches it
    (Spark's ``pathGlobFilter``). A name that matches nothing is an
    error, as in Spark (``PATH_NOT_FOUND``). Local files are returned as
    absolute paths."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: List[str] = []
    for p in paths:
        p = os.fspath(p)
        if not isinstance(p, str):
            p = os.fsdecode(p)
        if p.startswith("file://"):
            p = p[len("file://") :]
        found: List[str]
        if p.startswith(_LISTABLE):
            found = _expand_bucket(p, recursive)
        elif is_url(p):
            if _GLOB.search(p.split("?", 1)[0].split("://", 1)[1]):
                raise InvalidArgumentError(
                    f"{p}: an HTTP(S) server cannot be listed: name each object's URL"
                )
            found = [p]
        elif _GLOB.search(p):
            found = []
            for pat in _braces(p):
                for m in sorted(_glob.glob(pat)):
                    if os.path.isdir(m):
                        found.extend(_walk_local(m, recursive))
                    elif not m.endswith(".lidx"):
                        found.append(m)
        elif os.path.isdir(p):
            found = _walk_local(p, recursive)
        elif os.path.exists(p):
            found = [p]
        else:
            raise _lidx_not_found(p)
        if not found and not os.path.isdir(p):
            raise _lidx_not_found(p)
        out.extend(found)
    if glob_filter:
        out = [f for f in out if fnmatch.fnmatchcase(_basename(f), glob_filter)]
    # Executors and workers run in other directories: a local name is
    # made absolute here, on the driver, as Spark qualifies its paths.
    out = [f if is_url(f) else os.path.abspath(f) for f in out]
    seen = set()
    return [f for f in out if not (f in seen or seen.add(f))]


def _basename(path: str) -> str:
    return path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


def _lidx_not_found(path: str) -> Exception:
    from ._errors import NotFoundError

    return NotFoundError(f"{path}: no such file or directory")


def _expand_bucket(url: str, recursive: bool) -> List[str]:
    """Objects of a bucket: a prefix ending in ``/`` lists its objects, a
    glob lists from its fixed part and matches, anything else is one
    object."""
    scheme, rest = url.split("://", 1)
    if _GLOB.search(rest):
        fixed = _GLOB.split(rest, 1)[0]
        prefix = fixed[: fixed.rfind("/") + 1]
        pats = [f"{scheme}://{p}" for p in _braces(rest)]
        listed = [u for u, _ in _lidx._list_objects(f"{scheme}://{prefix}")]
        found = []
        for u in listed:
            if any(_glob_match(u, pat) for pat in pats) and not _hidden(_basename(u)):
                found.append(u)
        return found
    if url.endswith("/"):
        listed = [u for u, _ in _lidx._list_objects(url)]
        found = []
        for u in listed:
            rel = u[len(url) :]
            if not recursive and "/" in rel:
                continue
            if any(_hidden(seg) for seg in rel.split("/")):
                continue
            found.append(u)
        return found
    return [url]


def _glob_match(url: str, pattern: str) -> bool:
    # "*" does not cross "/", as in Hadoop's globs: match segment by
    # segment.
    a, b = url.split("/"), pattern.split("/")
    return len(a) == len(b) and all(fnmatch.fnmatchcase(x, y) for x, y in zip(a, b))


def sidecar_in(directory: Optional[str], path: str) -> Optional[str]:
    """The sidecar of ``path`` in a shared ``directory`` (None: the default
    place). Named by a digest of the file's absolute path or URL and its
    name, so that files of the same name in different places stay apart,
    and every worker finds it under the same name."""
    if not directory:
        return None
    key = path if is_url(path) else os.path.abspath(path)
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = _basename(path)[:100]
    if is_url(directory):
        return f"{directory.rstrip('/')}/{digest}-{name}.lidx"
    return os.path.join(directory, f"{digest}-{name}.lidx")


def open_index(path: str, sidecar: Optional[str], *, build: bool, cache_mb: int = 16):
    """The index of ``path`` through ``sidecar``: read only (a missing or
    stale sidecar is an error naming the file and how to build it) unless
    ``build``."""
    from ._errors import NoSidecarError, StaleError

    try:
        return _lidx.Index(path, sidecar=sidecar, build=build, cache_mb=cache_mb)
    except (NoSidecarError, StaleError) as e:
        raise type(e)(
            f"{e} (build the sidecars first: lidx.spark.build_indexes(spark, paths), "
            "lidx.dask.build_indexes(paths), `lidx index FILE`, or the option build=true)"
        ) from None


def nanos(t) -> Optional[int]:
    """An instant as nanoseconds since the epoch: an int already is; a
    datetime (naive: the local time, as Spark hands timestamps to
    Python) or a pandas Timestamp is converted."""
    if t is None:
        return None
    if isinstance(t, bool):
        raise TypeError("a time must be a datetime or nanoseconds, not bool")
    if isinstance(t, int):
        return t
    if hasattr(t, "value") and hasattr(t, "tz_localize"):  # pandas.Timestamp
        if t.tzinfo is None:
            t = t.to_pydatetime()
        else:
            return int(t.value)
    if isinstance(t, _dt.datetime):
        if t.tzinfo is None:
            t = t.astimezone()
        delta = t - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    raise TypeError(f"a time must be a datetime or nanoseconds, not {type(t).__name__}")


class Bounds:
    """Line and time bounds, both ends included (None: open), that every
    row read must satisfy or may satisfy: a task keeps the lines inside the
    line bounds, and the lines that the time index says may lie inside the
    time bounds (the engine filters the rows again)."""

    def __init__(self):
        self.line_lo: Optional[int] = None
        self.line_hi: Optional[int] = None
        self.time_lo: Optional[int] = None
        self.time_hi: Optional[int] = None
        #: Some bound that no row meets (``line < 1``, ``time IS NULL``
        #: with a time bound...): nothing to read.
        self.empty = False

    def lines(self, lo=None, hi=None):
        if lo is not None:
            self.line_lo = lo if self.line_lo is None else max(self.line_lo, lo)
        if hi is not None:
            self.line_hi = hi if self.line_hi is None else min(self.line_hi, hi)

    def times(self, lo=None, hi=None):
        if lo is not None:
            self.time_lo = lo if self.time_lo is None else max(self.time_lo, lo)
        if hi is not None:
            self.time_hi = hi if self.time_hi is None else min(self.time_hi, hi)

    @property
    def timed(self) -> bool:
        return self.time_lo is not None or self.time_hi is not None


def plan(
    files: Sequence[str],
    *,
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    bounds: Optional[Bounds] = None,
    since=None,
    until=None,
    sidecar_dir: Optional[str] = None,
    build: bool = False,
) -> List[Task]:
    """The tasks that read ``files``: each file's plan
    (``Index.partitions``), restricted to the line bounds, to the lines
    between ``since`` and ``until`` as ``lidx lines --since/--until``
    selects them, and to the lines the time bounds may hold."""
    b = bounds or Bounds()
    tasks: List[Task] = []
    if b.empty:
        return tasks
    for f in files:
        sidecar = sidecar_in(sidecar_dir, f)
        idx = open_index(f, sidecar, build=build)
        with idx:
            count = idx.line_count
            lo, hi = max(b.line_lo or 1, 1), min(b.line_hi if b.line_hi is not None else count, count)
            if since is not None or until is not None:
                r = idx.time_range(since, until)
                if r is None:
                    continue
                lo, hi = max(lo, r[0]), min(hi, r[1])
            if b.timed:
                if not idx.has_time_index:
                    # No time index: no line has a time, none is in bounds.
                    continue
                # Lines outside [first line at or after lo, last line
                # before hi + 1] have times outside the bounds.
                r = idx.time_range(b.time_lo, None if b.time_hi is None else b.time_hi + 1)
                if r is None:
                    continue
                lo, hi = max(lo, r[0]), min(hi, r[1])
            if lo > hi:
                continue
            for p in idx.partitions(partition_bytes, (lo, hi)):
                if b.timed and not _may_hold(p, b):
                    continue
                tasks.append(
                    Task(f, sidecar, p.first, p.last, p.time_min, p.time_max, p.source_end - p.source_start)
                )
    return tasks


def _may_hold(p, b: Bounds) -> bool:
    if p.time_min is None:
        return False  # no line of it has a time
    if b.time_lo is not None and p.time_max < b.time_lo:
        return False
    if b.time_hi is not None and p.time_min > b.time_hi:
        return False
    return True


def arrow_schema(binary: bool = False):
    import pyarrow as pa

    return pa.schema(
        [
            pa.field("path", pa.string(), nullable=False),
            pa.field("line", pa.int64(), nullable=False),
            pa.field("text", pa.binary() if binary else pa.string(), nullable=False),
            pa.field("time", pa.timestamp("us", tz="UTC")),
        ]
    )


def read_task(
    task: Task,
    *,
    binary: bool = False,
    times: bool = True,
    batch_bytes: int = BATCH_BYTES,
    cache_mb: int = 16,
) -> Iterator["object"]:
    """The rows of ``task`` as Arrow record batches (``arrow_schema``):
    the file's lines with their numbers, their text without ``\\n``
    (``\\r`` is content, as everywhere in lidx; invalid UTF-8 replaced by
    U+FFFD unless ``binary``), and their time (the stamp's, or the last
    stamp's before; null without a time index or before the first
    stamp)."""
    import pyarrow as pa

    schema = arrow_schema(binary)
    text_type = schema.field("text").type
    time_type = schema.field("time").type
    path_bytes = task.path.encode("utf-8", "surrogateescape").decode("utf-8", "replace").encode()
    idx = open_index(task.path, task.sidecar, build=False, cache_mb=cache_mb)
    with idx:
        timed = times and idx.has_time_index
        for first, n, data, offsets, t, valid in idx._batches(
            task.first, task.last, max_bytes=batch_bytes, times=timed, text=not binary
        ):
            paths = pa.Array.from_buffers(
                pa.string(),
                n,
                [
                    None,
                    pa.py_buffer(array.array("i", range(0, (n + 1) * len(path_bytes), len(path_bytes))).tobytes()
                                 if path_bytes else bytes(4 * (n + 1))),
                    pa.py_buffer(path_bytes * n),
                ],
            )
            lines = pa.Array.from_buffers(
                pa.int64(), n, [None, pa.py_buffer(array.array("q", range(first, first + n)).tobytes())]
            )
            text = pa.Array.from_buffers(text_type, n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
            if t is None:
                when = pa.nulls(n, time_type)
            else:
                when = pa.Array.from_buffers(
                    time_type, n, [None if valid is None else pa.py_buffer(valid), pa.py_buffer(t)]
                )
            yield pa.RecordBatch.from_arrays([paths, lines, text, when], schema=schema)


def build(
    path: str,
    *,
    sidecar_dir: Optional[str] = None,
    upload: bool = False,
    time: bool = False,
    time_format: Optional[str] = None,
    tz: Optional[str] = None,
    force: bool = False,
) -> Tuple[str, str, str]:
    """Builds (or extends, or finds fresh) the sidecar of ``path``: next to
    a local file (or in ``sidecar_dir``); for a URL, in this machine's
    cache, then uploaded next to the object with ``upload`` (one PUT) or
    copied into ``sidecar_dir``. Returns ``(path, sidecar, action)``."""
    sidecar = sidecar_in(sidecar_dir, path)
    remote_target = sidecar if sidecar and is_url(sidecar) else None
    how = dict(build=True, force=force, time=time, time_format=time_format, tz=tz)
    if remote_target or (is_url(path) and sidecar):
        # Built in this machine's cache, then put where asked.
        idx = _lidx.Index(path, **how)
    else:
        idx = _lidx.Index(path, sidecar=sidecar, **how)
    with idx:
        action = idx.action
        where = idx.sidecar_path
        if remote_target:
            _lidx._put_object(remote_target, idx.to_bytes())
            where = remote_target
        elif is_url(path) and sidecar:
            idx.export_index(sidecar)
            where = sidecar
        elif is_url(path) and upload:
            target = path.split("?", 1)[0] + ".lidx"
            _lidx._put_object(target, idx.to_bytes())
            where = target
        elif upload:
            raise InvalidArgumentError(f"{path}: upload=True is for objects in a bucket, not local files")
    return (path, os.fsdecode(where) if where is not None else "", action)
