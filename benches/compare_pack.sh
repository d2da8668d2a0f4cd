#!/usr/bin/env bash
# Issue 15's figures: lidx pack and the archive kinds it reads, side by
# side with zstd, pigz, bgzip, gzip, zcat and sed, in one run.
#
#   benches/compare_pack.sh [TEXT_BYTES] [DATA_DIR]   (default: 4 GiB, ./bench-data)
#
# Generates a deterministic log (examples/genlog.rs) unless LOG=path names
# one, then (each pair run alternately, RUNS times, default 3; medians of
# wall time; the page cache warm):
#   1. pack: lidx pack --format zst vs zstd -T0 -3, and lidx pack --format
#      gz vs pigz -p2 -6: time and archive size (each archive decompressed
#      and compared with the log once);
#   2. index: lidx index of a bgzip -@2 archive vs of a gzip -6 one, and
#      the two sidecars' sizes;
#   3. goto a line near the end, whole process, on each archive kind
#      (lidx lines N: hyperfine, 30 runs) against zstd -dc | sed -n
#      'Np;Nq' and zcat | sed -n 'Np;Nq' (RUNS runs), outputs checked
#      identical; the floor of starting a process (/bin/true) beside.
# SKIP_PACK=1 and SKIP_INDEX=1 leave sections 1 and 2 out (section 3 then
# needs the archives of an earlier run in DATA_DIR).
# Needs: hyperfine, zstd, pigz, bgzip (tabix), gzip, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-4294967296}
DIR=${2:-bench-data}
RUNS=${RUNS:-3}
mkdir -p "$DIR"
LOG=${LOG:-$DIR/pack-$SIZE.log}
LIDX=target/release/lidx
JSON="$DIR/hf-pack.json"
cargo build --release --quiet --example genlog
cargo build --release --quiet
if [ ! -f "$LOG" ]; then
  echo "generating $LOG..." >&2
  target/release/examples/genlog "$LOG" "$SIZE"
fi
B=$DIR/pk   # archives: $B.p.zst (pack), $B.z.zst (zstd), $B.p.gz (pack), $B.g.gz (pigz), $B.b.gz (bgzip), $B.6.gz (gzip -6)

ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }
sec() { python3 -c "import sys; print(f'{float(sys.argv[1]):.2f} s')" "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }
pct() { python3 -c "import sys; print(f'{(float(sys.argv[1])/float(sys.argv[2])-1)*100:+.2f}%')" "$1" "$2"; }
# alt A B: the shell commands A and B run alternately RUNS times each
# (benches/pairs.py); prints their median wall times in seconds.
alt() { python3 benches/pairs.py --runs "$RUNS" --warmup 0 -- "$1" -- "$2"; }
same() { # FILE CMD: the command's output is FILE's bytes
  cmp -s "$1" <(sh -c "$2") || { echo "MISMATCH: $2 does not restore $1"; exit 1; }
}

echo "# lidx pack and archive kinds — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p')"
echo
echo "Log: $LOG, $(stat -L -c %s "$LOG") bytes; $RUNS alternate runs per pair, medians; warm page cache"
echo
cat "$LOG" >/dev/null

if [ -z "${SKIP_PACK:-}" ]; then
echo "## 1. Pack (time, size)"
echo
echo "| archive | lidx pack | baseline | baseline / lidx (time) | lidx size | baseline size | size vs baseline |"
echo "|---|---:|---:|---:|---:|---:|---:|"
read -r LP ZP < <(alt "rm -f $B.p.zst $B.p.zst.lidx; $LIDX pack -q -o $B.p.zst $LOG" \
  "zstd -q -T0 -3 -c $LOG > $B.z.zst")
same "$LOG" "zstd -dc $B.p.zst"
same "$LOG" "zstd -dc $B.z.zst"
SP=$(stat -c %s "$B.p.zst"); SZ=$(stat -c %s "$B.z.zst")
echo "| zst (level 3) vs zstd -T0 -3 | $(sec "$LP") | $(sec "$ZP") | $(ratio "$ZP" "$LP") | $SP | $SZ | $(pct "$SP" "$SZ") |"
read -r LG PG < <(alt "rm -f $B.p.gz $B.p.gz.lidx; $LIDX pack -q --format gz -o $B.p.gz $LOG" \
  "pigz -p2 -6 -c $LOG > $B.g.gz")
same "$LOG" "gzip -dc $B.p.gz"
same "$LOG" "gzip -dc $B.g.gz"
SPG=$(stat -c %s "$B.p.gz"); SGG=$(stat -c %s "$B.g.gz")
echo "| gz (level 6) vs pigz -p2 -6 | $(sec "$LG") | $(sec "$PG") | $(ratio "$PG" "$LG") | $SPG | $SGG | $(pct "$SPG" "$SGG") |"
echo

fi

if [ -z "${SKIP_INDEX:-}" ]; then
echo "## 2. Index a bgzip -@2 archive vs a gzip -6 one"
echo
[ -f "$B.b.gz" ] || bgzip -@2 -c "$LOG" > "$B.b.gz"
[ -f "$B.6.gz" ] || gzip -6 -c "$LOG" > "$B.6.gz"
cat "$B.b.gz" "$B.6.gz" >/dev/null
read -r IB I6 < <(alt "rm -f $B.b.gz.lidx; $LIDX index -q $B.b.gz" "rm -f $B.6.gz.lidx; $LIDX index -q $B.6.gz")
echo "| archive | size | lidx index | sidecar |"
echo "|---|---:|---:|---:|"
echo "| bgzip -@2 | $(stat -c %s "$B.b.gz") | $(sec "$IB") | $(stat -c %s "$B.b.gz.lidx") |"
echo "| gzip -6 | $(stat -c %s "$B.6.gz") | $(sec "$I6") | $(stat -c %s "$B.6.gz.lidx") |"
echo "| gzip -6 / bgzip | | $(ratio "$I6" "$IB") | $(ratio "$(stat -c %s "$B.6.gz.lidx")" "$(stat -c %s "$B.b.gz.lidx")") |"
echo
fi

"$LIDX" index -q "$LOG"
LINES=$("$LIDX" count "$LOG")
N=$((LINES - 10))
echo "## 3. Goto line $N of $LINES (whole process, warm)"
echo
"$LIDX" index -q "$LOG"
"$LIDX" index -q "$B.g.gz"
[ -f "$B.p.gz.lidx" ] || "$LIDX" index -q "$B.p.gz"
WANT=$(sed -n "${N}p;${N}q" "$LOG" | md5sum)
for a in "$LOG" "$B.p.zst" "$B.p.gz" "$B.g.gz" "$B.b.gz" "$B.6.gz"; do
  [ "$("$LIDX" lines "$a" "$N" | md5sum)" = "$WANT" ] || { echo "MISMATCH lidx lines $a $N"; exit 1; }
done
[ "$(zstd -dc "$B.p.zst" | sed -n "${N}p;${N}q" | md5sum)" = "$WANT" ] || { echo "MISMATCH zstd -dc | sed"; exit 1; }
[ "$( (zcat "$B.6.gz" || true) | sed -n "${N}p;${N}q" | md5sum)" = "$WANT" ] || { echo "MISMATCH zcat | sed"; exit 1; }
median() { python3 -c "import json,sys; r=json.load(open('$JSON'))['results']; print(r[int(sys.argv[1])]['median'])" "$1"; }
hyperfine -N --warmup 5 --runs 30 --output=pipe --style none --export-json "$JSON" \
  "/bin/true" "$LIDX lines $LOG $N" "$LIDX lines $B.p.zst $N" "$LIDX lines $B.p.gz $N" \
  "$LIDX lines $B.b.gz $N" "$LIDX lines $B.6.gz $N" "$LIDX lines $B.g.gz $N" >/dev/null 2>&1
T0=$(median 0); TP=$(median 1); TZ=$(median 2); TGP=$(median 3); TB=$(median 4); T6=$(median 5); TG=$(median 6)
read -r SZD SZC < <(alt "zstd -dc $B.p.zst | sed -n '${N}p;${N}q'" "zcat $B.6.gz | sed -n '${N}p;${N}q'")
echo "| source | lidx lines N | baseline | baseline / lidx |"
echo "|---|---:|---:|---:|"
echo "| (process start: /bin/true) | $(ms "$T0") | | |"
echo "| plain log | $(ms "$TP") | | |"
echo "| lidx pack zst | $(ms "$TZ") | zstd -dc \\| sed: $(sec "$SZD") | $(ratio "$SZD" "$TZ") |"
echo "| lidx pack gz | $(ms "$TGP") | zcat \\| sed: $(sec "$SZC") | $(ratio "$SZC" "$TGP") |"
echo "| bgzip -@2 | $(ms "$TB") | zcat \\| sed: $(sec "$SZC") | $(ratio "$SZC" "$TB") |"
echo "| gzip -6 | $(ms "$T6") | zcat \\| sed: $(sec "$SZC") | $(ratio "$SZC" "$T6") |"
echo "| pigz -p2 -6 | $(ms "$TG") | zcat \\| sed: $(sec "$SZC") | $(ratio "$SZC" "$TG") |"
echo
echo "Sidecars: plain $(stat -c %s "$LOG.lidx"), pack zst $(stat -c %s "$B.p.zst.lidx"), pack gz $(stat -c %s "$B.p.gz.lidx"), pigz $(stat -c %s "$B.g.gz.lidx") bytes"
