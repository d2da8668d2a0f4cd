"""Fixtures: sample texts (plain and gzip) and the oracles the tests check
lidx against: ``sed``, ``zcat``, ``grep``, ``tail``, Python's ``gzip``
module, and the ``lidx`` command line.

An oracle tool that is missing skips its test, unless ``LIDX_REQUIRE_TOOLS``
is set (as in CI): then it fails.
"""

import gzip
import importlib
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def require(tool: str) -> str:
    """The path of ``tool``, or skip (fail in CI) when it is missing."""
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("LIDX_REQUIRE_TOOLS"):
            pytest.fail(f"{tool} not found (LIDX_REQUIRE_TOOLS is set)")
        pytest.skip(f"{tool} not found")
    return path


def require_module(name: str):
    """The module ``name``, or skip (fail in CI) when it is not installed."""
    if os.environ.get("LIDX_REQUIRE_TOOLS"):
        return importlib.import_module(name)
    return pytest.importorskip(name)


def run(*args, check=True, input=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, check=check, input=input
    )


@pytest.fixture(scope="session")
def lidx_cli() -> Path:
    """The lidx command line: ``$LIDX_BIN``, else the workspace's release
    build, else its debug build."""
    env = os.environ.get("LIDX_BIN")
    candidates = [Path(env)] if env else []
    candidates += [REPO / "target" / "release" / "lidx", REPO / "target" / "debug" / "lidx"]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    if os.environ.get("LIDX_REQUIRE_TOOLS"):
        pytest.fail("the lidx command line is not built (cargo build --release -p lidx-cli)")
    pytest.skip("the lidx command line is not built")


def sample_lines(seed: int, n: int) -> list:
    """``n`` lines of every kind lidx must count exactly: empty lines,
    CRLF, NUL and invalid UTF-8 bytes, lines longer than a small spacing,
    words to search for."""
    rng = random.Random(seed)
    words = ["alpha", "beta", "ERROR", "error", "timeout", "Kelvin", "\u212a", "payload=42"]
    out = []
    for i in range(n):
        kind = rng.random()
        if kind < 0.05:
            line = b""
        elif kind < 0.08:
            line = b"x" * rng.randrange(300, 5000)  # longer than the spacing
        elif kind < 0.10:
            line = bytes([0, 0xFF, 0xFE, ord("a")]) + b"\r"
        else:
            parts = [rng.choice(words) for _ in range(rng.randrange(1, 8))]
            line = f"{i:06d} ".encode() + " ".join(parts).encode()
            if rng.random() < 0.1:
                line += b"\r"
        out.append(line + b"\n")
    return out


@pytest.fixture
def text(tmp_path) -> Path:
    """A plain text of 3,000 lines whose last line has no newline."""
    lines = sample_lines(1, 3000)
    lines[-1] = lines[-1].rstrip(b"\n")
    p = tmp_path / "sample.log"
    p.write_bytes(b"".join(lines))
    return p


@pytest.fixture
def gz(tmp_path, text) -> Path:
    """The same text as a gzip archive of two members (as ``cat a.gz b.gz``)."""
    data = text.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    p = tmp_path / "sample.log.gz"
    p.write_bytes(gzip.compress(data[:cut], 6) + gzip.compress(data[cut:], 6))
    return p


def zcat(path: Path) -> bytes:
    return run(require("zcat"), path).stdout


def text_of(path: Path) -> bytes:
    """The text lidx indexes: ``zcat``'s output for an archive."""
    return zcat(path) if path.suffix == ".gz" else path.read_bytes()


def sed(path: Path, script: str) -> bytes:
    """``sed -n SCRIPT`` of the file's text (through ``zcat`` for gzip)."""
    sed_bin = require("sed")
    if path.suffix == ".gz":
        return run(sed_bin, "-n", script, input=zcat(path)).stdout
    return run(sed_bin, "-n", script, path).stdout


def split_lines(data: bytes) -> list:
    """The lines of ``data`` as lidx counts them: split after each ``\\n``;
    a last line without one is a line; ``\\r`` is content."""
    lines = [l + b"\n" for l in data.split(b"\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


EPOCH = __import__("datetime").datetime(1970, 1, 1, tzinfo=__import__("datetime").timezone.utc)


def iso(ns: int) -> str:
    """``ns`` (nanoseconds since the epoch) as an ISO 8601 stamp with
    milliseconds and ``Z``, written by Python's ``datetime``."""
    import datetime

    t = EPOCH + datetime.timedelta(microseconds=ns // 1000)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def line_times(lines: list) -> list:
    """The time of each line as lidx defines it, read by Python's
    ``datetime``: a line that starts with an ISO 8601 stamp has its time
    (nanoseconds since the epoch); another line has the last stamp's
    before it; lines before the first stamp have None."""
    import datetime

    out, last = [], None
    for line in lines:
        head = line[:24].decode("ascii", "replace")
        try:
            t = datetime.datetime.fromisoformat(head.replace("Z", "+00:00"))
            last = (t - EPOCH) // datetime.timedelta(microseconds=1) * 1000
        except ValueError:
            pass
        out.append(last)
    return out
