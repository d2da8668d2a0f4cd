"""Index queries against sed, zcat, grep -c, tail and the command line."""

import random

import pytest

import lidx
from conftest import require, run, sed, split_lines, text_of


@pytest.fixture(params=["plain", "gzip"])
def source(request, text, gz):
    return text if request.param == "plain" else gz


def small_index(path, **kw):
    """An index with a checkpoint every few lines and, for gzip, an access
    point every 4 KiB of text: every lookup crosses checkpoints and spans."""
    return lidx.Index(path, spacing=256, span=4096, **kw)


def test_line_count_is_grep_c(source):
    idx = small_index(source)
    count = run(require("grep"), "-a", "-c", "", input=text_of(source)).stdout
    assert idx.line_count == int(count)
    assert idx.size == len(text_of(source))
    assert idx.is_gzip == (source.suffix == ".gz")
    assert idx.action == "built"
    assert lidx.Index(source).action == "opened"


def test_lines_are_sed(source):
    idx = small_index(source)
    n = idx.line_count
    rng = random.Random(7)
    cases = [(1, 1), (1, n), (n, n), (n - 1, n), (2, 3), (1, 10)]
    cases += [tuple(sorted(rng.sample(range(1, n + 1), 2))) for _ in range(40)]
    for a, b in cases:
        got = idx.lines(a, b)
        assert len(got) == b - a + 1
        assert b"".join(got) == sed(source, f"{a},{b}p"), (a, b)
    # Each element is one line with its terminator.
    for line in idx.lines(1, 50):
        assert line.count(b"\n") == 1 and line.endswith(b"\n")


def test_lines_outside_the_file(source):
    idx = small_index(source)
    n = idx.line_count
    assert b"".join(idx.lines(n - 2, n + 100)) == sed(source, f"{n - 2},$p")
    assert idx.lines(n + 1, n + 5) == []
    # A final line without a newline is still a line.
    assert not idx.lines(n, n)[0].endswith(b"\n")


def test_negative_numbers_count_from_the_end(source):
    idx = small_index(source)
    n = idx.line_count
    tail = require("tail")
    data = text_of(source)
    for k in (1, 2, 10, 500):
        assert b"".join(idx.lines(-k, -1)) == run(tail, "-n", k, input=data).stdout, k
    assert idx.line(-1) == idx.line(n)
    assert idx.lines(-3, 2) == []  # from each side: selects nothing
    assert b"".join(idx.lines(-(n + 50), 3)) == sed(source, "1,3p")  # tail -n N+50 | head -3


def test_line_and_span_against_the_text(source):
    idx = small_index(source)
    data = text_of(source)
    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 0x0A and i + 1 < len(data)]
    rng = random.Random(3)
    for n in [1, 2, len(starts)] + rng.sample(range(1, len(starts) + 1), 60):
        start = starts[n - 1]
        end = starts[n] if n < len(starts) else len(data)
        assert idx.line_span(n) == (start, end)
        assert idx.line(n) == data[start:end]
        assert idx.line_at(start) == n
        assert idx.line_at(end - 1) == n
        assert idx.read_at(start, end - start) == data[start:end]


def test_line_at_is_the_cli(source, lidx_cli):
    idx = small_index(source)
    size = idx.size
    rng = random.Random(5)
    for off in [0, 1, size - 1] + rng.sample(range(size), 25):
        out = run(lidx_cli, "line-at", "-q", source, off).stdout
        assert idx.line_at(off) == int(out), off


def test_read_at_is_the_text(source):
    idx = small_index(source)
    data = text_of(source)
    rng = random.Random(11)
    for _ in range(100):
        off = rng.randrange(len(data) + 10)
        size = rng.choice([0, 1, 100, 4096, 20000])
        assert idx.read_at(off, size) == data[off : off + size]


def test_bad_line_numbers(source):
    idx = small_index(source)
    n = idx.line_count
    with pytest.raises(lidx.InvalidArgumentError, match="line numbers start at 1"):
        idx.line(0)
    with pytest.raises(lidx.InvalidArgumentError, match="the end is before the start"):
        idx.lines(5, 3)
    with pytest.raises(lidx.InvalidArgumentError, match="the end is before the start"):
        idx.lines(-1, -3)
    with pytest.raises(lidx.OutOfRangeError) as e:
        idx.line_span(n + 1)
    assert str(e.value) == f"{source}: line {n + 1} is past the end (the file has {n} lines, {idx.size} bytes)"
    assert isinstance(e.value, IndexError)
    with pytest.raises(IndexError, match="before the first line"):
        idx.line(-(n + 1))


def test_info_is_the_cli(source, lidx_cli):
    import json

    idx = small_index(source)
    info = idx.info()
    cli = json.loads(run(lidx_cli, "info", "--json", source).stdout)
    for key, value in cli.items():
        assert info[key] == value, key
    assert info["action"] == "built" and info["damage"] is None
    assert idx.sidecar_path == str(source) + ".lidx"
    report = idx.verify(full=True)
    assert report == {"pages": info["pages"], "checkpoints": info["checkpoints"], "verdict": "unchanged", "full": True}


def test_close_and_context_manager(text):
    with lidx.Index(text) as idx:
        assert not idx.closed
        assert "3000 lines" in repr(idx)
    assert idx.closed
    with pytest.raises(ValueError, match="closed"):
        idx.line_count
    with pytest.raises(ValueError):
        idx.lines(1, 2)


def test_threads_share_one_index(source):
    from concurrent.futures import ThreadPoolExecutor

    idx = lidx.Index(source, spacing=256, span=4096, cache_mb=0)
    data = text_of(source)
    lines = split_lines(data)

    def check(seed):
        rng = random.Random(seed)
        for _ in range(200):
            a = rng.randrange(1, len(lines) + 1)
            b = min(len(lines), a + rng.randrange(5))
            assert idx.lines(a, b) == lines[a - 1 : b]
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(check, range(16)))


def test_info_of_a_time_index_is_the_cli(tmp_path, lidx_cli):
    """A sidecar built with ``lidx index --time`` (the Python API opens it
    and reads its time index's description as ``lidx info --json``)."""
    import json

    log = tmp_path / "stamped.log"
    log.write_bytes(b"".join(
        b"2026-11-%02dT10:00:%02dZ event %d\n" % (1 + i // 60, i % 60, i) for i in range(600)
    ))
    run(lidx_cli, "index", "-q", "--time", "--tz", "UTC", log)
    cli = json.loads(run(lidx_cli, "info", "--json", log).stdout)
    with lidx.Index(log, build=False) as idx:
        info = idx.info()
    for key, value in cli.items():
        assert info[key] == value, key
    assert info["time"] == {
        "format": "iso8601", "detected": True, "zone": "UTC",
        "first": "2026-11-01T10:00:00Z", "last": "2026-11-10T10:00:59Z",
    }


def test_packed_zstd_archive_is_its_text(tmp_path, text, lidx_cli):
    """An archive of ``lidx pack`` (seekable zstd): the lines are those of
    ``zstd -dc``'s output, and ``info()`` is the command line's."""
    import json

    out = tmp_path / "sample.log.zst"
    run(lidx_cli, "pack", "-q", "--frame", "8192", "-o", out, text)
    data = run(require("zstd"), "-dc", out).stdout
    assert data == text.read_bytes()
    idx = lidx.Index(out)
    assert idx.action == "opened" and not idx.is_gzip
    lines = split_lines(data)
    assert idx.line_count == len(lines) and idx.size == len(data)
    rng = random.Random(3)
    for _ in range(50):
        a = rng.randrange(1, len(lines) + 1)
        b = min(len(lines), a + rng.randrange(30))
        assert idx.lines(a, b) == lines[a - 1 : b]
    info = idx.info()
    cli = json.loads(run(lidx_cli, "info", "--json", out).stdout)
    for key, value in cli.items():
        assert info[key] == value, key
    assert info["gzip"] is None
    assert info["zstd"]["frames"] > 1
    assert info["zstd"]["compressed_size"] == out.stat().st_size
