#!/usr/bin/env bash
# The build and the binary (issue 24, section 5), in one run:
#   1. a clean release build of the command line in a new target directory
#      (wall time; cargo's --timings report is left in TARGET/cargo-timings);
#   2. the binary's size and its code (size(1)), and how many crates it
#      links;
#   3. `lidx --version`'s start-up: median of 500 spawns, against /bin/true
#      spawned the same way (the difference is lidx's own start-up).
#
#   benches/build.sh [TARGET_DIR]   (default: a new temporary directory)
#
# Needs: cargo, python3, size (binutils). Run it on a quiet machine: the
# build takes every core.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-$(mktemp -d)}
echo "# lidx build — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p'), $(rustc --version)"
echo
s=$(date +%s.%N)
CARGO_TARGET_DIR=$T cargo build --release -p lidx-cli --timings --quiet
e=$(date +%s.%N)
BIN=$T/release/lidx
crates=$(cargo tree -p lidx-cli -e normal --prefix none | sort -u | wc -l)
python3 - "$BIN" "$s" "$e" "$crates" <<'EOF'
import os, statistics, subprocess, sys, time

binary, s, e, crates = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]


def spawn(argv, n=500):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
        os.waitpid(pid, 0)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


code = subprocess.run(["size", binary], capture_output=True, text=True).stdout.split("\n")[1].split()[0]
true = "/bin/true" if os.path.exists("/bin/true") else "/usr/bin/true"
spawn([binary, "--version"], 50)  # warm the page cache
a, b = spawn([true]), spawn([binary, "--version"])
print("| figure | value |")
print("|---|---:|")
print(f"| clean release build of the CLI | {e - s:.0f} s |")
print(f"| binary | {os.path.getsize(binary) / 1e6:.1f} MB ({int(code) / 1e6:.1f} MB of code) |")
print(f"| crates linked (`cargo tree -e normal`) | {crates} |")
print(f"| `lidx --version`, spawned | {b * 1e3:.2f} ms (`true`: {a * 1e3:.2f} ms; lidx's own {max(b - a, 0) * 1e3:.2f} ms) |")
EOF
