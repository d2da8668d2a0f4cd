#!/usr/bin/env python3
"""Issue 24 §1: `lidx index` of one ordinary gzip archive on 1..N cores.

    gz_parallel.py LIDX ARCHIVE [RUNS] [JOBS...]

For each -j N of JOBS (default 2 3 4), runs `-j 1` and `-j N` alternately
(RUNS times each, default 5; medians), after checking that both write
the same sidecar byte for byte. Then one `-j 2` run with
LIDX_SPECULATIVE_STATS=1 gives the decoder's costs per byte of text:
the reader's exact decode (zlib-rs), its hand-on work (line scan, CRCs,
windows, pages), the workers' marker decode (finding the first block
included) and the resolving of markers. From them, the time per byte
with W workers and the reader (one chunk in W + 1 decoded exactly by the
reader, the rest by the workers, which resolve them):

    reader  = exact / (W + 1) + hand-on
    workers = (marker + resolve) / (W + 1)
    time    = max(reader, workers)

which is checked against the measured -j 2 and projected to 16 and 64
cores. Prints `summary T1_MS T2_MS RATIO` (the -j 2 pair), then
markdown rows: | -j N | median | speed-up |, the costs, and the
projection.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        sys.exit(f"gz_parallel.py: exit {r.returncode}: {' '.join(cmd)}: {r.stderr.decode()}")
    return time.perf_counter() - t, r.stderr.decode()


def main(argv):
    lidx, archive = argv[0], argv[1]
    runs = int(argv[2]) if len(argv) > 2 else 5
    jobs = [int(j) for j in argv[3:]] or [2, 3, 4]
    tmp = tempfile.mkdtemp()
    out = lambda j: os.path.join(tmp, f"j{j}.lidx")
    cmd = lambda j: [lidx, "index", "-q", "--force", "-j", str(j), "--index", out(j), archive]
    timed(cmd(1))
    ref = open(out(1), "rb").read()
    rows = []
    t1s = []
    for j in jobs:
        timed(cmd(j))
        same = open(out(j), "rb").read() == ref
        if not same:
            sys.exit(f"gz_parallel.py: -j {j} wrote another sidecar than -j 1")
        a, b = [], []
        for n in range(runs):
            order = [(1, a), (j, b)] if n % 2 == 0 else [(j, b), (1, a)]
            for k, acc in order:
                acc.append(timed(cmd(k))[0])
        t1, tj = statistics.median(a), statistics.median(b)
        t1s.append(t1)
        rows.append((j, t1, tj))
    env = dict(os.environ, LIDX_SPECULATIVE_STATS="1")
    _, err = timed(cmd(2), env)
    line = next(l for l in err.splitlines() if l.startswith("lidx: speculative: "))
    num = lambda name: float(re.search(name + r" ([0-9.]+)", line).group(1))
    text = num("text")
    hand_on, exact, marker, resolve = num("hand-on"), num("exact"), num("marker"), num("resolve")
    t1 = statistics.median(t1s)
    per1 = t1 * 1e9 / text
    j2 = next(r for r in rows if r[0] == 2)
    print(f"summary {j2[1] * 1000:.0f} {j2[2] * 1000:.0f} {j2[1] / j2[2]:.2f}")
    print("| -j | median | speed-up | |")
    print("|---|---:|---:|---|")
    print(f"| -j 1 | {t1 * 1000:.0f} ms | 1.00× | sidecars of every -j below identical to it |")
    for j, a, b in rows:
        print(f"| -j {j} | {b * 1000:.0f} ms | {a / b:.2f}× | -j 1 alternated with it: {a * 1000:.0f} ms |")
    print()
    print(
        f"Costs per byte of text (-j 2, {int(text)} bytes): exact decode {exact:.3f} ns, "
        f"hand-on {hand_on:.3f} ns, marker decode {marker:.3f} ns, resolve {resolve:.3f} ns; "
        f"-j 1 {per1:.3f} ns."
    )
    print()
    print("| cores | workers | reader ns/B | workers ns/B | modelled time | speed-up over -j 1 |")
    print("|---:|---:|---:|---:|---:|---:|")
    for cores in [2, 4, 16, 64]:
        w = cores - 1
        reader = exact / (w + 1) + hand_on
        workers = (marker + resolve) / (w + 1)
        per = max(reader, workers)
        print(
            f"| {cores} | {w} | {reader:.3f} | {workers:.3f} | {per * text / 1e6:.0f} ms | {per1 / per:.2f}× |"
        )

    # What bounds 2 cores: the reader's share f of the chunks balanced
    # against the worker's (reader = f * exact + hand-on, worker =
    # (1 - f) * (marker + resolve)); then the same with a marker decoder
    # as fast as the exact one, and with no hand-on work.
    def best(mark, h):
        f = max(0.0, min(1.0, (mark - h) / (exact + mark)))
        return f, f * exact + h

    f, per = best(marker + resolve, hand_on)
    g, fast = best(exact + resolve, hand_on)
    _, bare = best(marker + resolve, 0.0)
    print()
    print(
        f"2 cores at best: the reader decoding {f:.0%} of the chunks, {per1 / per:.2f}×; "
        f"with a marker decoder as fast as the exact one ({g:.0%}), {per1 / fast:.2f}×; "
        f"with no hand-on work, {per1 / bare:.2f}×."
    )


if __name__ == "__main__":
    main(sys.argv[1:])
