"""Every way of opening × every state of a sidecar: an answer equal to a
naive model of the file's bytes, or the exception that says why; never an
answer about bytes the sidecar does not describe (issue 21, items 1 and
3)."""

import gzip
import os
import shutil

import pytest

import lidx

CASES = ["unchanged", "appended", "rewritten", "foreign", "touched", "moved"]
MODES = ["build", "no-build", "force", "from-bytes"]


def text(word, n):
    return b"".join(
        f"{word} {i:06d} {'x' * (i % 23)}\n".encode() for i in range(1, n + 1)
    )


def split_nl(b):
    """Lines as lidx counts them: ends at ``\n`` only."""
    parts = [p + b"\n" for p in b.split(b"\n")]
    parts[-1] = parts[-1][:-1]
    return parts if parts[-1] else parts[:-1]


def prepare(tmp_path, case):
    """Sets up ``case``; returns b.log's path, its bytes now, and the bytes
    of its sidecar as first built (for ``from_bytes``)."""
    b = tmp_path / "b.log"
    original = text("bravo-bravo", 8000)
    if case == "foreign":
        a = tmp_path / "a.log"
        a.write_bytes(text("alpha", 6000))
        lidx.Index(a).close()
        shutil.copy(str(a) + ".lidx", str(b) + ".lidx")
        b.write_bytes(original)
        return b, original, open(str(b) + ".lidx", "rb").read()
    b.write_bytes(original)
    os.utime(b, (1_000_000_000, 1_000_000_000))
    lidx.Index(b).close()
    side = open(str(b) + ".lidx", "rb").read()
    now = original
    if case == "appended":
        now = original + b"appended one\nappended two\n"
    elif case == "rewritten":
        now = text("charlie", 7000)
    elif case == "moved":
        # Same size, one more line: a digit in the middle becomes a newline.
        at = original.index(b"0", len(original) // 2)
        now = original[:at] + b"\n" + original[at + 1 :]
    if case != "unchanged":
        b.write_bytes(now)
        os.utime(b, (1_000_000_060, 1_000_000_060))
    return b, now, side


def expected(mode, case):
    """None: answers about the file as it is; else the exception class."""
    if mode == "force" or case == "unchanged":
        return None
    if case == "foreign":
        return lidx.SidecarError
    if mode == "build":
        return None
    if case == "touched":
        return None
    return lidx.StaleError


def open_as(mode, path, side):
    if mode == "build":
        return lidx.Index(path)
    if mode == "no-build":
        return lidx.Index(path, build=False)
    if mode == "force":
        return lidx.Index(path, force=True)
    return lidx.Index.from_bytes(path, side)


def check_answers(idx, now):
    model = split_nl(now)
    starts = [0]
    for line in model:
        starts.append(starts[-1] + len(line))
    n = idx.line_count
    assert n == len(model)
    for k in (1, 2, n // 3, n // 2, n):
        assert idx.line(k) == model[k - 1]
        assert idx.line_span(k) == (starts[k - 1], starts[k])
        assert idx.line_at(starts[k - 1] + len(model[k - 1]) // 2) == k
        assert idx.lines(k, min(k + 2, n)) == model[k - 1 : min(k + 2, n)]
    hits = [m[0] for m in idx.grep("0042")]
    assert hits == [i + 1 for i, line in enumerate(model) if b"0042" in line]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("mode", MODES)
def test_every_mode_and_state(tmp_path, mode, case):
    path, now, side = prepare(tmp_path, case)
    want = expected(mode, case)
    if want is None:
        with open_as(mode, path, side) as idx:
            check_answers(idx, now)
    else:
        with pytest.raises(want):
            open_as(mode, path, side)


@pytest.mark.parametrize("case", ["appended", "rewritten", "moved"])
def test_a_held_index_after_a_change(tmp_path, case):
    """An index opened fresh, then the file changes under it: ``verdict``
    says so, and ``refresh`` brings it up to date with exact answers."""
    path, _, _ = prepare(tmp_path, "unchanged")
    original = path.read_bytes()
    with lidx.Index(path) as idx:
        now = {
            "appended": original + b"appended one\n",
            "rewritten": text("charlie", 7000),
            "moved": original.replace(b"0", b"\n", 1),
        }[case]
        path.write_bytes(now)
        os.utime(path, (1_000_000_120, 1_000_000_120))
        assert idx.verdict == ("appended" if case == "appended" else "rewritten")
        idx.refresh()
        check_answers(idx, now)


def test_plain_is_an_explicit_choice(tmp_path):
    """Item 3: asked for the bytes, an archive's sidecar is refused and left
    as it was; force rebuilds it over the bytes."""
    path = tmp_path / "app.log.gz"
    body = text("gz", 3000)
    path.write_bytes(gzip.compress(body))
    with lidx.Index(path) as idx:
        assert idx.line_count == 3000
    side = open(str(path) + ".lidx", "rb").read()
    for kwargs in ({}, {"build": False}):
        with pytest.raises(lidx.InvalidArgumentError, match="gzip archive"):
            lidx.Index(path, plain=True, **kwargs)
        assert open(str(path) + ".lidx", "rb").read() == side
    raw = path.read_bytes()
    with lidx.Index(path, plain=True, force=True) as idx:
        assert idx.size == len(raw)
        assert idx.line_count == len(split_nl(raw))
        assert idx.line(1) == split_nl(raw)[0]


# -- issue 21, item 18: arguments, and what an indexed_gzip user looks for


def test_bad_numbers_name_their_argument(tmp_path):
    path = tmp_path / "n.log"
    path.write_bytes(text("n", 100))
    idx = lidx.Index(path)
    for call, name in [
        (lambda: idx.line_at(-1), "offset"),
        (lambda: idx.read_at(-5, 10), "offset"),
        (lambda: idx.read_at(0, -1), "size"),
        (lambda: idx.line_at(2**70), "offset"),
        (lambda: lidx.Index(path, cache_mb=-1), "cache_mb"),
        (lambda: lidx.Index(path, spacing=-2), "spacing"),
        (lambda: idx.line(2**70), "line number"),
        (lambda: list(idx.grep("x", max_count=-1)), "max_count"),
    ]:
        with pytest.raises(lidx.InvalidArgumentError, match=name):
            call()
    with pytest.raises(TypeError, match="offset must be an int"):
        idx.line_at("7")
    # 0 is the default spacing, as in the C ABI.
    with lidx.Index(path, force=True, spacing=0) as i:
        assert i.info()["spacing"] == 65536


def test_paths_as_str_bytes_and_pathlike(tmp_path):
    path = tmp_path / "p.log"
    path.write_bytes(text("p", 10))
    for p in (str(path), os.fsencode(str(path)), path):
        with lidx.Index(p) as idx:
            assert idx.line(3) == split_nl(path.read_bytes())[2]
    with pytest.raises(TypeError, match="str, bytes or os.PathLike, not int"):
        lidx.Index(123)


def test_indexed_gzip_habits(tmp_path):
    """fileobj=, seek_points(), export_index() and index_file=, as an
    indexed_gzip user reaches for them."""
    path = tmp_path / "g.log.gz"
    body = text("g", 60_000)
    path.write_bytes(gzip.compress(body))
    with open(path, "rb") as raw, lidx.open(fileobj=raw, span=256 * 1024) as f:
        points = f.seek_points()
        assert points[0] == (0, 10) and len(points) >= 4
        assert [p[0] for p in points] == sorted(p[0] for p in points)
        # Each point is where reading can start: the text there is the text.
        for u, _ in points:
            f.seek(u)
            assert f.read(50) == body[u : u + 50]
        exported = tmp_path / "elsewhere.idx"
        f.export_index(exported)
    assert exported.read_bytes() == open(str(path) + ".lidx", "rb").read()
    os.remove(str(path) + ".lidx")
    with lidx.open(path, index_file=exported, build=False) as f:
        f.seek_line(40_000)
        assert f.readline() == split_nl(body)[39_999]
    assert not os.path.exists(str(path) + ".lidx")
    # Plain files: checkpoints, offset twice.
    plain = tmp_path / "p.log"
    plain.write_bytes(body)
    with lidx.Index(plain) as idx:
        pts = idx.seek_points()
        assert pts[0] == (0, 0) and all(a == b for a, b in pts)
        assert all(body[a - 1 : a] == b"\n" for a, _ in pts[1:])
    import io as _io

    with pytest.raises(TypeError, match="by its path"):
        lidx.open(fileobj=_io.BytesIO(b"x\n"))
