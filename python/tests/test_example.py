"""examples/viewer.py, the viewer loop written from the docstrings, run as
a user runs it: every line it shows is the line ``sed`` prints under that
number, its search finds what ``grep -n -m1`` finds after the cursor, and
its follow prints the lines appended while it runs."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import require, run, sed

VIEWER = Path(__file__).resolve().parents[1] / "examples" / "viewer.py"


def shown(out: bytes) -> list:
    """The (number, line) pairs the viewer printed."""
    pairs = []
    for row in out.split(b"\n"):
        if row and not row.startswith(b"== "):
            n, line = row.split(b"\t", 1)
            pairs.append((int(n), line + b"\n"))
    return pairs


@pytest.fixture(params=["plain", "gzip"])
def source(request, text, gz):
    return text if request.param == "plain" else gz


def test_viewer_lines_are_sed(source):
    args = ["--goto", "1234", "--page", "15", "--search", "Kelvin", "--scroll", "0.7"]
    out = run(sys.executable, VIEWER, source, *args).stdout
    pairs = shown(out)
    assert len(pairs) >= 15 * 4
    for n, line in pairs:
        # The viewer adds a newline to a last line without one.
        assert sed(source, f"{n}p").rstrip(b"\n") == line.rstrip(b"\n"), n
    header = [r for r in out.split(b"\n") if r.startswith(b"== search")][0]
    grep_bin = require("grep")
    text = sed(source, "1234,$p")  # the search starts at the page shown before it
    first = run(grep_bin, "-a", "-n", "-m1", "Kelvin", input=text).stdout.split(b":")[0]
    assert header.endswith(b"line %d" % (1233 + int(first)))


def test_viewer_follows(tmp_path):
    log = tmp_path / "grow.log"
    log.write_bytes(b"".join(b"line %d\n" % i for i in range(1, 101)))
    p = subprocess.Popen(
        [sys.executable, VIEWER, log, "--page", "1", "--follow", "4"],
        stdout=subprocess.PIPE,
    )
    time.sleep(1.5)
    with open(log, "ab") as f:
        f.write(b"line 101\nline 102\nline 1")
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 0
    follow = out.split(b"== follow\n", 1)[1]
    assert shown(follow) == [(101, b"line 101\n"), (102, b"line 102\n")]
