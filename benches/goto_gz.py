#!/usr/bin/env python3
"""Gotos into a gzip archive, lidx against gztool, over several lines.

    goto_gz.py [--runs N] LIDX SIDECAR ARCHIVE GZTOOL_INDEX LINE...

For each line (1-based), first checks that `lidx lines` and `gztool -L N
-R 1` print the same bytes, then runs gztool, lidx and `true` alternately
RUNS times (default 9), each spawned directly (no shell), and takes each
one's median. Prints, tab-separated, the means over the lines of the
three medians in seconds: gztool, lidx, true. `true` is the cost of
spawning a process on this machine, which neither tool controls.
"""
import statistics
import subprocess
import sys
import time


def timed(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"goto_gz.py: exit {r.returncode}: {' '.join(cmd)}")
    return dt, r.stdout


def main(argv):
    runs = 9
    if argv[:1] == ["--runs"]:
        runs, argv = int(argv[1]), argv[2:]
    lidx, sidecar, archive, gzi, *lines = argv
    per = {"gztool": [], "lidx": [], "true": []}
    for n in lines:
        cmds = {
            "gztool": ["gztool", "-W", "-v0", "-I", gzi, "-L", n, "-R", "1", archive],
            "lidx": [lidx, "lines", "--index", sidecar, archive, n],
            "true": ["true"],
        }
        if timed(cmds["gztool"])[1] != timed(cmds["lidx"])[1]:
            sys.exit(f"goto_gz.py: lidx and gztool print different line {n}")
        times = {k: [] for k in cmds}
        for _ in range(runs):
            for k, c in cmds.items():
                times[k].append(timed(c)[0])
        for k in cmds:
            per[k].append(statistics.median(times[k]))
    print("\t".join(f"{statistics.mean(per[k]):.6f}" for k in ("gztool", "lidx", "true")))


if __name__ == "__main__":
    main(sys.argv[1:])
