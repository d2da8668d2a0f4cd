"""Type stubs of the lidx package (the docstrings are in the modules)."""

import datetime
import io
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Literal, Optional, TypedDict, Union

from ._errors import (
    CancelledError as CancelledError,
    Error as Error,
    FamilyError as FamilyError,
    FileError as FileError,
    InvalidArgumentError as InvalidArgumentError,
    NoSidecarError as NoSidecarError,
    NotFoundError as NotFoundError,
    OutOfRangeError as OutOfRangeError,
    PermissionDeniedError as PermissionDeniedError,
    RemoteError as RemoteError,
    SidecarError as SidecarError,
    SourceError as SourceError,
    StaleError as StaleError,
)

__version__: str

StrPath = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]
# progress(done, total): bytes read so far; return False to cancel.
Progress = Callable[[int, int], Union[bool, None]]
Pattern = Union[str, bytes, Sequence[Union[str, bytes]]]
# An instant: nanoseconds since the epoch, a datetime, or a time as
# `lidx lines --since` takes it ("2026-11-30T10:32", "10:32", "-15m").
Instant = Union[int, str, datetime.datetime]
Verdict = Literal["unchanged", "appended", "rewritten", "unverified"]
Action = Literal["opened", "verified", "built", "extended", "rebuilt", "damaged", "loaded"]

class GzipInfo(TypedDict):
    compressed_size: int
    access_points: int
    span: int
    windowless: bool
    piece_len: Optional[int]

class ZstdInfo(TypedDict):
    compressed_size: int
    frames: int
    largest_frame: int

class TimeInfo(TypedDict):
    format: str
    detected: bool
    zone: str
    first: Union[str, None]
    last: Union[str, None]

class Info(TypedDict):
    file: str
    sidecar: Union[str, None]
    lines: int
    source_size: int
    sidecar_size: int
    sidecar_percent: float
    checkpoints: int
    pages: int
    page_size: int
    height: int
    spacing: int
    version: str
    source: str
    fresh: bool
    evidence: str
    gzip: Union[GzipInfo, None]
    zstd: Union[ZstdInfo, None]
    time: Union[TimeInfo, None]
    action: Action
    damage: Union[str, None]

class VerifyReport(TypedDict):
    pages: int
    checkpoints: int
    verdict: Verdict
    full: bool

class Index:
    """An index of the lines of a text file or a gzip archive's text."""

    def __init__(
        self,
        path: StrPath,
        *,
        sidecar: Union[StrPath, None] = None,
        cache_mb: int = 16,
        build: bool = True,
        spacing: Union[int, None] = None,
        span: Union[int, None] = None,
        plain: bool = False,
        force: bool = False,
        progress: Union[Progress, None] = None,
        time: bool = False,
        time_format: Union[str, None] = None,
        tz: Union[str, None] = None,
    ) -> None: ...
    @classmethod
    def from_bytes(
        cls,
        path: StrPath,
        data: Union[bytes, bytearray],
        *,
        cache_mb: int = 16,
        progress: Union[Progress, None] = None,
    ) -> "Index": ...
    @property
    def path(self) -> str: ...
    @property
    def sidecar_path(self) -> Union[str, None]: ...
    @property
    def line_count(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def is_gzip(self) -> bool: ...
    @property
    def action(self) -> Action: ...
    @property
    def warning(self) -> Union[str, None]: ...
    @property
    def damage(self) -> Union[str, None]: ...
    @property
    def verdict(self) -> Verdict: ...
    @property
    def closed(self) -> bool: ...
    def refresh(self, *, progress: Union[Progress, None] = None) -> Literal["unchanged", "appended", "rewritten"]: ...
    def lines(self, first: int, last: int) -> list[bytes]: ...
    def line(self, n: int) -> bytes: ...
    def line_span(self, n: int) -> tuple[int, int]: ...
    def line_at(self, offset: int) -> int: ...
    def line_at_time(self, t: Instant) -> Union[int, None]: ...
    def time_range(
        self, since: Union[Instant, None] = None, until: Union[Instant, None] = None
    ) -> Union[tuple[int, int], None]: ...
    def read_at(self, offset: int, size: int) -> bytes: ...
    def grep(
        self,
        pattern: Pattern,
        lines: Union[tuple[int, Union[int, None]], None] = None,
        *,
        ignore_case: bool = False,
        smart_case: bool = False,
        fixed_strings: bool = False,
        word_regexp: bool = False,
        line_regexp: bool = False,
        invert_match: bool = False,
        max_count: Union[int, None] = None,
        crlf: bool = False,
        unicode: bool = True,
        threads: Union[int, None] = None,
    ) -> "Matches": ...
    def follow(self, start: Union[int, None] = None, *, interval: float = 0.25) -> "Follower": ...
    def info(self) -> Info: ...
    def verify(self, full: bool = False) -> VerifyReport: ...
    def to_bytes(self) -> bytes: ...
    def seek_points(self) -> list[tuple[int, int]]: ...
    @property
    def has_time_index(self) -> bool: ...
    def partitions(
        self,
        target_bytes: int = 134217728,
        lines: Union[tuple[int, Union[int, None]], None] = None,
    ) -> list["Partition"]: ...
    def export_index(self, filename: StrPath) -> None: ...
    def open(self) -> "LineFile": ...
    def close(self) -> None: ...
    def __enter__(self) -> "Index": ...
    def __exit__(self, *exc: object) -> bool: ...
    # Internal, for LineFile.
    def _line_start(self, n: int) -> int: ...
    def _read_line(self, offset: int, size: int = -1) -> bytes: ...

class Partition:
    """Lines first..last of a file, read from source_start..source_end."""

    def __init__(
        self,
        first: int,
        last: int,
        text_start: int,
        text_end: int,
        source_start: int,
        source_end: int,
        time_min: Union[int, None],
        time_max: Union[int, None],
    ) -> None: ...
    @property
    def first(self) -> int: ...
    @property
    def last(self) -> int: ...
    @property
    def text_start(self) -> int: ...
    @property
    def text_end(self) -> int: ...
    @property
    def source_start(self) -> int: ...
    @property
    def source_end(self) -> int: ...
    @property
    def time_min(self) -> Union[int, None]: ...
    @property
    def time_max(self) -> Union[int, None]: ...
    @property
    def lines(self) -> tuple[int, int]: ...

class Matches(Iterator[tuple[int, int, bytes]]):
    """``(line_no, offset, line)`` of each selected line, in file order."""

    def __iter__(self) -> "Matches": ...
    def __next__(self) -> tuple[int, int, bytes]: ...
    def close(self) -> None: ...

class Follower(Iterator[tuple[int, bytes]]):
    """New complete lines of a growing file, as ``(line_no, line)``."""

    @property
    def next_line(self) -> int: ...
    @property
    def restarts(self) -> int: ...
    def poll(self) -> list[tuple[int, bytes]]: ...
    def __iter__(self) -> "Follower": ...
    def __next__(self) -> tuple[int, bytes]: ...

FamilyAction = Literal["opened", "numbered", "updated", "renumbered"]

class Member:
    """One file of a rotation family, with its own Index."""

    @property
    def path(self) -> str: ...
    @property
    def first_line(self) -> int: ...
    @property
    def line_count(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def index(self) -> Index: ...

class Family:
    """A rotation family read as one log, with global line numbers."""

    def __init__(
        self,
        live: StrPath,
        *,
        cache_mb: int = 16,
        build: bool = True,
        spacing: Union[int, None] = None,
        span: Union[int, None] = None,
        plain: bool = False,
        force: bool = False,
        progress: Union[Progress, None] = None,
        renumber: bool = False,
        time: bool = False,
        time_format: Union[str, None] = None,
        tz: Union[str, None] = None,
    ) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def manifest_path(self) -> str: ...
    @property
    def action(self) -> FamilyAction: ...
    @property
    def members(self) -> list[Member]: ...
    @property
    def first_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def line_count(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    def __len__(self) -> int: ...
    def member_of(self, n: int) -> int: ...
    def lines(self, first: int, last: int) -> list[bytes]: ...
    def line(self, n: int) -> bytes: ...
    def line_at(self, offset: int) -> int: ...
    def line_at_time(self, t: Instant) -> Union[int, None]: ...
    def time_range(
        self, since: Union[Instant, None] = None, until: Union[Instant, None] = None
    ) -> Union[tuple[int, int], None]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Family": ...
    def __exit__(self, *exc: object) -> bool: ...

class Merged(Iterator[tuple[int, int, Union[int, None], bytes]]):
    """``(source, line_no, time, line)`` of each line, in time order."""

    def __iter__(self) -> "Merged": ...
    def __next__(self) -> tuple[int, int, Union[int, None], bytes]: ...
    def close(self) -> None: ...

def merge(
    sources: Sequence[Union[Index, Family]],
    since: Union[Instant, None] = None,
    until: Union[Instant, None] = None,
) -> Merged: ...

class Collection:
    """Several logs as one numbered whole, in turn or merged by time."""

    def __init__(
        self,
        sources: Sequence[Union[Index, Family]],
        *,
        merge: bool = False,
        since: Union[Instant, None] = None,
        until: Union[Instant, None] = None,
        cache_mb: int = 16,
    ) -> None: ...
    @property
    def line_count(self) -> int: ...
    @property
    def merged(self) -> bool: ...
    def __len__(self) -> int: ...
    def lines(self, first: int, last: int) -> list[bytes]: ...
    def line(self, n: int) -> bytes: ...
    def origin(self, n: int) -> tuple[int, int]: ...
    def line_of(self, source: int, line_no: int) -> Union[int, None]: ...
    def line_at_time(self, t: Instant) -> Union[int, None]: ...
    def grep(
        self,
        pattern: Pattern,
        lines: Union[tuple[int, Union[int, None]], None] = None,
        *,
        ignore_case: bool = False,
        smart_case: bool = False,
        fixed_strings: bool = False,
        word_regexp: bool = False,
        line_regexp: bool = False,
        invert_match: bool = False,
        max_count: Union[int, None] = None,
        crlf: bool = False,
        unicode: bool = True,
        threads: Union[int, None] = None,
    ) -> Matches: ...

class LineFile(io.RawIOBase):
    """A seekable, read-only binary file over the text, with line numbers."""

    name: str
    def __init__(self, index: Index, owns_index: bool = True) -> None: ...
    @property
    def mode(self) -> str: ...
    @property
    def index(self) -> Index: ...
    def read(self, size: Union[int, None] = -1) -> bytes: ...
    def readall(self) -> bytes: ...
    def readinto(self, buffer: "memoryview | bytearray") -> int: ...  # type: ignore[override]
    def readline(self, size: Union[int, None] = -1) -> bytes: ...
    def seek(self, offset: int, whence: int = 0) -> int: ...
    def tell(self) -> int: ...
    def seek_line(self, n: int) -> int: ...
    def tell_line(self) -> int: ...
    def seek_points(self) -> list[tuple[int, int]]: ...
    def export_index(self, filename: StrPath) -> None: ...

def open(
    path: Union[StrPath, None] = None,
    mode: Literal["rb", "br"] = "rb",
    *,
    fileobj: Union[io.RawIOBase, io.BufferedIOBase, None] = None,
    sidecar: Union[StrPath, None] = None,
    index_file: Union[StrPath, None] = None,
    cache_mb: int = 16,
    build: bool = True,
    spacing: Union[int, None] = None,
    span: Union[int, None] = None,
    plain: bool = False,
    progress: Union[Progress, None] = None,
) -> LineFile: ...
