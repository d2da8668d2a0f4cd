"""lidx: instant goto-line, byte offset to line and range search in huge
text files and gzip archives, through a small sidecar index.

One pass over a file writes ``FILE.lidx`` (about 0.025% of a text file,
3% of a gzip archive); with it, any line of a multi-GB file, or of a
``.gz`` archive without decompressing it from the start, is reached in
about a millisecond, a byte offset maps to its line, and a line range is
searched in parallel with exact line numbers::

    import lidx

    idx = lidx.Index("app.log")            # builds app.log.lidx on first use
    idx.line_count                         # 33937018
    idx.lines(812_345, 812_347)            # [b'...\\n', b'...\\n', b'...\\n']
    idx.lines(-10, -1)                     # the last ten lines
    idx.line_at(4_000_000_000)             # the line holding that byte
    for line_no, offset, line in idx.grep(r"ERROR .* timeout", lines=(1_000_000, 2_000_000)):
        ...
    with lidx.open("app.log.gz") as f:     # a seekable file over the text
        f.seek_line(8_000_000)
        f.read(4096)

Line numbers are 1-based, as in the ``lidx`` command line, ``sed``,
``grep -n`` and editors; negative numbers count from the end (``-1`` is
the last line); a range ``(first, last)`` holds both ends. Byte offsets
are 0-based. A line is the bytes up to and including ``\\n`` (returned
with it); a final line without ``\\n`` is still a line; ``\\r`` is content.

The classes: :class:`Index` (open, build, query, search, follow,
refresh, time queries), :class:`LineFile` (from :func:`open`),
:class:`Matches` (from ``Index.grep``), :class:`Follower` (from
``Index.follow``), :class:`Family` (a rotation family, ``app.log``,
``app.log.1``, ``app.log.2.gz``, ..., read as one log with global line
numbers that never change; its files are :class:`Member` objects, each
with an ``Index``), :func:`merge` (several logs merged by time, through
a :class:`Merged` iterator), :class:`Collection` (several logs as one
numbered whole, in turn or merged by time, with each line's source),
:class:`Partition` (from ``Index.partitions``: a file cut into line
ranges that workers read apart; ``lidx.spark`` and ``lidx.dask`` read
with them), and
the exceptions, whose messages are the
command line's (see ``lidx._errors``). The library prints nothing and keeps no global state;
every read, build and search releases the GIL.
"""

from . import _errors
from ._errors import (
    CancelledError,
    Error,
    FamilyError,
    FileError,
    InvalidArgumentError,
    NoSidecarError,
    NotFoundError,
    OutOfRangeError,
    PermissionDeniedError,
    RemoteError,
    SidecarError,
    SourceError,
    StaleError,
)
from ._lidx import (
    Collection,
    Family,
    Follower,
    Index,
    Matches,
    Member,
    Merged,
    Partition,
    __version__,
    merge,
)
from ._file import LineFile, open

__all__ = [
    "Index",
    "LineFile",
    "Matches",
    "Follower",
    "Family",
    "Member",
    "Merged",
    "merge",
    "Collection",
    "Partition",
    "open",
    *_errors.__all__,
    "__version__",
]
