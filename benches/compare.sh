#!/usr/bin/env bash
# Side-by-side benchmark of lidx against the baseline tools, in one run.
#
#   benches/compare.sh [SIZE_BYTES] [DATA_DIR]      (default: 4 GiB, ./bench-data)
#
# Generates a deterministic log-like file (examples/genlog.rs); prints issue
# 14's table (section 0: pairs run alternately, warm and cold); then times,
# warm (file in the page cache) and cold (file evicted with
# posix_fadvise(DONTNEED) before every run):
#   1. ingest: `lidx index` vs `wc -l` (warm) and vs `dd bs=4M` (cold), peak RSS;
#   2. goto a middle and the last line: `lidx lines` (whole process) vs
#      `sed -n 'Np;Nq'` vs `tail -n +N | head -1`, outputs checked identical;
#   3. sidecar size as a fraction of the source;
#   4. lidx grep vs rg and GNU grep: whole file (-c, -n, -i), --lines over 1%
#      vs rg over the whole file and vs sed -n 'A,Bp' | rg, -m 10, cold;
#   5-6. the in-process benches (tree lookups, hit ratios).
# SKIP_TABLE=1, SKIP_INGEST=1, SKIP_GOTO=1, SKIP_GREP=1, SKIP_INPROC=1 leave sections out.
# Timings are hyperfine medians; ratios are baseline/lidx (>1: lidx faster).
# Needs: hyperfine, python3, GNU time (apt-get install hyperfine time).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-4294967296}
DIR=${2:-bench-data}
mkdir -p "$DIR"
F="$DIR/bench-$SIZE.log"
LIDX=target/release/lidx
REPORT="$DIR/report-$SIZE.md"
JSON="$DIR/hf.json"

cargo build --release --quiet --example genlog
cargo build --release --quiet
if [ ! -f "$F" ] || [ "$(stat -L -c %s "$F")" != "$SIZE" ]; then
  echo "generating $F ($SIZE bytes)..." >&2
  target/release/examples/genlog "$F" "$SIZE"
fi

EVICT="python3 benches/evict.py"

# median seconds of the named command in the last hyperfine export
median() { python3 -c "import json,sys; r=json.load(open('$JSON'))['results']; print(r[int(sys.argv[1])]['median'])" "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }
hf() { hyperfine -N --output=pipe --style none --export-json "$JSON" "$@" >/dev/null 2>&1 || hyperfine -N --output=pipe --export-json "$JSON" "$@"; }

{
echo "# lidx benchmark — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p'), $(free -g | awk '/Mem/{print $2}') GiB RAM"
echo
echo "Source: $F, $SIZE bytes, $(stat -L -c %s "$F" | awk '{printf "%.2f GiB", $1/2^30}')"
echo

# Correctness first: the compared tools agree.
"$LIDX" index -q --force "$F"
LINES=$("$LIDX" count "$F")
GREPC=$(grep -a -c '' "$F")
[ "$LINES" = "$GREPC" ] || { echo "MISMATCH: lidx count $LINES vs grep -c $GREPC"; exit 1; }
echo "Line count: $LINES (equal to grep -a -c '')"
echo

if [ -z "${SKIP_TABLE:-}" ]; then
echo "## 0. Issue 14's table (plain rows; benches/compare_gzip.sh prints the gzip rows)"
echo
echo "Each pair run alternately (benches/pairs.py), medians; grep outputs checked identical first."
echo "Ratios are baseline / lidx (> 1: lidx faster). Cold: both files evicted before every run."
echo
RARE=payload=4242
pair() { python3 benches/pairs.py "$@"; }
t_row() { # label goal args...: one warm and one cold line
  local label=$1 goal=$2; shift 2
  local w c
  w=$(pair --runs 7 --warmup 1 "$@")
  c=$(pair --runs 3 --cold "$F" "$F.lidx" "$@")
  python3 - "$label" "$goal" "$w" "$c" <<'PY'
import sys
label, goal, w, c = sys.argv[1:]
for kind, v in (("warm", w), ("cold", c)):
    l, b = map(float, v.split())
    print(f"| {label}, {kind} | {l*1000:.0f} ms | {b*1000:.0f} ms | {b/l:.2f} | {goal if kind == 'warm' else ''} |")
PY
}
echo "| case | lidx | baseline | baseline / lidx | goal |"
echo "|---|---:|---:|---:|---|"
t_row "\`index\` vs \`wc -l\`" "≥ 1.7" -- "$LIDX index -q --force $F" -- "wc -l $F"
D=$(pair --runs 3 --cold "$F" -- "$LIDX index -q --force $F" -- "dd if=$F of=/dev/null bs=4M status=none")
python3 - "$D" "$SIZE" <<'PY'
import sys
l, d = map(float, sys.argv[1].split()); size = int(sys.argv[2])
print(f"| \`index\` vs \`dd bs=4M\`, cold | {l*1000:.0f} ms ({size/l/1e9:.2f} GB/s) | {d*1000:.0f} ms ({size/d/1e9:.2f} GB/s) | {d/l:.2f} | the device binds |")
PY
t_row "\`grep -c -F\` rare literal vs \`rg -c -F\`" "≥ 1.3" --same -- "$LIDX grep -c -F $RARE $F" -- "rg -c -F $RARE $F"
t_row "\`grep -n -F\` vs \`rg -n -F\`" "≥ 1.6" --same -- "$LIDX grep -n -F $RARE $F" -- "rg -n -F $RARE $F"
cargo bench --quiet --bench lookup -- 1000000 2>/dev/null | python3 -c "
import sys
for l in sys.stdin:
    c = [x.strip() for x in l.split('|')]
    if len(c) > 5 and c[1] in ('10000', '1000000'):
        print(f'| hot lookup by line, {c[1]} checkpoints (in-process) | {c[4]} ns | | | ≤ {20 if int(c[1]) == 10000 else 60} ns |')
"
echo
fi

if [ -z "${SKIP_INGEST:-}" ]; then
echo "## 1. Ingest"
echo
cat "$F" >/dev/null
hf --warmup 1 --runs 5 "$LIDX index -q --force $F" "wc -l $F"
L=$(median 0); W=$(median 1)
echo "| warm | lidx index | wc -l | wc/lidx |"
echo "|---|---:|---:|---:|"
echo "| median of 5 | $(ms "$L") | $(ms "$W") | $(ratio "$W" "$L") |"
echo "| throughput | $(python3 -c "print(f'{$SIZE/$L/1e9:.2f} GB/s')") | $(python3 -c "print(f'{$SIZE/$W/1e9:.2f} GB/s')") | |"
echo
hf --runs 3 --prepare "$EVICT $F" "$LIDX index -q --force $F" "dd if=$F of=/dev/null bs=4M"
L=$(median 0); D=$(median 1)
echo "| cold (evicted before each run) | lidx index | dd bs=4M | dd/lidx |"
echo "|---|---:|---:|---:|"
echo "| median of 3 | $(ms "$L") | $(ms "$D") | $(ratio "$D" "$L") |"
echo
RSS=$( { /usr/bin/time -f '%M' "$LIDX" index -q --force "$F"; } 2>&1 | tail -1 )
echo "Peak RSS of the ingest: $RSS KiB"
echo
fi

if [ -z "${SKIP_GOTO:-}" ]; then
echo "## 2. Goto line (whole process)"
echo
echo "Outputs are checked identical to \`sed -n 'Np'\` and \`tail -n +N | head -1\` first. (GNU sed's"
echo "\`Np;Nq\` adds a newline to a last line that has none, so it is timed, not compared.)"
echo
MID=$((LINES / 2))
for N in $MID $LINES; do
  A=$("$LIDX" lines "$F" "$N" | md5sum); B=$(sed -n "${N}p" "$F" | md5sum); C=$( (tail -n +"$N" "$F" || true) | head -1 | md5sum)
  [ "$A" = "$B" ] && [ "$A" = "$C" ] || { echo "MISMATCH at line $N"; exit 1; }
  hf --warmup 5 --runs 50 "$LIDX lines $F $N"
  LW=$(median 0)
  hf --runs 10 --prepare "$EVICT $F $F.lidx" "$LIDX lines $F $N"
  LC=$(median 0)
  hf --runs 3 "sed -n ${N}p;${N}q $F"
  S=$(median 0)
  hyperfine --output=pipe --style none --export-json "$JSON" --runs 3 "tail -n +$N $F | head -1" >/dev/null 2>&1
  T=$(median 0)
  echo "| line $N | lidx warm | lidx cold | sed -n 'Np;Nq' | tail -n +N \| head -1 | sed/lidx warm |"
  echo "|---|---:|---:|---:|---:|---:|"
  echo "| median | $(ms "$LW") | $(ms "$LC") | $(ms "$S") | $(ms "$T") | $(ratio "$S" "$LW") |"
  echo
done
fi


if [ -z "${SKIP_GREP:-}" ] && command -v rg >/dev/null; then
echo "## 4. Search (lidx grep vs ripgrep 'rg' and GNU grep)"
echo
W=latency          # frequent: in most lines
R=payload=4242     # rare, a required literal
LA=$((LINES / 2)); LB=$((LA + LINES / 100 - 1))
same() { cmp -s <(eval "$1") <(eval "$2") || { echo "MISMATCH: $1 vs $2"; exit 1; }; }
same "$LIDX grep -c $W $F" "rg -c $W $F"
same "$LIDX grep -n $R $F" "rg -n $R $F"
same "$LIDX grep -n -i 'ERROR.*TIMEOUT=99' $F" "rg -n -i 'ERROR.*TIMEOUT=99' $F"
same "$LIDX grep -N --lines $LA:$LB $R $F" "sed -n '${LA},${LB}p' $F | rg $R"
echo "Outputs checked identical (lidx vs rg, and --lines vs sed -n 'A,Bp' | rg)."
echo
echo "| warm, median of 5 | lidx | baseline | baseline / lidx |"
echo "|---|---:|---:|---:|"
row() { local L B; hf --warmup 1 --runs 5 "$2" "$3"; L=$(median 0); B=$(median 1); echo "| $1 | $(ms "$L") | $(ms "$B") | $(ratio "$B" "$L") |"; }
row "-c $W vs rg -c" "$LIDX grep -c $W $F" "rg -c $W $F"
row "-c $W vs grep -c" "$LIDX grep -c $W $F" "grep -c $W $F"
row "-n $R vs rg -n" "$LIDX grep -n $R $F" "rg -n $R $F"
row "-c $R vs rg -c" "$LIDX grep -c $R $F" "rg -c $R $F"
row "-i -c 'error.*timeout=99' vs rg" "$LIDX grep -i -c error.*timeout=99 $F" "rg -i -c error.*timeout=99 $F"
row "--lines 1% vs rg whole file" "$LIDX grep -n --lines $LA:$LB $R $F" "rg -n $R $F"
hyperfine --output=pipe --style none --export-json "$JSON" --warmup 1 --runs 5 "$LIDX grep -N --lines $LA:$LB $R $F" "sed -n '${LA},${LB}p;${LB}q' $F | rg $R" >/dev/null 2>&1
L=$(median 0); B=$(median 1); echo "| --lines 1% vs sed -n 'A,Bp' \| rg | $(ms "$L") | $(ms "$B") | $(ratio "$B" "$L") |"
hf --warmup 3 --runs 20 "$LIDX grep -m 10 $W $F"
echo "| -m 10 $W (whole process) | $(ms "$(median 0)") | | |"
echo
echo "| cold (evicted before each run), median of 3 | lidx | rg | rg / lidx |"
echo "|---|---:|---:|---:|"
hf --runs 3 --prepare "$EVICT $F" "$LIDX grep -c $R $F" "rg -c $R $F"
L=$(median 0); B=$(median 1); echo "| -c $R | $(ms "$L") | $(ms "$B") | $(ratio "$B" "$L") |"
hf --runs 3 --prepare "$EVICT $F" "$LIDX grep -n --lines $LA:$LB $R $F" "rg -n $R $F"
L=$(median 0); B=$(median 1); echo "| --lines 1% vs rg whole file | $(ms "$L") | $(ms "$B") | $(ratio "$B" "$L") |"
RSS=$( { /usr/bin/time -f '%M' "$LIDX" grep -c "$W" "$F" >/dev/null; } 2>&1 | tail -1 )
echo
echo "Peak RSS of lidx grep -c over the whole file: $RSS KiB"
echo
fi
echo "## 3. Sidecar size"
echo
SC=$(stat -L -c %s "$F.lidx")
echo "$SC bytes for $SIZE bytes of source: $(python3 -c "print(f'{$SC*100/$SIZE:.4f}%')") (default spacing 65536, page size 4096)"
echo
} | tee "$REPORT"

[ -n "${SKIP_INPROC:-}" ] && exit 0
echo "## 5. In-process lookups" | tee -a "$REPORT"
cargo bench --quiet --bench lookup 2>/dev/null | tee -a "$REPORT"
echo | tee -a "$REPORT"
echo "## 6. Cache hit ratios" | tee -a "$REPORT"
cargo bench --quiet --bench hit_ratio 2>/dev/null | tee -a "$REPORT"
echo "report written to $REPORT" >&2
