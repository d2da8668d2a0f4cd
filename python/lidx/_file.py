"""``lidx.open``: the text of a file as a seekable, read-only binary file."""

import io
import os

from ._lidx import Index

__all__ = ["LineFile", "open"]


class LineFile(io.RawIOBase):
    """A seekable, read-only binary file over a text file's bytes, or over
    a gzip archive's uncompressed text, with line numbers: what
    ``indexed_gzip.IndexedGzipFile`` and ``rapidgzip.open`` give, plus
    :meth:`seek_line`, :meth:`tell_line` and a :meth:`readline` that finds
    the end of a long line through the index.

    Made by :func:`lidx.open` (which owns its :class:`Index` and closes it
    with the file) or :meth:`Index.open` (which shares the index). An
    ``io.RawIOBase``: ``read``, ``readinto``, ``readall``, ``readline``,
    ``readlines``, iteration over lines, ``seek(offset, whence)`` with
    ``SEEK_SET``, ``SEEK_CUR`` and ``SEEK_END``, ``tell``, context manager;
    wrap it in ``io.BufferedReader`` for small reads, in
    ``io.TextIOWrapper(io.BufferedReader(f))`` for ``str``. Every read runs
    with the GIL released.

    Thread-safety: the position is the file's own state, so one
    ``LineFile`` is for one thread at a time (as any file object); the
    :class:`Index` behind it is thread-safe: give each thread its own
    ``index.open()``, or call ``index.read_at(offset, size)``, which keeps
    no position.
    """

    def __init__(self, index: Index, owns_index: bool = True) -> None:
        super().__init__()
        self._index = index
        self._owns = owns_index
        self._pos = 0
        path = index.path
        self.name = path if isinstance(path, str) else os.fsdecode(path)

    # -- io.RawIOBase --------------------------------------------------

    @property
    def mode(self) -> str:
        """``"rb"``: the file is read-only and binary."""
        return "rb"

    def _checked(self) -> Index:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        return self._index

    def readable(self) -> bool:
        self._checked()
        return True

    def seekable(self) -> bool:
        self._checked()
        return True

    def writable(self) -> bool:
        self._checked()
        return False

    def write(self, data) -> int:
        """Not supported: a ``LineFile`` is read-only."""
        self._checked()
        raise io.UnsupportedOperation("write: lidx files are read-only")

    def read(self, size: "int | None" = -1) -> bytes:
        """Up to ``size`` bytes from the position (all the rest when
        ``size`` is negative or None); ``b""`` at the end."""
        index = self._checked()
        if size is None or size < 0:
            return self.readall()
        data = index.read_at(self._pos, size)
        self._pos += len(data)
        return data

    def readall(self) -> bytes:
        """The rest of the text, from the position to its end."""
        index = self._checked()
        return self.read(max(index.size - self._pos, 0))

    def readinto(self, buffer) -> int:
        """Reads into a writable bytes-like object; returns the bytes read
        (0 at the end)."""
        index = self._checked()
        with memoryview(buffer) as view, view.cast("B") as target:
            data = index.read_at(self._pos, len(target))
            n = len(data)
            target[:n] = data
        self._pos += n
        return n

    def readline(self, size: "int | None" = -1) -> bytes:
        """The rest of the line at the position, with its ``\\n`` (at most
        ``size`` bytes when ``size >= 0``); ``b""`` at the end. A line
        longer than 8 KiB is read in one piece: its end comes from the
        index."""
        index = self._checked()
        if size is None:
            size = -1
        data = index._read_line(self._pos, size)
        self._pos += len(data)
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Moves to byte ``offset`` of the text (uncompressed, for a gzip
        archive), from the start (``SEEK_SET``), the position
        (``SEEK_CUR``) or the end (``SEEK_END``); returns the new position.
        A position past the end is allowed (reads there return ``b""``)."""
        index = self._checked()
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = index.size + offset
        else:
            raise ValueError(
                f"invalid whence ({whence}, should be {io.SEEK_SET}, "
                f"{io.SEEK_CUR} or {io.SEEK_END})"
            )
        if pos < 0:
            raise ValueError(f"negative seek position {pos}")
        self._pos = pos
        return pos

    def tell(self) -> int:
        """The position: a byte offset in the text."""
        self._checked()
        return self._pos

    def close(self) -> None:
        """Closes the file, and its index if :func:`lidx.open` made it."""
        if not self.closed and self._owns:
            self._index.close()
        super().close()

    # -- line numbers --------------------------------------------------

    @property
    def index(self) -> Index:
        """The :class:`Index` the file reads through."""
        return self._checked()

    def seek_line(self, n: int) -> int:
        """Moves to the start of line ``n`` (from 1; ``-1`` is the last
        line) and returns the position. Past the end: ``OutOfRangeError``."""
        index = self._checked()
        self._pos = index._line_start(n)
        return self._pos

    def tell_line(self) -> int:
        """The number of the line the position is in (the line the next
        read starts in); at or past the end, ``line_count + 1``."""
        index = self._checked()
        if self._pos >= index.size:
            return index.line_count + 1
        return index.line_at(self._pos)

    # -- what an indexed_gzip user looks for --------------------------

    def seek_points(self) -> list:
        """Where reading can start: ``(uncompressed_offset,
        compressed_offset)`` pairs, as ``indexed_gzip``'s (a gzip archive's
        access points, a zstd archive's frames, a plain file's checkpoints
        with the same offset twice)."""
        return self._checked().seek_points()

    def export_index(self, filename) -> None:
        """Writes the index (the sidecar's bytes) to ``filename``, which
        :func:`lidx.open` and :class:`Index` take back as ``sidecar=`` (or
        ``index_file=``)."""
        self._checked().export_index(filename)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"position {self._pos}"
        return f"<lidx.LineFile name={self.name!r} {state}>"


def _path_of(fileobj):
    """The path of ``fileobj``, an open binary file: its ``name``, when that
    names the very file it reads (same device and inode)."""
    name = getattr(fileobj, "name", None)
    try:
        fd = fileobj.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        fd = None
    if isinstance(name, (str, bytes, os.PathLike)) and fd is not None:
        try:
            a, b = os.stat(name), os.fstat(fd)
            if (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):
                return name
        except OSError:
            pass
    if fd is not None and os.path.exists(f"/proc/self/fd/{fd}"):
        target = os.readlink(f"/proc/self/fd/{fd}")
        if os.path.isfile(target):
            return target
    raise TypeError(
        "lidx reads a file by its path: fileobj must be a file opened from a "
        f"path (open(path, 'rb')), not {type(fileobj).__name__}"
    )


def open(
    path=None,
    mode: str = "rb",
    *,
    fileobj=None,
    sidecar=None,
    index_file=None,
    cache_mb: int = 16,
    build: bool = True,
    spacing=None,
    span=None,
    plain: bool = False,
    progress=None,
) -> LineFile:
    """Opens a text file, or a gzip archive's uncompressed text, as a
    seekable read-only binary file (:class:`LineFile`, an
    ``io.RawIOBase``) with ``seek_line(n)``.

    The keyword arguments are :class:`Index`'s (the index is built on first
    use and kept in ``path + ".lidx"``; ``span`` sets a gzip archive's
    spacing of access points, as ``indexed_gzip``'s ``spacing``). ``mode``
    must be ``"rb"``. Closing the file closes its index.

    As ``indexed_gzip.IndexedGzipFile``: ``fileobj`` instead of ``path``
    (an open binary file, read by its path), ``index_file`` for
    ``sidecar`` (an index exported with :meth:`LineFile.export_index`),
    and :meth:`LineFile.seek_points`.

    >>> with lidx.open("app.log.gz") as f:    # doctest: +SKIP
    ...     f.seek_line(812_345)
    ...     line = f.readline()
    """
    if mode not in ("rb", "br"):
        raise ValueError(f"lidx.open reads binary files: mode must be 'rb', not {mode!r}")
    if (path is None) == (fileobj is None):
        raise TypeError("lidx.open takes a path or fileobj=, one of them")
    if fileobj is not None:
        path = _path_of(fileobj)
    if sidecar is not None and index_file is not None:
        raise TypeError("lidx.open takes sidecar= or index_file=, not both")
    index = Index(
        path,
        sidecar=sidecar if sidecar is not None else index_file,
        cache_mb=cache_mb,
        build=build,
        spacing=spacing,
        span=span,
        plain=plain,
        progress=progress,
    )
    return LineFile(index, True)
