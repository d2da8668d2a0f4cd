#!/usr/bin/env bash
# lidx view: the pager's figures (issue 12) on a big log and its gzip -6,
# next to less and lnav where they can do the same thing.
#
#   benches/view.sh [TEXT_BYTES] [DATA_DIR]   (default: 4 GiB, ./bench-data)
#
# Every tool runs in a 120x40 tmux pane, the page cache warm (the files fit
# in memory); a time measured "by tmux" runs from the command or the key
# sent to the first capture of the pane that shows what is expected (polled
# every 10 ms, so it includes up to 10 ms of polling). lidx's own figures
# come from its timing log (LIDX_VIEW_TIMING=FILE: "open US" for the first
# full screen after launch, "key US" from a key read to the frame that
# shows its result, each with the peak RSS so far).
#   1. launch to the first screen at line 10,000,000, with a sidecar;
#   2. a goto near the end (`:N`, 20 different lines in the last 10%, so no
#      two share a block of lines): median and worst, plain and gzip;
#   3. peak RSS after scrolling through 1,000,000 lines (`1000000j`);
#   4. search-next for a rare literal (one line at 75%) from the top.
# SECTIONS="2 4" runs only those. GZ=PATH uses that archive instead of compressing the log (its figures
# are then of another text). Needs: tmux, rg, bc, pigz or gzip; less and
# lnav are measured when present.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-4294967296}
DIR=$(realpath -m "${2:-bench-data}")
mkdir -p "$DIR"
F="$DIR/view-$SIZE.log"
G=${GZ:-$F.gz}
LIDX=$PWD/target/release/lidx
RARE_TEXT=RARE-NEEDLE-7f3a
cargo build --release --quiet --example genlog
cargo build --release --quiet -p lidx-cli
if [ ! -f "$F" ]; then
  echo "generating $F..." >&2
  target/release/examples/genlog "$DIR/a.tmp" $((SIZE * 3 / 4))
  target/release/examples/genlog "$DIR/b.tmp" $((SIZE / 4)) 2
  { cat "$DIR/a.tmp"; echo "$RARE_TEXT unique marker line"; cat "$DIR/b.tmp"; } >"$F"
  rm -f "$DIR/a.tmp" "$DIR/b.tmp"
fi
if [ ! -f "$G" ]; then
  echo "compressing $G..." >&2
  if command -v pigz >/dev/null; then pigz -6 -c "$F" >"$G"; else gzip -6 -c "$F" >"$G"; fi
fi
"$LIDX" index -q "$F"
"$LIDX" index -q "$G"
LINES=$("$LIDX" count "$F")
RARE=$(rg -n -m1 -F "$RARE_TEXT" "$F" | cut -d: -f1)
SOCK=lidx-view-bench-$$
LOG=$DIR/view-timing.log
trap 'tmux -L $SOCK kill-server 2>/dev/null || true' EXIT

tm() { tmux -L "$SOCK" "$@"; }
ns() { date +%s%N; }
ms() { echo "scale=1; $1 / 1000000" | bc; }
# start CMD: CMD in a fresh pane (its peak RSS in KiB to $DIR/rss when it exits).
N=0
start() {
  tm kill-server 2>/dev/null || true
  # A new server each time (one being killed may still hold the old socket).
  N=$((N + 1))
  SOCK=lidx-view-bench-$$-$N
  rm -f "$DIR/rss"
  tm -f /dev/null new-session -d -x 120 -y 40 \
    "LIDX_VIEW_TIMING=$LOG /usr/bin/time -f %M -o $DIR/rss $1; sleep 600"
}
# until_screen TEXT [SECONDS]: waits until the pane shows TEXT.
until_screen() {
  local deadline=$(($(date +%s) + ${2:-300}))
  until tm capture-pane -p -t 0 | grep -qF -- "$1"; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "timeout waiting for: $1" >&2; tm capture-pane -p -t 0 >&2; return 1; }
    sleep 0.01
  done
}
# until_log PATTERN: waits for a timing-log line matching PATTERN, prints its microseconds.
until_log() {
  local deadline=$(($(date +%s) + 300))
  until grep -qE -- "$1" "$LOG" 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "timeout waiting for log: $1" >&2; return 1; }
    sleep 0.01
  done
  grep -E -- "$1" "$LOG" | tail -1 | awk '{print $2}'
}
quit() {
  tm send-keys -t 0 q
  until [ -s "$DIR/rss" ]; do sleep 0.05; done
  cat "$DIR/rss"
}
line_text() { "$LIDX" lines "$1" "$2" | cut -c1-60; }
want() { [[ " ${SECTIONS:-1 2 3 4} " == *" $1 "* ]]; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "# lidx view — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p')"
echo
echo "$F: $(stat -c %s "$F") bytes, $LINES lines; $G: $(stat -c %s "$G") bytes."
echo

if want 1; then
echo "## 1. Launch to the first screen at line 10,000,000 (sidecar present; best of 3)"
echo
echo "| tool | by tmux | lidx's own log | peak RSS |"
echo "|---|---|---|---|"
for src in "$F" "$G"; do
  best=; own=; rss=
  n=$(("$("$LIDX" count "$src")" - 1000))
  n=$((n < 10000000 ? n : 10000000))
  text=$(line_text "$src" "$n")
  for _ in 1 2 3; do
    rm -f "$LOG"
    t0=$(ns)
    start "$LIDX view --line $n $src"
    until_screen "$text"
    t=$(($(ns) - t0))
    o=$(until_log '^open ')
    r=$(quit)
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t own=$o rss=$r; fi
  done
  echo "| lidx view --line $n $(basename "$src") | $(ms "$best") ms | $(echo "scale=1; $own / 1000" | bc) ms | $((rss / 1024)) MiB |"
done
if command -v less >/dev/null; then
  t0=$(ns)
  start "less +10000000g $F"
  until_screen "$T10M"
  t=$(($(ns) - t0))
  echo "| less +10000000g (counts the lines before) | $(ms "$t") ms | | $(($(quit) / 1024)) MiB |"
fi
if command -v lnav >/dev/null; then
  # lnav reads and indexes the whole file first, then shows its end; its
  # :goto counts messages in time order, not the file's lines, so only the
  # load is timed.
  last=$("$LIDX" lines "$F" '$' | cut -c26-60)
  t0=$(ns)
  start "lnav $F"
  if until_screen "$last" 900; then
    t=$(($(ns) - t0))
    echo "| lnav (load: reads and indexes the whole file, in time order) | $(ms "$t") ms | | $(($(quit) / 1024)) MiB |"
  fi
fi
echo
fi
if want 2; then
echo "## 2. Keypress to screen for :N near the end (20 lines in the last 10%)"
echo
echo "| source | median | worst | peak RSS |"
echo "|---|---|---|---|"
for src in "$F" "$G"; do
  rm -f "$LOG"
  start "$LIDX view $src"
  until_log '^open ' >/dev/null
  LINES=$("$LIDX" count "$src")
  times=()
  for k in $(seq 1 20); do
    n=$((LINES - LINES / 10 + k * (LINES / 10 / 21)))
    tm send-keys -t 0 -l ":$n"
    sleep 0.05
    tm send-keys -t 0 Enter
    times+=("$(until_log "^key .* line $n ")")
  done
  rss=$(quit)
  med=$(printf '%s\n' "${times[@]}" | median)
  worst=$(printf '%s\n' "${times[@]}" | sort -n | tail -1)
  echo "| $(basename "$src") | $(echo "scale=2; $med / 1000" | bc) ms | $(echo "scale=2; $worst / 1000" | bc) ms | $((rss / 1024)) MiB |"
done
LINES=$("$LIDX" count "$F")
if command -v less >/dev/null; then
  n=$((LINES - LINES / 20))
  start "less $F"
  until_screen "$(line_text "$F" 1)"
  t0=$(ns)
  tm send-keys -t 0 -l "${n}g"
  until_screen "$(line_text "$F" "$n")"
  t=$(($(ns) - t0))
  echo "| less, ${n}g (first time: counts lines) | $(ms "$t") ms by tmux | | $(($(quit) / 1024)) MiB |"
fi
echo
fi
if want 3; then
echo "## 3. Scrolling down 1,000,000 rows from line 20,000,000 (1000000j; long lines wrap in 2 rows)"
echo
rm -f "$LOG"
start "$LIDX view --line 20000000 $F"
until_log '^open ' >/dev/null
tm send-keys -t 0 -l 1000000j
# The digits are keys of their own (logged at line 20000000): the j is the
# first key logged elsewhere.
until grep -q '^key .* line [0-9]* ' "$LOG" && grep '^key ' "$LOG" | grep -qv ' line 20000000 '; do sleep 0.05; done
read -r us line held rss < <(grep '^key ' "$LOG" | grep -v ' line 20000000 ' | tail -1 | awk '{print $2, $5, $7, $9}')
quit >/dev/null
echo "- lidx: $(echo "scale=1; $us / 1000" | bc) ms to line $line ($((line - 20000000)) lines read); lines held at the end $((held / 1024)) KiB; peak RSS $((rss / 1024)) MiB"
echo
fi
if want 4; then
echo "## 4. Search-next for a rare literal from the top ($RARE_TEXT, at line $RARE of the log)"
echo
for src in "$F" "$G"; do
  RARE=$("$LIDX" grep -n -m1 -F "$RARE_TEXT" "$src" | cut -d: -f1) || true
  [ -n "$RARE" ] || { echo "- $(basename "$src"): no $RARE_TEXT line"; continue; }
  rm -f "$LOG"
  start "$LIDX view $src"
  until_log '^open ' >/dev/null
  tm send-keys -t 0 -l "/$RARE_TEXT"
  sleep 0.05
  tm send-keys -t 0 Enter
  us=$(until_log "^key .* line $RARE ")
  echo "- lidx view $(basename "$src"): $(echo "scale=1; $us / 1000" | bc) ms; peak RSS $(($(quit) / 1024)) MiB"
done
if command -v less >/dev/null; then
  start "less $F"
  until_screen "$(line_text "$F" 1)"
  t0=$(ns)
  tm send-keys -t 0 -l "/$RARE_TEXT"
  tm send-keys -t 0 Enter
  if until_screen "$RARE_TEXT unique" 300; then
    t=$(($(ns) - t0))
    echo "- less: $(ms "$t") ms by tmux; peak RSS $(($(quit) / 1024)) MiB"
  else
    echo "- less: not found within 300 s"
  fi
fi
fi
