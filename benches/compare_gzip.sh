#!/usr/bin/env bash
# gzip sources: lidx side by side with gzip -dc, zcat | sed, zcat | rg and
# gztool, in one run.
#
#   benches/compare_gzip.sh [TEXT_BYTES] [DATA_DIR]   (default: 1 GiB, ./bench-data)
#
# Generates a deterministic log (examples/genlog.rs), compresses it with
# gzip -6, then times (hyperfine medians, output to a pipe; the page cache
# warm — the archive fits in memory):
#   1. index build: lidx index vs gzip -dc >/dev/null vs gztool -x -i;
#   2. index size: lidx sidecar vs gztool's index at its default span
#      (10 MiB) and at lidx's span (1 MiB);
#   3. goto a line near the end: lidx lines vs zcat | sed -n 'Np;Nq' vs
#      gztool -L N -R 1 (with its index), outputs checked identical;
#   4. lidx grep --lines over 1% vs zcat | rg over the whole archive;
#   5. issue 14's gzip rows, lidx (default span) against gztool at a 1 MiB
#      span (-s 1): goto near the end (lidx lines N vs gztool -L N -R 1),
#      index (lidx index vs gztool -x -s 1 -i) and index size, each pair
#      run alternately (medians of RUNS, default 7), warm and cold (page
#      cache dropped before every run: needs root; said so otherwise),
#      outputs checked identical, with the goal beside each ratio.
# GZ=path/to/archive.gz uses that archive instead of generating one.
# Needs: hyperfine, gzip, gztool, rg (apt-get install hyperfine gztool ripgrep).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1073741824}
DIR=${2:-bench-data}
mkdir -p "$DIR"
T="$DIR/gz-$SIZE.log"
F="${GZ:-$T.gz}"
RUNS=${RUNS:-7}
LIDX=target/release/lidx
JSON="$DIR/hf-gz.json"
cargo build --release --quiet --example genlog
cargo build --release --quiet
if [ ! -f "$F" ]; then
  echo "generating $F..." >&2
  target/release/examples/genlog "$T" "$SIZE"
  gzip -6 -c "$T" > "$F"
  rm -f "$T"
fi
median() { python3 -c "import json,sys; r=json.load(open('$JSON'))['results']; print(r[int(sys.argv[1])]['median'])" "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }
hfs() { hyperfine --output=pipe --style none --export-json "$JSON" "$@" >/dev/null 2>&1 || hyperfine --output=pipe --export-json "$JSON" "$@"; }

echo "# lidx on gzip — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p')"
echo
echo "Archive: $F, $(stat -L -c %s "$F") bytes compressed (${GZ:+given, }gzip -6 when generated), $SIZE bytes of text (when generated)"
echo
cat "$F" >/dev/null
rm -f "$F.lidx" "${F%.gz}.gzi" "$F.gzi"
hfs --runs 3 --prepare "rm -f $F.lidx ${F%.gz}.gzi" "$LIDX index -q $F" "gzip -dc $F" "gztool -x -i $F"
L=$(median 0); G=$(median 1); Z=$(median 2)
echo "## 1. Index build (median of 3)"
echo
echo "| lidx index | gzip -dc | gztool -x -i | gzip -dc / lidx | gztool / lidx |"
echo "|---:|---:|---:|---:|---:|"
echo "| $(ms "$L") | $(ms "$G") | $(ms "$Z") | $(ratio "$G" "$L") | $(ratio "$Z" "$L") |"
echo
LINES=$("$LIDX" count "$F")
SL=$(stat -c %s "$F.lidx")
GZI="${F%.gz}.gzi"
SG=$(stat -c %s "$GZI")
gztool -x -s 1 -I "$DIR/span1.gzi" -i "$F" >/dev/null 2>&1
SG1=$(stat -c %s "$DIR/span1.gzi")
echo "## 2. Index size"
echo
echo "| lidx sidecar (span 1 MiB) | gztool (default span 10 MiB) | gztool -s 1 (span 1 MiB) | archive |"
echo "|---:|---:|---:|---:|"
echo "| $SL | $SG | $SG1 | $(stat -L -c %s "$F") |"
echo
N=$((LINES - 10))
A=$("$LIDX" lines "$F" "$N" | md5sum)
B=$( (zcat "$F" || true) | sed -n "${N}p;${N}q" | md5sum)
C=$(gztool -L "$N" -R 1 "$F" 2>/dev/null | md5sum)
[ "$A" = "$B" ] || { echo "MISMATCH lidx vs zcat|sed at line $N"; exit 1; }
[ "$A" = "$C" ] || echo "(note: gztool -L output differs from sed's at line $N)"
hfs -N --warmup 3 --runs 20 "$LIDX lines $F $N"
LW=$(median 0)
hfs --runs 3 "zcat $F | sed -n '${N}p;${N}q'" "gztool -L $N -R 1 $F"
S=$(median 0); Q=$(median 1)
echo "## 3. Goto line $N of $LINES (whole process)"
echo
echo "| lidx lines | zcat \\| sed -n 'Np;Nq' | gztool -L N -R 1 | sed / lidx | gztool / lidx |"
echo "|---:|---:|---:|---:|---:|"
echo "| $(ms "$LW") | $(ms "$S") | $(ms "$Q") | $(ratio "$S" "$LW") | $(ratio "$Q" "$LW") |"
echo
LA=$((LINES / 2)); LB=$((LA + LINES / 100 - 1))
R=payload=4242
X=$("$LIDX" grep -N --lines "$LA:$LB" "$R" "$F" | md5sum)
Y=$( (zcat "$F" || true) | sed -n "${LA},${LB}p" | rg "$R" | md5sum)
[ "$X" = "$Y" ] || { echo "MISMATCH grep --lines vs zcat|sed|rg"; exit 1; }
hfs --warmup 1 --runs 5 "$LIDX grep -n --lines $LA:$LB $R $F" "zcat $F | rg -n $R"
GL=$(median 0); GR=$(median 1)
echo "## 4. grep over 1% of the lines"
echo
echo "| lidx grep --lines | zcat \\| rg -n (whole archive) | ratio |"
echo "|---:|---:|---:|"
echo "| $(ms "$GL") | $(ms "$GR") | $(ratio "$GR" "$GL") |"
echo

# 5. Issue 14's gzip rows. alt runs the commands alternately, RUNS times
# each (a prepare command before every run), and prints each one's median
# wall time in seconds.
alt() {
  python3 - "$RUNS" "$@" <<'PY'
import shlex, statistics, subprocess, sys, time
runs, prep, cmds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
t = [[] for _ in cmds]
for _ in range(runs):
    for i, c in enumerate(cmds):
        if prep:
            subprocess.run(prep, shell=True, check=True)
        a = time.perf_counter()
        subprocess.run(shlex.split(c), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        t[i].append(time.perf_counter() - a)
print(" ".join(f"{statistics.median(x):.6f}" for x in t))
PY
}
DROP="sync; echo 3 > /proc/sys/vm/drop_caches"
if ! sh -c "$DROP" 2>/dev/null; then
  DROP=""
  echo "(cold rows skipped: dropping the page cache needs root)"
fi
G1="$DIR/span1.gzi"
A=$("$LIDX" lines "$F" "$N" | md5sum)
C=$(gztool -I "$G1" -L "$N" -R 1 "$F" 2>/dev/null | md5sum)
[ "$A" = "$C" ] || { echo "MISMATCH lidx lines vs gztool -L at line $N"; exit 1; }
row() { # case lidx baseline goal unit
  echo "| $1 | $2 | $3 | $(ratio "${5:-$3}" "${4:-$2}") | $6 |"
}
echo "## 5. Issue 14: gzip rows (lidx default span, gztool -s 1; medians of $RUNS, alternate runs)"
echo
echo "| case | lidx | gztool | gztool / lidx | goal |"
echo "|---|---:|---:|---:|---|"
for temp in warm cold; do
  P=""
  if [ "$temp" = cold ]; then
    [ -n "$DROP" ] || continue
    P="$DROP"
  else
    cat "$F" "$F.lidx" "$G1" >/dev/null
  fi
  read -r LG GG < <(alt "$P" "$LIDX lines $F $N" "gztool -I $G1 -L $N -R 1 $F")
  row "goto line $N, $temp" "$(ms "$LG")" "$(ms "$GG")" "$LG" "$GG" "≥ 3"
  read -r LI GI < <(alt "rm -f $F.lidx $DIR/span1-b.gzi${P:+; $P}" "$LIDX index -q $F" "gztool -x -s 1 -I $DIR/span1-b.gzi -i $F")
  row "index, $temp" "$(ms "$LI")" "$(ms "$GI")" "$LI" "$GI" "≥ 1.6"
done
"$LIDX" index -q "$F"
SL=$(stat -c %s "$F.lidx")
SG1=$(stat -c %s "$G1")
row "index size (bytes)" "$SL" "$SG1" "$SL" "$SG1" "≥ 2 (half the size)"
