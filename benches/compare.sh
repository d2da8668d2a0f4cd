#!/usr/bin/env bash
# Side-by-side benchmark of lidx against the baseline tools, in one run.
#
#   benches/compare.sh [SIZE_BYTES] [DATA_DIR]      (default: 4 GiB, ./bench-data)
#
# Generates a deterministic log-like file (examples/genlog.rs), then times,
# warm (file in the page cache) and cold (file evicted with
# posix_fadvise(DONTNEED) before every run):
#   1. ingest: `lidx index` vs `wc -l` (warm) and vs `dd bs=4M` (cold), peak RSS;
#   2. goto a middle and the last line: `lidx lines` (whole process) vs
#      `sed -n 'Np;Nq'` vs `tail -n +N | head -1`, outputs checked identical;
#   3. sidecar size as a fraction of the source;
#   4. the in-process benches (tree lookups, hit ratios).
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
if [ ! -f "$F" ] || [ "$(stat -c %s "$F")" != "$SIZE" ]; then
  echo "generating $F ($SIZE bytes)..." >&2
  target/release/examples/genlog "$F" "$SIZE"
fi

EVICT="python3 benches/evict.py"

# median seconds of the named command in the last hyperfine export
median() { python3 -c "import json,sys; r=json.load(open('$JSON'))['results']; print(r[int(sys.argv[1])]['median'])" "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }
hf() { hyperfine -N --style none --export-json "$JSON" "$@" >/dev/null 2>&1 || hyperfine -N --export-json "$JSON" "$@"; }

{
echo "# lidx benchmark — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p'), $(free -g | awk '/Mem/{print $2}') GiB RAM"
echo
echo "Source: $F, $SIZE bytes, $(stat -c %s "$F" | awk '{printf "%.2f GiB", $1/2^30}')"
echo

# Correctness first: the compared tools agree.
"$LIDX" index -q --force "$F"
LINES=$("$LIDX" count "$F")
GREPC=$(grep -a -c '' "$F")
[ "$LINES" = "$GREPC" ] || { echo "MISMATCH: lidx count $LINES vs grep -c $GREPC"; exit 1; }
echo "Line count: $LINES (equal to grep -a -c '')"
echo

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
  hyperfine --style none --export-json "$JSON" --runs 3 "tail -n +$N $F | head -1" >/dev/null 2>&1
  T=$(median 0)
  echo "| line $N | lidx warm | lidx cold | sed -n 'Np;Nq' | tail -n +N \| head -1 | sed/lidx warm |"
  echo "|---|---:|---:|---:|---:|---:|"
  echo "| median | $(ms "$LW") | $(ms "$LC") | $(ms "$S") | $(ms "$T") | $(ratio "$S" "$LW") |"
  echo
done

echo "## 3. Sidecar size"
echo
SC=$(stat -c %s "$F.lidx")
echo "$SC bytes for $SIZE bytes of source: $(python3 -c "print(f'{$SC*100/$SIZE:.4f}%')") (default spacing 65536, page size 4096)"
echo
} | tee "$REPORT"

echo "## 4. In-process lookups" | tee -a "$REPORT"
cargo bench --quiet --bench lookup 2>/dev/null | tee -a "$REPORT"
echo | tee -a "$REPORT"
echo "## 5. Cache hit ratios" | tee -a "$REPORT"
cargo bench --quiet --bench hit_ratio 2>/dev/null | tee -a "$REPORT"
echo "report written to $REPORT" >&2
