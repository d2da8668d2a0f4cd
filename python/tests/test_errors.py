"""Errors are exceptions whose messages are the command line's, exactly:
each case runs the ``lidx`` binary and compares its stderr (after
``lidx: ``) with ``str()`` of the exception raised for the same request."""

import gzip
import os
import shutil

import pytest

import lidx
from conftest import run


def cli_error(cli, *args, status=2):
    p = run(cli, *args, check=False)
    assert p.returncode == status, p
    err = p.stderr.decode()
    assert err.startswith("lidx: ") and err.endswith("\n") and err.count("\n") == 1, err
    return err[len("lidx: ") : -1]


def raised(exc_type, fn, *args, **kw):
    with pytest.raises(exc_type) as e:
        fn(*args, **kw)
    return e.value


def test_missing_file(tmp_path, lidx_cli):
    path = tmp_path / "nope.log"
    e = raised(lidx.NotFoundError, lidx.Index, path)
    assert str(e) == cli_error(lidx_cli, "count", path)
    assert isinstance(e, FileNotFoundError) and isinstance(e, lidx.FileError)
    assert e.errno == 2 and e.filename == str(path) and e.strerror == "No such file or directory"
    assert str(raised(FileNotFoundError, lidx.open, path)) == str(e)


def test_directory(tmp_path, lidx_cli):
    # `lidx count DIR` walks the directory (as `lidx grep` does); `lines`
    # takes one file, as an Index does.
    e = raised(lidx.Error, lidx.Index, tmp_path)
    assert str(e) == cli_error(lidx_cli, "lines", tmp_path, "1")


def test_no_sidecar_without_build(text, gz, lidx_cli):
    for path in (text, gz):
        e = raised(lidx.NoSidecarError, lidx.Index, path, build=False)
        assert str(e) == cli_error(lidx_cli, "count", "--no-build", path)
        assert not os.path.exists(str(path) + ".lidx")


def test_stale_without_build(text, lidx_cli):
    lidx.Index(text)
    with open(text, "ab") as f:
        f.write(b"\nmore\n")
    e = raised(lidx.StaleError, lidx.Index, text, build=False)
    assert str(e) == cli_error(lidx_cli, "count", "--no-build", text)
    assert "appended to" in str(e)


def test_not_a_sidecar(text, tmp_path, lidx_cli):
    junk = tmp_path / "junk.lidx"
    junk.write_bytes(b"not a sidecar at all\n" * 300)
    e = raised(lidx.SidecarError, lidx.Index, text, sidecar=junk)
    assert str(e) == cli_error(lidx_cli, "count", "--index", junk, text)
    assert junk.read_bytes() == b"not a sidecar at all\n" * 300  # never overwritten


def test_checksum_mismatch(text, lidx_cli):
    lidx.Index(text, spacing=64)
    side = str(text) + ".lidx"
    data = bytearray(open(side, "rb").read())
    data[len(data) - 100] ^= 0x40  # a byte of the last page
    open(side, "wb").write(bytes(data))
    n = lidx.Index(text, build=False).line_count
    idx = lidx.Index(text, build=False)
    # The damaged page is read when a lookup reaches it: the last lines.
    e = raised(lidx.SidecarError, idx.lines, n - 3, n)
    assert str(e) == cli_error(lidx_cli, "lines", "--no-build", text, f"{n - 3}:{n}")
    assert "checksum mismatch" in str(e)


def test_foreign_sidecar(tmp_path, text, lidx_cli):
    lidx.Index(text)
    other = tmp_path / "other.log"
    other.write_bytes(b"something else entirely\n" * 10)
    shutil.copy(str(text) + ".lidx", str(other) + ".lidx")
    e = raised(lidx.SidecarError, lidx.Index, other)
    assert str(e) == cli_error(lidx_cli, "count", other)


def test_other_compression(tmp_path, lidx_cli):
    z = tmp_path / "data.zst"
    z.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 40)
    e = raised(lidx.SourceError, lidx.Index, z)
    assert str(e) == cli_error(lidx_cli, "count", z)
    assert lidx.Index(z, plain=True).size == z.stat().st_size


def test_offset_past_the_end(text, lidx_cli):
    idx = lidx.Index(text)
    off = idx.size + 5
    e = raised(lidx.OutOfRangeError, idx.line_at, off)
    assert str(e) == cli_error(lidx_cli, "line-at", text, off, status=1)
    assert isinstance(e, IndexError) and e.lines == idx.line_count and e.size == idx.size


def test_truncated_archive(tmp_path, text, lidx_cli):
    """A gzip archive cut short: its complete lines read (as zcat), the rest
    is an error naming the damage; nothing is written, nothing printed."""
    whole = gzip.compress(text.read_bytes(), 6)
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    idx = lidx.Index(cut)
    assert idx.action == "damaged" and idx.sidecar_path is None
    assert not os.path.exists(str(cut) + ".lidx")
    e = raised(lidx.SourceError, lambda: idx.line_count)
    assert str(e) == cli_error(lidx_cli, "count", cut)
    assert idx.damage and idx.damage in str(e)
    readable = e.lines
    assert readable > 100
    assert b"".join(idx.lines(1, 50)) == run(lidx_cli, "lines", cut, "1:50").stdout
    assert idx.lines(readable, readable)
    # Past the readable lines, or counting from the unknown end: errors.
    e = raised(lidx.SourceError, idx.lines, readable, readable + 1)
    assert str(e) == str(raised(lidx.SourceError, lambda: idx.line_count))
    e = raised(lidx.SourceError, idx.lines, -5, -1)
    assert str(e) == cli_error(lidx_cli, "lines", cut, "$-4:$").replace('range "$-4:$"', "range (-5, -1)")
    # A search reports the readable lines' matches, then the damage.
    it = idx.grep("ERROR")
    found = []
    with pytest.raises(lidx.SourceError):
        for m in it:
            found.append(m)
    assert found and all(n <= readable for n, _, _ in found)
    assert list(idx.grep("ERROR", lines=(1, 100))) == [m for m in found if m[0] <= 100]
    with lidx.open(cut) as f:
        f.seek(0)
        assert f.read(100) == text.read_bytes()[:100]
        with pytest.raises(lidx.SourceError):
            f.read()


def test_cancelled_message(text):
    e = raised(lidx.CancelledError, lidx.Index, text, progress=lambda d, t: False)
    assert str(e) == f"{text}: cancelled; nothing was written"


def test_a_bucket_listing_names_its_cause(monkeypatch):
    """A listing (what the engines do with ``s3://bucket/prefix/``) that
    cannot connect says why, from the client's causes, not its top-level
    words ("error sending request")."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for k, v in {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_REGION": "us-east-1",
        "LIDX_RETRIES": "0",
    }.items():
        monkeypatch.setenv(k, v)
    e = raised(lidx.RemoteError, lidx._lidx._list_objects, "s3://bucket/logs/")
    assert str(e).startswith("s3://bucket/logs/: "), e
    assert "connection refused" in str(e), e
