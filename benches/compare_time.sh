#!/usr/bin/env bash
# The time index: lidx side by side with awk and lnav, in one run.
#
#   benches/compare_time.sh [TEXT_BYTES] [DATA_DIR]   (default: 4 GiB, ./bench-data)
#
# Generates a deterministic log (examples/genlog.rs: RFC 3339 stamps with
# milliseconds, 50 lines a second, the milliseconds random within each
# second) and its gzip (pigz -6, or gzip -6), then reports:
#   1. ingest: `lidx index --force` with and without --time, runs
#      alternated (hyperfine medians), plain and gzip: the cost of reading
#      the stamps;
#   2. size: the sidecar with and without the time index;
#   3. a one-minute window near the end, whole process, warm:
#      lidx lines --since S --until U (plain and gzip) against
#      awk '$1 >= S && $1 < U' (and zcat | awk for the archive), outputs
#      checked identical first (S and U are whole seconds, where the
#      log's order and its stamps' order agree); and line-at-time against
#      awk '$1 >= S { print NR; exit }';
#   4. lnav -n with :hide-lines-before/after on the same window, when lnav
#      is installed (one run, with a time limit: it indexes the whole file
#      in memory first), its output checked against lidx's.
# Needs: hyperfine, awk, gzip or pigz, GNU time; lnav optional.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-4294967296}
DIR=$(realpath -m "${2:-bench-data}")
mkdir -p "$DIR"
T="$DIR/time-$SIZE.log"
G="$T.gz"
LIDX=$PWD/target/release/lidx
JSON="$DIR/hf-time.json"
cargo build --release --quiet --example genlog
cargo build --release --quiet
if [ ! -f "$T" ]; then
  echo "generating $T..." >&2
  target/release/examples/genlog "$T" "$SIZE"
fi
if [ ! -f "$G" ]; then
  if command -v pigz >/dev/null; then pigz -6 -c "$T" > "$G"; else gzip -6 -c "$T" > "$G"; fi
fi
median() { python3 -c "import json,sys; r=json.load(open('$JSON'))['results']; print(r[int(sys.argv[1])]['median'])" "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }
hfs() { hyperfine --output=pipe --style none --export-json "$JSON" "$@" >/dev/null 2>&1 || hyperfine --output=pipe --export-json "$JSON" "$@"; }

echo "# lidx time index — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p')"
echo
echo "Source: $(stat -c %s "$T") bytes, $(wc -l < "$T") lines; gzip $(stat -c %s "$G") bytes."
echo

# 1. Ingest, with and without the time index, alternated.
echo "## Ingest (warm, medians; runs alternate)"
echo
echo "| source | lidx index | lidx index --time | slowdown |"
echo "|---|---:|---:|---:|"
cat "$T" > /dev/null
hfs -w 1 -r 5 "$LIDX index -q --force $T" "$LIDX index -q --force --time $T"
a=$(median 0); b=$(median 1)
echo "| plain | $(ms "$a") | $(ms "$b") | $(python3 -c "print(f'{($b/$a-1)*100:+.1f}%')") |"
hfs -w 1 -r 3 "$LIDX index -q --force $G" "$LIDX index -q --force --time $G"
a=$(median 0); b=$(median 1)
echo "| gzip | $(ms "$a") | $(ms "$b") | $(python3 -c "print(f'{($b/$a-1)*100:+.1f}%')") |"
echo

# 2. Size.
echo "## Sidecar size"
echo
echo "| source | without | with --time | growth |"
echo "|---|---:|---:|---:|"
for f in "$T" "$G"; do
  "$LIDX" index -q --force "$f"; a=$(stat -c %s "$f.lidx")
  "$LIDX" index -q --force --time "$f"; b=$(stat -c %s "$f.lidx")
  echo "| $(basename "$f") | $a | $b | $(ratio "$b" "$a")× |"
done
echo
"$LIDX" info "$T" | grep '^time index' || true
echo

# 3. A one-minute window near the end.
N=$("$LIDX" count "$T")
STAMP=$("$LIDX" lines "$T" "$((N - N / 100))" | cut -c1-19)
S="${STAMP:0:17}00.000Z"
U=$(python3 -c "import datetime,sys; t=datetime.datetime.strptime(sys.argv[1][:19],'%Y-%m-%dT%H:%M:%S')+datetime.timedelta(minutes=1); print(t.strftime('%Y-%m-%dT%H:%M:%S')+'.000Z')" "$S")
echo "## The minute from $S, near the end (whole process, warm, medians)"
echo
"$LIDX" lines "$T" --since "$S" --until "$U" > "$DIR/time-lidx.out"
"$LIDX" lines "$G" --since "$S" --until "$U" > "$DIR/time-lidx-gz.out"
awk -v s="$S" -v u="$U" '$1 >= s && $1 < u' "$T" > "$DIR/time-awk.out"
cmp "$DIR/time-lidx.out" "$DIR/time-awk.out"
cmp "$DIR/time-lidx-gz.out" "$DIR/time-awk.out"
L=$("$LIDX" line-at-time "$T" "$S")
[ "$L" = "$(awk -v s="$S" '$1 >= s { print NR; exit }' "$T")" ]
echo "$(wc -l < "$DIR/time-awk.out") lines, identical from lidx (plain and gzip) and awk; line-at-time $L, as awk."
echo
echo "| query | lidx | baseline | baseline / lidx |"
echo "|---|---:|---:|---:|"
hfs -w 3 -r 20 "$LIDX lines $T --since $S --until $U" "$LIDX lines $G --since $S --until $U" \
  "$LIDX line-at-time $T $S"
lp=$(median 0); lg=$(median 1); ll=$(median 2)
hfs -w 1 -r 3 "awk -v s=$S -v u=$U '\$1 >= s && \$1 < u' $T" "awk -v s=$S '\$1 >= s { print NR; exit }' $T"
ap=$(median 0); al=$(median 1)
hfs -w 0 -r 3 "zcat $G | awk -v s=$S -v u=$U '\$1 >= s && \$1 < u'"
ag=$(median 0)
echo "| plain: lines --since --until vs awk | $(ms "$lp") | $(ms "$ap") | $(ratio "$ap" "$lp") |"
echo "| gzip: lines --since --until vs zcat \| awk | $(ms "$lg") | $(ms "$ag") | $(ratio "$ag" "$lg") |"
echo "| plain: line-at-time vs awk (first match, exit) | $(ms "$ll") | $(ms "$al") | $(ratio "$al" "$ll") |"
echo

# 4. lnav.
if command -v lnav >/dev/null; then
  echo "## lnav"
  echo
  UL=$(python3 -c "import datetime,sys; t=datetime.datetime.strptime(sys.argv[1][:19],'%Y-%m-%dT%H:%M:%S')-datetime.timedelta(milliseconds=1); print(t.strftime('%Y-%m-%dT%H:%M:%S.%f')[:23])" "$U")
  H=$(mktemp -d)
  if HOME=$H TZ=UTC timeout 1800 /usr/bin/time -f '%e %M' -o "$DIR/lnav.time" \
      lnav -n -c ":hide-lines-before ${S%Z}" -c ":hide-lines-after $UL" "$T" > "$DIR/time-lnav.out" 2>"$DIR/lnav.err"; then
    read -r secs kb < "$DIR/lnav.time"
    if cmp -s "$DIR/time-lnav.out" "$DIR/time-lidx.out"; then same="identical to lidx's"; else same="DIFFERS from lidx's ($(wc -l < "$DIR/time-lnav.out") lines)"; fi
    echo "lnav $(lnav -V | head -1): ${secs} s, peak RSS $((kb / 1024)) MiB, one run; output $same;"
    echo "lidx: $(ms "$lp") ($(python3 -c "print(f'{$secs/$lp:.0f}')")× less)."
  else
    echo "lnav did not finish within 30 minutes (or failed: $(tail -1 "$DIR/lnav.err"))."
  fi
  rm -rf "$H"
  echo
fi
