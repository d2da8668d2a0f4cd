"""Random access into a gzip archive: ``lidx.open`` against
``indexed_gzip.IndexedGzipFile``, each with its index built, at the same
spacing of access points.

    python python/bench/seek_gzip.py ARCHIVE.gz [--text PLAIN] [--span BYTES]

Measures, for each:

1. the index build (one pass over the archive; median of ``--build-runs``)
   and the index's size on disk: lidx's sidecar, indexed_gzip's exported
   index (``export_index``);
2. ``--seeks`` random ``seek(offset)`` + ``read(--size)`` on a file opened
   with that index (median of ``--runs`` passes over the same offsets, each
   on a newly opened file, the open and the index's load timed apart), warm
   page cache.

indexed_gzip is timed twice: as ``IndexedGzipFile`` gives it (an
``io.BufferedReader`` whose buffer is 4 × spacing, so every read after a
seek decodes that much) and with ``buffer_size=SIZE`` (what a caller who
reads 4 KiB at random offsets would set).

Every variant's answers are checked before anything is timed: against the
plain text (``--text``, read with ``os.pread``) when given, else against
one another.

Needs ``pip install ./python indexed_gzip``; prints a Markdown table.
"""

import argparse
import os
import platform
import random
import statistics
import tempfile
import time

import indexed_gzip

import lidx


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def reads(f, offsets, size):
    out = []
    for off in offsets:
        f.seek(off)
        out.append(f.read(size))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("archive")
    ap.add_argument("--text", help="the archive's text, as an oracle")
    ap.add_argument("--span", type=int, default=1 << 20, help="bytes of text between access points")
    ap.add_argument("--seeks", type=int, default=1000)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build-runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="lidx-bench-")
    sidecar = os.path.join(tmp, "archive.lidx")
    gzidx = os.path.join(tmp, "archive.gzidx")

    # 1. Builds.
    def build_lidx():
        lidx.Index(args.archive, sidecar=sidecar, span=args.span, force=True).close()

    def build_igzip():
        with indexed_gzip.IndexedGzipFile(args.archive, spacing=args.span) as g:
            g.build_full_index()
            g.export_index(gzidx)

    with open(args.archive, "rb") as f:  # the archive in the page cache
        while f.read(1 << 24):
            pass
    build = {
        "lidx": median_time(build_lidx, args.build_runs),
        "igzip": median_time(build_igzip, args.build_runs),
    }
    size = {"lidx": os.path.getsize(sidecar), "igzip": os.path.getsize(gzidx)}
    with lidx.Index(args.archive, sidecar=sidecar, build=False) as idx:
        text_len = idx.size
        lines = idx.line_count
        aps = idx.info()["gzip"]["access_points"]

    # 2. Random seeks and reads, the same offsets for every variant.
    rng = random.Random(args.seed)
    offsets = [rng.randrange(text_len - args.size) for _ in range(args.seeks)]
    variants = {
        "lidx.open": lambda: lidx.open(args.archive, sidecar=sidecar, build=False),
        "IndexedGzipFile": lambda: indexed_gzip.IndexedGzipFile(
            args.archive, spacing=args.span, index_file=gzidx
        ),
        f"IndexedGzipFile(buffer_size={args.size})": lambda: indexed_gzip.IndexedGzipFile(
            args.archive, spacing=args.span, index_file=gzidx, buffer_size=args.size
        ),
    }
    answers = {}
    for name, opener in variants.items():
        with opener() as f:
            answers[name] = reads(f, offsets, args.size)
    if args.text:
        fd = os.open(args.text, os.O_RDONLY)
        expected = [os.pread(fd, args.size, off) for off in offsets]
        os.close(fd)
    else:
        expected = answers["lidx.open"]
    for name, got in answers.items():
        bad = [o for o, g, e in zip(offsets, got, expected) if g != e]
        assert not bad, f"{name}: wrong bytes at offsets {bad[:5]}"
    assert all(len(a) == args.size for a in expected)

    opened = {}
    seeks = {}
    for name, opener in variants.items():
        opens, passes = [], []
        for _ in range(args.runs):  # a new file each pass: no cache carried over
            t = time.perf_counter()
            f = opener()
            opens.append(time.perf_counter() - t)
            t = time.perf_counter()
            reads(f, offsets, args.size)
            passes.append(time.perf_counter() - t)
            f.close()
        opened[name] = statistics.median(opens)
        seeks[name] = statistics.median(passes)

    mib = 1 << 20
    print(f"# lidx.open vs indexed_gzip — {time.strftime('%Y-%m-%d', time.gmtime())}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, "
          f"indexed_gzip {indexed_gzip.__version__}, lidx {lidx.__version__}")
    print()
    print(f"Archive: {os.path.getsize(args.archive):,} bytes, {text_len:,} bytes of text, "
          f"{lines:,} lines; spacing {args.span / mib:g} MiB for both ({aps} access points "
          f"for lidx); {args.seeks} random seeks + {args.size}-byte reads, every answer "
          f"checked against {'the plain text' if args.text else 'lidx'} first; warm.")
    print()
    print(f"| | build (median of {args.build_runs}) | index size | open + load index | "
          f"{args.seeks} seeks + reads (median of {args.runs}) | per seek |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in variants:
        tool = "lidx" if name.startswith("lidx") else "igzip"
        print(f"| `{name}` | {build[tool]:.2f} s | {size[tool]:,} | "
              f"{opened[name] * 1e3:.2f} ms | {seeks[name]:.3f} s | "
              f"{seeks[name] / args.seeks * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()
