"""lidx.open: an io.RawIOBase over the text, checked against Python's own
gzip module, zcat, and indexed_gzip where it is installed."""

import gzip
import io
import random

import pytest

import lidx
from conftest import require_module, split_lines, text_of


@pytest.fixture(params=["plain", "gzip"])
def source(request, text, gz):
    return text if request.param == "plain" else gz


def python_reader(path):
    """Python's own reader of the text: gzip.open for an archive."""
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def test_is_a_raw_file(source):
    with lidx.open(source, span=4096) as f:
        assert isinstance(f, io.RawIOBase)
        assert f.readable() and f.seekable() and not f.writable()
        assert f.name == str(source) and f.mode == "rb"
        with pytest.raises(io.UnsupportedOperation):
            f.fileno()
        with pytest.raises((io.UnsupportedOperation, OSError)):
            f.write(b"x")
    assert f.closed
    with pytest.raises(ValueError):
        f.read(1)
    with pytest.raises(ValueError):
        f.seek(0)


def test_random_reads_are_pythons_gzip(source):
    data = text_of(source)
    rng = random.Random(1)
    with lidx.open(source, span=4096) as f, python_reader(source) as ref:
        for _ in range(300):
            off = rng.randrange(len(data) + 100)
            size = rng.choice([1, 17, 4096, 10000, 70000])
            assert f.seek(off) == off
            ref.seek(off)
            assert f.read(size) == ref.read(size), (off, size)
            if off <= len(data):  # GzipFile's position stops at the end
                assert f.tell() == ref.tell()


def test_seek_whence_and_readall(source):
    data = text_of(source)
    with lidx.open(source) as f:
        assert f.seek(0, io.SEEK_END) == len(data)
        assert f.read(10) == b""
        assert f.seek(-10, io.SEEK_END) == len(data) - 10
        assert f.read() == data[-10:]
        assert f.seek(5) == 5
        assert f.seek(7, io.SEEK_CUR) == 12
        assert f.read(3) == data[12:15]
        assert f.seek(len(data) + 50) == len(data) + 50  # past the end: allowed
        assert f.read(5) == b""
        f.seek(100)
        assert f.readall() == data[100:]
        with pytest.raises(ValueError):
            f.seek(-1)
        with pytest.raises(ValueError):
            f.seek(0, 7)


def test_readinto(source):
    data = text_of(source)
    with lidx.open(source) as f:
        f.seek(1000)
        buf = bytearray(5000)
        assert f.readinto(buf) == 5000
        assert bytes(buf) == data[1000:6000]
        view = memoryview(bytearray(64))
        assert f.readinto(view[8:]) == 56
        assert view[8:].tobytes() == data[6000:6056]
        f.seek(len(data) - 3)
        assert f.readinto(buf) == 3
        assert bytes(buf[:3]) == data[-3:]
        assert f.readinto(buf) == 0


def test_readline_and_iteration_are_zcat(source):
    data = text_of(source)
    lines = split_lines(data)
    with lidx.open(source, spacing=256, span=4096) as f:
        assert list(f) == lines
        f.seek(0)
        assert f.readlines() == lines
        f.seek(3)
        assert f.readline() == lines[0][3:]
        assert f.readline() == lines[1]
        f.seek(0)
        assert f.readline(4) == lines[0][:4]
        # A line longer than the 8 KiB probe: its end comes from the index.
        long = next(i for i, l in enumerate(lines) if len(l) > 3000)
        f.seek_line(long + 1)
        assert f.readline() == lines[long]
        assert f.readline(0) == b""


def test_seek_line_and_tell_line(source):
    data = text_of(source)
    lines = split_lines(data)
    rng = random.Random(2)
    with lidx.open(source, spacing=256, span=4096) as f:
        for n in [1, len(lines)] + rng.sample(range(1, len(lines) + 1), 50):
            pos = f.seek_line(n)
            assert pos == sum(len(l) for l in lines[: n - 1])
            assert f.tell_line() == n
            assert f.readline() == lines[n - 1]
        assert f.seek_line(-1) == len(data) - len(lines[-1])
        f.seek(0, io.SEEK_END)
        assert f.tell_line() == len(lines) + 1
        with pytest.raises(lidx.OutOfRangeError):
            f.seek_line(len(lines) + 1)


def test_buffered_and_text_wrappers(source):
    data = text_of(source)
    raw = lidx.open(source)
    with io.BufferedReader(raw, buffer_size=8192) as b:
        b.seek(12345)
        assert b.read(100) == data[12345:12445]
        assert b.peek(1)[:1] == data[12445:12446]
        b.seek(0)
        assert b.read() == data
    assert raw.closed
    with io.TextIOWrapper(io.BufferedReader(lidx.open(source)), encoding="latin-1", newline="") as t:
        assert t.read() == data.decode("latin-1")


def test_index_open_shares_the_index(text):
    idx = lidx.Index(text)
    with idx.open() as f:
        assert f.index is idx
        f.seek_line(3)
        assert f.readline() == idx.line(3)
    assert not idx.closed  # the index is the caller's
    with pytest.raises(ValueError, match="mode"):
        lidx.open(text, "r")


def test_same_bytes_as_indexed_gzip(tmp_path, gz):
    """The drop-in: the same seeks and reads as indexed_gzip's
    IndexedGzipFile return the same bytes."""
    igzip = require_module("indexed_gzip")
    data = text_of(gz)
    rng = random.Random(4)
    # indexed_gzip's spacing must exceed its 32 KiB window.
    with lidx.open(gz, span=65536) as f, igzip.IndexedGzipFile(str(gz), spacing=65536) as g:
        g.build_full_index()
        for _ in range(200):
            off = rng.randrange(len(data))
            f.seek(off)
            g.seek(off)
            assert f.read(4096) == g.read(4096) == data[off : off + 4096]
