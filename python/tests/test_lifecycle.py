"""Builds and their progress, growth (verdict, refresh, follow), sidecars
as bytes, the GIL, and silence."""

import gzip
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import lidx
from conftest import sample_lines, sed, split_lines, text_of


def sidecar(path):
    return str(path) + ".lidx"


# -- progress and cancellation -------------------------------------------


def test_progress_reports_bytes(tmp_path):
    path = tmp_path / "p.log"
    path.write_bytes(b"".join(sample_lines(3, 100_000)))
    calls = []
    idx = lidx.Index(path, progress=lambda d, t: calls.append((d, t)))
    assert idx.action == "built" and calls
    assert all(t == path.stat().st_size for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_cancel_writes_nothing(text, gz):
    for path in (text, gz):
        with pytest.raises(lidx.CancelledError):
            lidx.Index(path, progress=lambda d, t: False)
        assert not os.path.exists(sidecar(path))
        # None (a callable that returns nothing) goes on.
        assert lidx.Index(path, progress=lambda d, t: None).action == "built"
        before = open(sidecar(path), "rb").read()
        with pytest.raises(lidx.CancelledError):
            lidx.Index(path, force=True, spacing=128, progress=lambda d, t: False)
        assert open(sidecar(path), "rb").read() == before  # untouched


def test_callback_exceptions_propagate(text):
    class Stop(Exception):
        pass

    def boom(done, total):
        raise Stop("from the callback")

    with pytest.raises(Stop, match="from the callback"):
        lidx.Index(text, progress=boom)
    assert not os.path.exists(sidecar(text))


# -- growth: verdict and refresh -----------------------------------------


def test_append_then_refresh(text, gz, lidx_cli):
    for path in (text, gz):
        idx = lidx.Index(path, spacing=256, span=4096)
        n = idx.line_count
        assert idx.verdict == "unchanged" and idx.refresh() == "unchanged"
        if path.suffix == ".gz":
            with open(path, "ab") as f:
                f.write(gzip.compress(b" tail\nnew 1\nnew 2\n"))
        else:
            with open(path, "ab") as f:
                f.write(b" tail\nnew 1\nnew 2\n")
        assert idx.verdict == "appended"
        assert idx.line_count == n  # the index in use is a snapshot
        assert idx.refresh() == "appended"
        assert idx.action == "extended"
        assert idx.line_count == n + 2
        assert b"".join(idx.lines(n - 1, n + 2)) == sed(path, f"{n - 1},{n + 2}p")
        assert idx.verdict == "unchanged"


def test_rewrite_then_refresh(text):
    idx = lidx.Index(text)
    data = text.read_bytes()
    text.write_bytes(data[:1000] + b"CHANGED\n" + data[1008:])
    assert idx.verdict == "rewritten"
    assert idx.refresh() == "rewritten"
    assert idx.action == "rebuilt"
    assert b"CHANGED\n" in b"".join(idx.lines(1, 100))
    text.write_bytes(b"short\n")
    assert idx.verdict == "rewritten"
    assert idx.refresh() == "rewritten" and idx.line_count == 1


def test_touched_file_is_checked_once(text):
    idx = lidx.Index(text)
    st = text.stat()
    os.utime(text, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert idx.verdict == "unverified"
    assert idx.refresh() == "unchanged"
    assert idx.action == "verified"
    assert idx.verdict == "unchanged"  # that very file was checked
    st = text.stat()
    os.utime(text, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert idx.verdict == "unverified"  # touched again: not known


def test_refresh_without_build(text, lidx_cli):
    idx = lidx.Index(text, build=False) if os.path.exists(sidecar(text)) else None
    assert idx is None
    lidx.Index(text)
    idx = lidx.Index(text, build=False)
    with open(text, "ab") as f:
        f.write(b"\nmore\n")
    with pytest.raises(lidx.StaleError):
        idx.refresh()
    lidx.Index(text)  # another process brings the sidecar up to date
    assert idx.refresh() == "appended"
    assert idx.lines(-1, -1) == [b"more\n"]


# -- sidecars as bytes ---------------------------------------------------


@pytest.mark.parametrize("which", ["plain", "gzip"])
def test_bytes_round_trip(tmp_path, text, gz, which):
    path = text if which == "plain" else gz
    idx = lidx.Index(path, spacing=256, span=4096)
    blob = idx.to_bytes()
    assert blob == open(sidecar(path), "rb").read()
    copy_dir = tmp_path / "elsewhere"
    copy_dir.mkdir()
    copy = copy_dir / path.name
    shutil.copy(path, copy)  # another modification time: the content decides
    os.utime(copy, ns=(1, 1_000_000_000))
    loaded = lidx.Index.from_bytes(copy, blob)
    assert loaded.action == "loaded" and loaded.sidecar_path is None
    assert loaded.line_count == idx.line_count
    assert loaded.lines(1, 200) == idx.lines(1, 200)
    assert list(loaded.grep("ERROR")) == list(idx.grep("ERROR"))
    assert loaded.verdict == "unchanged" and loaded.refresh() == "unchanged"
    assert os.listdir(copy_dir) == [path.name]  # nothing written
    # A sidecar that does not describe the file: refused.
    with open(copy, "r+b") as f:
        f.seek(0, 2)
        f.write(b"grown\n" if which == "plain" else gzip.compress(b"grown\n"))
    with pytest.raises(lidx.StaleError):
        lidx.Index.from_bytes(copy, blob)
    with pytest.raises(lidx.SidecarError):
        lidx.Index.from_bytes(copy, b"garbage" * 1000)


# -- following growth ----------------------------------------------------


def test_follow(tmp_path):
    path = tmp_path / "f.log"
    path.write_bytes(b"one\ntwo\nthree\npart")
    idx = lidx.Index(path)
    fol = idx.follow()
    assert fol.next_line == 4 and fol.poll() == []
    with open(path, "ab") as f:
        f.write(b"ial\nfive")
    assert fol.poll() == [(4, b"partial\n")]
    with open(path, "ab") as f:
        f.write(b"\nsix\n")
    assert fol.poll() == [(5, b"five\n"), (6, b"six\n")]
    assert fol.poll() == []
    # Starting from the end, as tail -n 2 -f.
    back = idx.follow(-2)
    assert back.poll() == [(3, b"three\n")]  # "part" was not complete then
    assert back.poll() == [(4, b"partial\n"), (5, b"five\n"), (6, b"six\n")]
    # Rotation: the path replaced by a new file starts over at line 1.
    new = tmp_path / "f.log.new"
    new.write_bytes(b"fresh 1\nfresh 2\n")
    os.replace(new, path)
    assert fol.poll() == [(1, b"fresh 1\n"), (2, b"fresh 2\n")]
    assert fol.restarts == 1


def test_follow_backlog_in_pages(tmp_path):
    path = tmp_path / "many.log"
    lines = [b"%d\n" % i for i in range(1, 10_001)]
    path.write_bytes(b"".join(lines))
    fol = lidx.Index(path).follow(1)
    got = []
    while True:
        page = fol.poll()
        if not page:
            break
        assert len(page) <= 4096
        got += page
    assert got == [(i + 1, l) for i, l in enumerate(lines)]


def test_follow_iteration_waits(tmp_path):
    path = tmp_path / "w.log"
    path.write_bytes(b"a\n")
    fol = lidx.Index(path).follow(interval=0.05)

    def writer():
        time.sleep(0.3)
        with open(path, "ab") as f:
            f.write(b"b\nc\n")

    t = threading.Thread(target=writer)
    t.start()
    it = iter(fol)
    assert next(it) == (2, b"b\n")
    assert next(it) == (3, b"c\n")
    t.join()


# -- the GIL, and silence --------------------------------------------------


def test_gil_is_released_during_a_build(tmp_path):
    path = tmp_path / "big.log"
    data = b"".join(sample_lines(9, 300_000))
    path.write_bytes(data * 4)
    gzpath = tmp_path / "big.log.gz"
    gzpath.write_bytes(gzip.compress(data, 1))
    for p in (path, gzpath):
        ticks = 0
        done = threading.Event()

        def build():
            lidx.Index(p, force=True)
            done.set()

        t = threading.Thread(target=build)
        t.start()
        start = time.perf_counter()
        while not done.is_set():
            ticks += 1
        elapsed = time.perf_counter() - start
        t.join()
        # With the GIL held by the build, this loop could not run at all.
        assert elapsed > 0.02 and ticks > 10_000, (elapsed, ticks)


def test_nothing_on_stdout_or_stderr(tmp_path):
    rnd = tmp_path / "random.bin"
    rnd.write_bytes(os.urandom(300_000))
    cut = tmp_path / "cut.log.gz"
    whole = gzip.compress(b"".join(sample_lines(4, 20_000)))
    cut.write_bytes(whole[: len(whole) // 2])
    plain = tmp_path / "p.log"
    plain.write_bytes(b"".join(sample_lines(5, 20_000)))
    script = textwrap.dedent(
        f"""
        import lidx
        i = lidx.Index({str(rnd)!r}); i.lines(1, 3); assert i.warning
        d = lidx.Index({str(cut)!r}); d.lines(1, 3); list(d.grep("a", lines=(1, 100)))
        try:
            d.line_count
        except lidx.SourceError:
            pass
        p = lidx.Index({str(plain)!r}); list(p.grep("ERROR")); p.lines(-5, -1)
        open({str(plain)!r}, "ab").write(b"x\\n"); p.refresh()
        open({str(plain)!r}, "wb").write(b"y\\n"); p.refresh()
        f = lidx.open({str(plain)!r}); f.read(); f.close()
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == b"" and out.stderr == b""
