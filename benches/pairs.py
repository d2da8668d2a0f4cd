#!/usr/bin/env python3
"""Times two shell commands run alternately (A, B, A, B, ...), so that a
change in the machine's state (other load, the page cache, the CPU clock)
touches both alike; prints the two medians in seconds, tab-separated.

    pairs.py [--runs N] [--warmup N] [--cold FILE...] [--same] -- A -- B

--cold evicts the named files from the page cache (posix_fadvise
DONTNEED, as evict.py) before every timed run, so both run cold.
--same first checks that A and B print the same bytes (exit 1 if not).
Commands run through sh -c with stdout discarded (captured for --same).
"""
import os
import statistics
import subprocess
import sys
import time


def evict(paths):
    for path in paths:
        if os.path.exists(path):
            fd = os.open(path, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)


def run(cmd):
    t = time.perf_counter()
    r = subprocess.run(["sh", "-c", cmd], stdout=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if r.returncode not in (0, 1):  # grep's "no match" is an answer
        sys.exit(f"pairs.py: exit {r.returncode}: {cmd}")
    return dt


def main(argv):
    runs, warmup, cold, same = 5, 1, [], False
    i = 0
    while argv[i] != "--":
        if argv[i] == "--runs":
            runs = int(argv[i + 1]); i += 2
        elif argv[i] == "--warmup":
            warmup = int(argv[i + 1]); i += 2
        elif argv[i] == "--cold":
            i += 1
            while argv[i] != "--" and not argv[i].startswith("--"):
                cold.append(argv[i]); i += 1
        elif argv[i] == "--same":
            same = True; i += 1
        else:
            sys.exit(f"pairs.py: unknown option {argv[i]}")
    rest = argv[i + 1:]
    k = rest.index("--")
    a, b = " ".join(rest[:k]), " ".join(rest[k + 1:])
    if same:
        oa = subprocess.run(["sh", "-c", a], capture_output=True).stdout
        ob = subprocess.run(["sh", "-c", b], capture_output=True).stdout
        if oa != ob:
            sys.exit(f"pairs.py: outputs differ:\n  {a}\n  {b}")
    for _ in range(0 if cold else warmup):
        run(a); run(b)
    ta, tb = [], []
    for n in range(runs):
        # Alternate which goes first, too.
        order = [(a, ta), (b, tb)] if n % 2 == 0 else [(b, tb), (a, ta)]
        for cmd, out in order:
            evict(cold)
            out.append(run(cmd))
    print(f"{statistics.median(ta):.6f}\t{statistics.median(tb):.6f}")


if __name__ == "__main__":
    main(sys.argv[1:])
