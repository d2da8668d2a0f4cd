"""Sample files of every kind the engine integrations must read exactly
(plain, gzip -6, pigz, multi-member gzip, BGZF, ``lidx pack`` zstd and
gzip, CRLF, no final newline, invalid UTF-8), with sidecars, and their
oracles: the lines as ``zcat -f`` / ``zstd -dc`` / ``cat`` give them,
numbered from 1. Shared by test_partitions.py, test_spark.py and
test_dask.py."""

import datetime as dt
import gzip
import os
import shutil
import subprocess
from pathlib import Path

from conftest import require, run


def log_text(lines: int, *, start=dt.datetime(2026, 11, 20, 0, 0, tzinfo=dt.timezone.utc), step_ms=250, crlf=False, tail=True) -> bytes:
    """An ISO-stamped log in time order, with stack-trace lines (no stamp)
    and words to filter on."""
    out = []
    t = start
    levels = ["INFO", "DEBUG", "WARN", "ERROR"]
    for i in range(lines):
        t += dt.timedelta(milliseconds=step_ms)
        if i % 17 == 5:
            line = f"    at com.example.Worker.run(Worker.java:{i % 400})"
        else:
            lvl = levels[(i * 7) % 4]
            msg = "request timeout after 30s" if i % 11 == 0 else f"handled id={i} bytes={(i * 131) % 9000}"
            line = f"{t.strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3]}Z {lvl} svc {msg}"
        out.append(line + ("\r\n" if crlf else "\n"))
    text = "".join(out).encode()
    if not tail:
        text = text.rstrip(b"\n")
    return text


def oracle_lines(path: Path) -> list:
    """The file's lines (without ``\\n``) as the system's tools decode it."""
    name = str(path)
    if name.endswith(".zst"):
        data = run(require("zstd"), "-dc", path).stdout
    else:
        data = run(require("zcat"), "-f", path).stdout
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def make_files(dirpath: Path, lidx_cli: Path, *, lines=40_000) -> dict:
    """Writes the sample files into ``dirpath`` and indexes each (small
    spacing and span, so that each splits into many partitions). Returns
    ``{name: path}``."""
    dirpath.mkdir(parents=True, exist_ok=True)
    text = log_text(lines)
    files = {}

    def put(name, data):
        p = dirpath / name
        p.write_bytes(data)
        files[name] = p
        return p

    put("app.log", text)
    put("app.gz", gzip.compress(text, 6))
    pigz = require("pigz")
    p = put("pigz.log", text)
    run(pigz, "-6", "-f", "-k", p)
    p.unlink()
    del files["pigz.log"]
    files["pigz.log.gz"] = dirpath / "pigz.log.gz"
    half = len(text) // 2
    cut = text.rindex(b"\n", 0, half) + 1
    put("multi.gz", gzip.compress(text[:cut], 6) + gzip.compress(text[cut:], 1))
    bgzip = require("bgzip")
    p = put("bgzf.log", text)
    run(bgzip, "-f", p)
    del files["bgzf.log"]
    files["bgzf.log.gz"] = dirpath / "bgzf.log.gz"
    put("crlf.log", log_text(lines // 4, crlf=True))
    put("notail.log", log_text(lines // 4, tail=False))
    bad = bytearray(log_text(2000))
    for k in range(100, len(bad), 997):
        if bad[k] != ord("\n"):
            bad[k] = 0xFF
    put("invalid-utf8.log", bytes(bad))
    src = put("packed.txt", text)
    for fmt in ("zst", "gz"):
        out = dirpath / f"packed.{fmt}"
        run(lidx_cli, "pack", "-q", "--format", fmt, "--frame", "65536", "-o", out, src)
        files[out.name] = out
    src.unlink()
    del files["packed.txt"]
    for name, p in files.items():
        run(lidx_cli, "index", "--time", "--tz", "UTC", "--spacing", "4096", "--span", "65536", p)
    return files
