"""Index.grep against the command line (``lidx grep -n -b -E none``, which
is checked against ripgrep in the Rust tests) and against Python's ``re``."""

import gzip
import re

import pytest

import lidx
from conftest import run, sample_lines, split_lines, text_of


@pytest.fixture(params=["plain", "gzip"])
def source(request, text, gz):
    return text if request.param == "plain" else gz


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """About 20 MB of text (several 4 MiB chunks), plain and gzip."""
    d = tmp_path_factory.mktemp("big")
    data = b"".join(sample_lines(2, 250_000))
    plain = d / "big.log"
    plain.write_bytes(data)
    gz = d / "big.log.gz"
    gz.write_bytes(gzip.compress(data, 1))
    return plain, gz


def cli_grep(cli, path, pattern, *flags):
    """``lidx grep -n -b -E none`` as (line, offset, line bytes) tuples."""
    p = run(cli, "grep", "-n", "-b", "-E", "none", *flags, "-e", pattern, path, check=False)
    assert p.returncode in (0, 1), p.stderr
    out = []
    for rec in p.stdout.split(b"\n")[:-1]:
        n, off, body = rec.split(b":", 2)
        out.append((int(n), int(off), body))
    return out


def same(py, cli):
    """Python's lines keep their terminator; the command line's records end
    at it."""
    return [(n, o, l[:-1] if l.endswith(b"\n") else l) for n, o, l in py] == cli


FLAG_CASES = [
    ("ERROR", {}, []),
    ("error", {"ignore_case": True}, ["-i"]),
    ("kelvin", {"ignore_case": True}, ["-i"]),
    ("error", {"smart_case": True}, ["-S"]),
    ("ERROR", {"smart_case": True}, ["-S"]),
    ("payload=42", {"fixed_strings": True}, ["-F"]),
    ("beta", {"word_regexp": True}, ["-w"]),
    ("[a-z]+ beta", {"line_regexp": False}, []),
    ("alpha", {"invert_match": True}, ["-v"]),
    (r"a\r$", {"crlf": False}, []),
    ("timeout$", {"crlf": True}, ["--crlf"]),
    (r"\w+ \w+ ERROR", {"unicode": False}, ["--no-unicode"]),
]


@pytest.mark.parametrize("pattern,kw,flags", FLAG_CASES)
def test_flags_are_the_cli(source, lidx_cli, pattern, kw, flags):
    idx = lidx.Index(source, spacing=256, span=4096)
    got = list(idx.grep(pattern, **kw))
    assert same(got, cli_grep(lidx_cli, source, pattern, *flags))
    assert got, "the case should select lines"


@pytest.mark.parametrize("lines,arg", [((10, 20), "10:20"), ((2500, None), "2500:"), ((-100, -1), "$-99:$"), ((1, 1), "1")])
def test_ranges_are_the_cli(source, lidx_cli, lines, arg):
    idx = lidx.Index(source, spacing=256, span=4096)
    got = list(idx.grep("a", lines=lines))
    assert same(got, cli_grep(lidx_cli, source, "a", "--lines", arg))


def test_against_re(source):
    idx = lidx.Index(source, spacing=256, span=4096)
    lines = split_lines(text_of(source))
    offsets = [0]
    for l in lines:
        offsets.append(offsets[-1] + len(l))
    rx = re.compile(rb"time(out|s)")
    want = [(i + 1, offsets[i], l) for i, l in enumerate(lines) if rx.search(l.rstrip(b"\n"))]
    assert list(idx.grep("time(out|s)")) == want
    want_range = [w for w in want if 100 <= w[0] <= 1200]
    assert list(idx.grep(b"time(out|s)", lines=(100, 1200))) == want_range
    # Several patterns: any of them.
    both = [(i + 1, offsets[i], l) for i, l in enumerate(lines) if b"alpha" in l or b"beta" in l]
    assert list(idx.grep(["alpha", b"beta"])) == both


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_many_chunks_in_order(big, lidx_cli, which, threads):
    path = big[which]
    idx = lidx.Index(path)
    got = list(idx.grep("ERROR.*timeout", threads=threads))
    assert same(got, cli_grep(lidx_cli, path, "ERROR.*timeout"))
    assert len(got) > 10_000
    # max_count is exact in file order, whatever the workers.
    for m in (1, 7, 5000):
        assert list(idx.grep("ERROR.*timeout", max_count=m, threads=threads)) == got[:m]


def test_stop_early(big):
    idx = lidx.Index(big[0])
    it = idx.grep("a")
    first = [next(it) for _ in range(10)]
    assert [n for n, _, _ in first] == sorted(n for n, _, _ in first)
    it.close()
    assert list(it) == []
    for n, _, _ in idx.grep("a"):
        if n > 1000:
            break  # the search thread stops when the iterator is dropped
    assert len(list(idx.grep("ERROR", lines=(1, 100)))) > 0


def test_pattern_errors_are_the_cli(text, lidx_cli):
    idx = lidx.Index(text)
    for pattern in ["(", "a\\nb", "[z-a]"]:
        cli = run(lidx_cli, "grep", pattern, text, check=False)
        assert cli.returncode == 2
        with pytest.raises(lidx.InvalidArgumentError) as e:
            idx.grep(pattern)
        assert b"lidx: " + str(e.value).encode() + b"\n" == cli.stderr
    with pytest.raises(lidx.InvalidArgumentError, match="UTF-8"):
        idx.grep(b"\xff")
    with pytest.raises(TypeError):
        idx.grep(42)
