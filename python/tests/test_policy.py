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
