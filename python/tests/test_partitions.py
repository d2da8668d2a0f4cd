"""Index.partitions and the task reader that lidx.spark and lidx.dask
share (lidx._engines), without an engine: every row equals the file's
line as zcat / zstd -dc / cat give it, numbered from 1, for every kind
of file; a plan covers each line once; a time window equals the command
line's ``lines --since/--until``."""

import datetime as dt
import os

import pytest

from conftest import require_module, run
from engines_data import make_files, oracle_lines

import lidx
from lidx import _engines


@pytest.fixture(scope="module")
def files(tmp_path_factory, lidx_cli):
    return make_files(tmp_path_factory.mktemp("engines"), lidx_cli, lines=20_000)


def rows_of(tasks, binary=False):
    pa = require_module("pyarrow")
    out = []
    for t in tasks:
        for b in _engines.read_task(t, binary=binary):
            assert b.schema == _engines.arrow_schema(binary)
            d = b.to_pydict()
            out.extend(zip(d["path"], d["line"], d["text"]))
    return out


def expected_rows(path, binary=False):
    lines = oracle_lines(path)
    if binary:
        texts = [l for l in lines]
    else:
        texts = [l.decode("utf-8", "replace") for l in lines]
    return [(str(path), i + 1, t) for i, t in enumerate(texts)]


def test_every_kind_of_file_reads_exactly_in_many_partitions(files):
    for name, path in files.items():
        binary = name == "invalid-utf8.log"
        tasks = _engines.plan([str(path)], partition_bytes=100_000)
        idx = lidx.Index(path, build=False)
        parts = idx.partitions(100_000)
        assert [(t.first, t.last) for t in tasks] == [p.lines for p in parts]
        if idx.size > 400_000:
            assert len(parts) > 3, (name, parts)
        # Contiguous, covering, each text range the lines' bytes.
        assert parts[0].first == 1 and parts[-1].last == idx.line_count
        for a, b in zip(parts, parts[1:]):
            assert a.last + 1 == b.first and a.text_end == b.text_start
        for p in parts:
            assert idx.line_span(p.first)[0] == p.text_start
            assert idx.line_span(p.last)[1] == p.text_end
            assert p.source_start < p.source_end
        assert rows_of(tasks, binary) == expected_rows(path, binary), name
        if not binary:
            # Bytes mode too, and the invalid UTF-8 file in text mode.
            assert rows_of(tasks, True) == expected_rows(path, True), name
    bad = files["invalid-utf8.log"]
    assert rows_of(_engines.plan([str(bad)], partition_bytes=10_000)) == expected_rows(bad)


def test_a_gzip_partition_starts_after_its_own_access_point(files):
    idx = lidx.Index(files["app.gz"], build=False)
    points = idx.seek_points()
    parts = idx.partitions(1)
    assert len(parts) == len(points)
    for p, (text, comp) in zip(parts[1:], points[1:]):
        assert 0 <= p.text_start - text <= 4096 + 200
        assert p.source_start == comp
    assert parts[-1].source_end == os.path.getsize(files["app.gz"])


def test_time_bounds_and_windows_equal_the_command_line(files, lidx_cli):
    path = files["app.gz"]
    idx = lidx.Index(path, build=False)
    for p in idx.partitions(50_000):
        times = [t for _, _, t in _times(idx, p)]
        known = [t for t in times if t is not None]
        assert known and p.time_min <= min(known) and max(known) <= p.time_max
    since, until = "2026-11-20T00:20:00Z", "2026-11-20T00:35:00Z"
    want = run(lidx_cli, "lines", "--since", since, "--until", until, path).stdout
    tasks = _engines.plan([str(path)], partition_bytes=50_000, since=since, until=until)
    got = b"".join(t.encode() + b"\n" for _, _, t in rows_of(tasks))
    assert got == want and want
    # Time bounds, as pushed filters give them: a superset of the rows
    # whose time is inside, and fewer tasks than the whole.
    b = _engines.Bounds()
    lo = _engines.nanos(dt.datetime(2026, 11, 20, 0, 20, tzinfo=dt.timezone.utc))
    hi = _engines.nanos(dt.datetime(2026, 11, 20, 0, 35, tzinfo=dt.timezone.utc))
    b.times(lo, hi - 1)
    pruned = _engines.plan([str(path)], partition_bytes=50_000, bounds=b)
    whole = _engines.plan([str(path)], partition_bytes=50_000)
    assert 0 < len(pruned) < len(whole) / 3
    got = rows_of(pruned)
    assert [r[2].encode() + b"\n" for r in got if r[2]] and b"".join(
        r[2].encode() + b"\n" for r in got
    ).find(want) >= 0


def _times(idx, p):
    for first, n, data, offsets, t, valid in idx._batches(p.first, p.last, times=True):
        import array

        micros = array.array("q")
        micros.frombytes(t)
        for i in range(n):
            ok = valid is None or valid[i // 8] >> (i % 8) & 1
            yield first + i, None, (micros[i] * 1000 if ok else None)


def test_line_bounds_seek_inside_partitions(files):
    path = files["app.log"]
    b = _engines.Bounds()
    b.lines(1234, 5678)
    tasks = _engines.plan([str(path)], partition_bytes=100_000, bounds=b)
    assert tasks[0].first == 1234 and tasks[-1].last == 5678
    assert rows_of(tasks) == expected_rows(path)[1233:5678]


def test_paths_globs_and_directories(files, tmp_path):
    d = os.path.dirname(files["app.log"])
    every = _engines.expand(d)
    assert every == sorted(str(p) for p in files.values())
    assert _engines.expand(os.path.join(d, "*.gz")) == sorted(
        str(p) for n, p in files.items() if n.endswith(".gz")
    )
    assert _engines.expand(os.path.join(d, "{app,crlf}.log")) == [
        str(files["app.log"]),
        str(files["crlf.log"]),
    ]
    assert _engines.expand("file://" + str(files["app.log"])) == [str(files["app.log"])]
    assert _engines.expand(d, glob_filter="*.zst") == [str(files["packed.zst"])]
    with pytest.raises(lidx.NotFoundError):
        _engines.expand(os.path.join(d, "nothing-*.log"))


def test_a_file_without_a_fresh_sidecar_is_an_error_naming_it(tmp_path, files):
    p = tmp_path / "new.log"
    p.write_bytes(b"a\nb\n")
    with pytest.raises(lidx.NoSidecarError, match="new.log.*build_indexes"):
        _engines.plan([str(p)])
    assert [t.first for t in _engines.plan([str(p)], build=True)] == [1]
    p.write_bytes(b"a\nc\n")  # rewritten, same size
    os.utime(p, (1, 1))
    with pytest.raises(lidx.Error):
        rows_of(_engines.plan([str(p)]))


def test_sidecars_in_a_shared_directory(files, tmp_path):
    shared = tmp_path / "sidecars"
    shared.mkdir()
    src = tmp_path / "copy.gz"
    # Two members (`cat app.gz app.gz`): an access point at each member
    # start, so at least two partitions whatever the default span.
    src.write_bytes(files["app.gz"].read_bytes() * 2)
    path, sidecar, action = _engines.build(str(src), sidecar_dir=str(shared), time=True)
    assert os.path.dirname(sidecar) == str(shared) and action == "built"
    assert not os.path.exists(str(src) + ".lidx")
    tasks = _engines.plan([str(src)], partition_bytes=100_000, sidecar_dir=str(shared))
    # Built with the default span: one partition per access point.
    assert len(tasks) == len(lidx.Index(src, sidecar=sidecar, build=False).seek_points()) >= 2
    assert [r[1:] for r in rows_of(tasks)] == [r[1:] for r in expected_rows(src)]
