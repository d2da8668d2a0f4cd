"""lidx as a Spark data source: any indexed file — plain text, gzip, zstd,
local or in a bucket — read in many tasks, with exact line numbers.

Spark reads a ``.gz`` in one task; with its sidecar, lidx splits it at
its access points, so each task decodes its own part and nothing before
it. Needs PySpark 4 (``pip install 'lidx[spark]'``)::

    from lidx.spark import LidxDataSource, build_indexes

    spark.dataSource.register(LidxDataSource)
    build_indexes(spark, "s3://bucket/logs/", time=True, upload=True)   # once
    df = spark.read.format("lidx").load("s3://bucket/logs/")
    df.where("text LIKE '%ERROR%'").count()

Columns: ``path`` (string), ``line`` (long, 1-based as the ``lidx``
command line counts), ``text`` (string without the ``\\n``; ``\\r`` is
content; invalid UTF-8 replaced by U+FFFD, or the exact bytes with
``.option("binary", "true")``), ``time`` (timestamp: the line's stamp, or
the last stamp's before it; null without a time index).

Options (all optional):

- ``partitionBytes``: text bytes per task (default 128 MiB);
- ``since``, ``until``: the lines of a time window, exactly as ``lidx
  lines --since/--until`` selects them (``2026-11-30T10:00``, ``-1h``...);
- ``lines``: ``FIRST-LAST`` (1-based, both included), the same lines of
  every file;
- ``sidecarDir``: where the sidecars are (a local or shared directory, or
  a bucket prefix), as ``build_indexes(sidecar_dir=...)`` wrote them;
  default: next to each file (``FILE.lidx``), for a URL also this
  machine's cache;
- ``build``: ``true`` builds missing sidecars while planning (in one
  process: prefer ``build_indexes``); by default a file without a fresh
  sidecar is an error naming it, never a silent single task;
- ``binary``: ``true`` makes ``text`` binary;
- ``recursiveFileLookup``, ``pathGlobFilter``: as Spark's file sources;
- ``pushdown``: ``auto`` (default), ``true`` or ``false``.

Filters on ``line`` and ``time`` (``=``, ``<``, ``<=``, ``>``, ``>=``,
``IN``, ``BETWEEN``) prune tasks and seek inside files when Spark hands
them to the source, which it does only with
``spark.sql.python.filterPushdown.enabled=true``; Spark evaluates every
filter again on the rows, so pruning never changes an answer. With the
setting off (Spark's default) the source still loads and reads
everything; the options ``lines``, ``since`` and ``until`` prune the same
way whatever the setting.
"""

from __future__ import annotations

import json
import sys
from typing import Iterator, List, Optional, Sequence, Union

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    LessThan,
    LessThanOrEqual,
)

from . import _engines
from ._errors import InvalidArgumentError

__all__ = ["LidxDataSource", "build_indexes", "register"]


def _flag(options, name: str, default: bool = False) -> bool:
    v = _get(options, name)
    if v is None:
        return default
    v = str(v).strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no"):
        return False
    raise InvalidArgumentError(f"option {name}: expected true or false, not {v!r}")


def _get(options, name: str):
    """Option ``name``, whatever the case Spark hands its name in."""
    for k, v in options.items():
        if k.lower() == name.lower():
            return v
    return None


def _paths(options) -> List[str]:
    paths = []
    if _get(options, "paths"):
        paths.extend(json.loads(_get(options, "paths")))
    if _get(options, "path"):
        paths.append(_get(options, "path"))
    if not paths:
        raise InvalidArgumentError("no path: spark.read.format('lidx').load(PATH or [PATHS])")
    return paths


def _line_option(v: Optional[str]):
    if not v:
        return None, None
    a, sep, b = v.partition("-")
    try:
        first = int(a) if a.strip() else None
        last = int(b) if sep and b.strip() else (first if not sep else None)
    except ValueError:
        raise InvalidArgumentError(f"option lines: expected FIRST-LAST, not {v!r}") from None
    return first, last


class _Task(InputPartition):
    def __init__(self, task: _engines.Task):
        super().__init__(tuple(task))

    def __repr__(self) -> str:
        t = _engines.Task(*self.value)
        return f"lidx task {t.path} lines {t.first}..{t.last}"


class LidxDataSource(DataSource):
    """The ``lidx`` format: ``spark.read.format("lidx").load(paths)``."""

    @classmethod
    def name(cls) -> str:
        return "lidx"

    def schema(self) -> str:
        text = "binary" if _flag(self.options, "binary") else "string"
        return f"path string not null, line long not null, text {text} not null, time timestamp"

    def reader(self, schema) -> DataSourceReader:
        mode = (_get(self.options, "pushdown") or "auto").strip().lower()
        if mode not in ("auto", "true", "false"):
            raise InvalidArgumentError(f"option pushdown: expected auto, true or false, not {mode!r}")
        if mode == "auto":
            push = _spark_pushes(sys._getframe(1))
        else:
            push = mode == "true"
        cls = _PushingReader if push else _Reader
        return cls(self.options, schema)


def _spark_pushes(caller) -> bool:
    """Whether Spark will hand filters to the reader being made by the
    worker whose frame is ``caller``. Spark refuses a reader that takes
    filters when ``spark.sql.python.filterPushdown.enabled`` is off
    (DATA_SOURCE_PUSHDOWN_DISABLED), and the setting does not reach the
    data source: its planning workers know it. The worker that pushes
    filters (``data_source_pushdown_filters``) runs only with the setting
    on; the one that plans a read without filters has it as its local
    ``enable_pushdown``. Read, never changed; anything else: no
    pushdown (the option ``pushdown=true`` forces it)."""
    module = caller.f_globals.get("__name__", "")
    if module.endswith("data_source_pushdown_filters"):
        return True
    return bool(caller.f_locals.get("enable_pushdown", False))


class _Reader(DataSourceReader):
    def __init__(self, options, schema):
        # Spark hands option names lowercased: looked up so.
        self.options = {k.lower(): v for k, v in dict(options).items()}
        self.binary = _flag(options, "binary")
        self.bounds = _engines.Bounds()
        first, last = _line_option(_get(options, "lines"))
        self.bounds.lines(first, last)
        self.want_time = "time" in [f.name for f in schema.fields]

    def partitions(self) -> List[InputPartition]:
        o = self.options
        files = _engines.expand(
            _paths(o),
            recursive=_flag(o, "recursiveFileLookup"),
            glob_filter=_get(o, "pathglobfilter"),
        )
        tasks = _engines.plan(
            files,
            partition_bytes=int(_get(o, "partitionbytes") or _engines.DEFAULT_PARTITION_BYTES),
            bounds=self.bounds,
            since=_get(o, "since"),
            until=_get(o, "until"),
            sidecar_dir=_get(o, "sidecardir"),
            build=_flag(o, "build"),
        )
        # Spark wants at least one partition: an empty one reads nothing.
        return [_Task(t) for t in tasks] or [InputPartition(None)]

    def read(self, partition: InputPartition) -> Iterator:
        if partition.value is None:
            return iter(())
        task = _engines.Task(*partition.value)
        return _engines.read_task(
            task, binary=self.binary, times=self.want_time, cache_mb=int(_get(self.options, "cachemb") or 16)
        )


class _PushingReader(_Reader):
    def pushFilters(self, filters):
        for f in filters:
            self._take(f)
            # Spark evaluates every filter again: pruning narrows what is
            # read, never what is answered.
            yield f

    def _take(self, f) -> None:
        col = getattr(f, "attribute", None)
        b = self.bounds
        if col == ("line",):
            value, setter, slack = _line_value, b.lines, 0
        elif col == ("time",):
            value, setter, slack = _time_value, b.times, _NAIVE_SLACK
        else:
            return
        comparisons = (EqualTo, In, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual)
        if not isinstance(f, comparisons):
            return  # IS NULL, NOT, LIKE ...: left to Spark
        vals = list(f.value) if isinstance(f, In) else [f.value]
        got = [value(v) for v in vals]
        if any(g is None for g in got):
            return
        if not got:
            b.empty = True
            return
        # A naive time may be off by a daylight-saving fold: widened.
        lo = min(v - (slack if naive else 0) for v, naive in got)
        hi = max(v + (slack if naive else 0) for v, naive in got)
        if isinstance(f, (EqualTo, In)):
            setter(lo, hi)
        elif isinstance(f, GreaterThan):
            setter(lo + 1, None)
        elif isinstance(f, GreaterThanOrEqual):
            setter(lo, None)
        elif isinstance(f, LessThan):
            setter(None, hi - 1)
        elif isinstance(f, LessThanOrEqual):
            setter(None, hi)


#: How far a naive local time may be from the instant Spark meant: a
#: daylight-saving fold (an hour; two in a few zones' history).
_NAIVE_SLACK = 2 * 3600 * 1_000_000_000


def _line_value(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, False)
    return None


def _time_value(v):
    import datetime as dt

    if isinstance(v, dt.datetime):
        return (_engines.nanos(v), v.tzinfo is None)
    return None


def register(spark) -> None:
    """``spark.dataSource.register(LidxDataSource)``."""
    spark.dataSource.register(LidxDataSource)


def build_indexes(
    spark,
    paths: Union[str, Sequence[str]],
    *,
    sidecar_dir: Optional[str] = None,
    upload: bool = False,
    time: bool = False,
    time_format: Optional[str] = None,
    tz: Optional[str] = None,
    force: bool = False,
    recursive: bool = False,
) -> List[tuple]:
    """Builds the sidecars of ``paths`` on the cluster: one task per file,
    spread over the executors. Each sidecar is written next to its local
    file (``FILE.lidx``: the executors must see the same file system), in
    ``sidecar_dir`` (a shared directory, or a bucket prefix, one PUT per
    sidecar), or — with ``upload=True`` only, never by default — next to
    its object in the bucket (one PUT per sidecar). A fresh sidecar is
    kept (``force`` rebuilds). ``time`` adds a time index (``time_format``,
    ``tz`` as ``lidx index --time``). Returns ``(path, sidecar, action)``
    per file."""
    files = _engines.expand(paths, recursive=recursive)
    if not files:
        return []
    args = dict(sidecar_dir=sidecar_dir, upload=upload, time=time, time_format=time_format, tz=tz, force=force)

    def one(path):
        from lidx import _engines as e

        return e.build(path, **args)

    rdd = spark.sparkContext.parallelize(files, len(files))
    return rdd.map(one).collect()
