#!/usr/bin/env bash
# Log collections: a rotation family and merged logs, lidx side by side
# with the tools people use on them, in one run.
#
#   benches/compare_family.sh [MEMBERS] [MEMBER_BYTES] [DATA_DIR]
#       (default: 30 members of 100 MB, ./bench-data)
#
# Generates a deterministic log (examples/genlog.rs: RFC 3339 stamps, 50
# lines a second) cut into MEMBERS members as logrotate leaves them:
# app.log (live), app.log.1 (delaycompress), app.log.2.gz ...
# app.log.(MEMBERS-1).gz (gzip -6), and three more logs of MEMBER_BYTES × 3
# each (other seeds, the same hours) to merge. Then reports, warm, medians
# of runs alternated with the baseline (benches/pairs.py), every pair's
# output checked identical first:
#   1. the family's one-time build: lidx index -R (every member's sidecar
#      and the manifest), and the sidecars' size;
#   2. grep -c over the family: lidx grep -R -c against rg -z -c and
#      zgrep -c over the members (their per-file counts summed);
#   3. goto a global line near the middle: lidx lines -R against
#      zcat -f over the members in order | sed -n 'Np;Nq';
#   4. a 10-minute window across the family: lidx lines -R --since --until
#      against lnav -n with :hide-lines-before/after over the members;
#   5. the same window over the three logs merged by time: lidx lines -I
#      --since --until against lnav over the three files.
# lnav runs once, with a time limit (it indexes every file in memory
# first); its output is compared with lidx's and the result printed.
#   6. the viewer: lidx view --merge over the three logs (launch to the
#      first full screen, from its timing log: the merge reads every line
#      once), and lidx view over the 10-minute window of the three.
# GEN_ONLY=1 generates the data and stops; SKIP_BUILD=1 uses the release
# build as it is. Needs: rg, zgrep, gzip or
# pigz, python3, GNU time; lnav and tmux optional.
set -euo pipefail
cd "$(dirname "$0")/.."
MEMBERS=${1:-30}
MB=${2:-100000000}
DIR=$(realpath -m "${3:-bench-data}")
F="$DIR/family-$MEMBERS-$MB"
M="$DIR/merge-$MB"
LIDX=$PWD/target/release/lidx
PAIRS="python3 benches/pairs.py"
if [ -z "${SKIP_BUILD:-}" ]; then  # SKIP_BUILD=1: the release build is there
  cargo build --release --quiet --example genlog
  cargo build --release --quiet
fi
mkdir -p "$F" "$M"
Z() { if command -v pigz >/dev/null; then pigz -6 "$@"; else gzip -6 "$@"; fi; }

if [ ! -f "$F/app.log" ]; then
  echo "generating $F..." >&2
  # From 2026-10-01: a 10 GB log's 23 days of stamps end before the files'
  # modification times (a time index refuses stamps after them).
  target/release/examples/genlog "$F/all.log" "$((MEMBERS * MB))" 42 2026-10-01
  # Cut into members of about MB bytes at line ends, oldest first.
  python3 - "$F" "$MEMBERS" "$MB" <<'EOF'
import os, sys
d, n, mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = [f"app.log.{k}" for k in range(n - 1, 0, -1)] + ["app.log"]
with open(os.path.join(d, "all.log"), "rb") as src:
    for i, name in enumerate(names):
        with open(os.path.join(d, name), "wb") as out:
            if i == len(names) - 1:
                out.write(src.read())
                break
            chunk = src.read(mb)
            chunk += src.readline()
            out.write(chunk)
os.remove(os.path.join(d, "all.log"))
EOF
  for k in $(seq 2 $((MEMBERS - 1))); do Z "$F/app.log.$k"; done
  touch -d '1 hour ago' "$F"/app.log*
fi
if [ ! -f "$M/c.log" ]; then
  echo "generating $M..." >&2
  target/release/examples/genlog "$M/a.log" "$((MB * 3))" 1 2026-10-01
  target/release/examples/genlog "$M/b.log" "$((MB * 3))" 2 2026-10-01
  target/release/examples/genlog "$M/c.log" "$((MB * 3))" 3 2026-10-01
fi
if [ -n "${GEN_ONLY:-}" ]; then exit 0; fi
# The members in order, oldest first, for the baselines.
ORDER=$(for k in $(seq $((MEMBERS - 1)) -1 2); do echo "$F/app.log.$k.gz"; done; echo "$F/app.log.1"; echo "$F/app.log")
ORDER=$(echo $ORDER)  # one line: the commands timed run through sh -c
TEXT=$(for f in $ORDER; do if [[ $f == *.gz ]]; then gzip -l "$f" | awk 'NR==2{print $2}'; else stat -c %s "$f"; fi; done | paste -sd+ | bc)
COMPRESSED=$(du -cb $ORDER | tail -1 | cut -f1)

echo "# lidx log collections — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p')"
echo
echo "Family: $MEMBERS members, $TEXT bytes of text, $COMPRESSED bytes on disk ($((MEMBERS - 2)) gzip -6 members, app.log.1 and app.log plain)."
echo "Merged logs: 3 × $(stat -c %s "$M/a.log") bytes."
echo

# 1. The one-time build.
echo "## 1. Building the family's sidecars (once; two workers)"
echo
rm -f "$F"/*.lidx "$F"/.*.lidx 2>/dev/null || true
/usr/bin/time -f '%e %M' -o "$DIR/build.time" "$LIDX" index -R -q --time "$F/app.log"
read -r secs kb < "$DIR/build.time"
SIDE=$(du -cb "$F"/*.lidx | tail -1 | cut -f1)
echo "lidx index -R --time: $secs s, peak RSS $((kb / 1024)) MiB; sidecars and manifest $SIDE bytes ($(python3 -c "print(f'{$SIDE/$TEXT*100:.3f}')")% of the text)."
for f in a b c; do "$LIDX" index -q --time "$M/$f.log"; done
echo

ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.1f} ms' if float(sys.argv[1]) < 1 else f'{float(sys.argv[1]):.2f} s')" "$1"; }
# The median of N runs of a command (output discarded), in seconds.
med() { python3 -c "
import statistics, subprocess, sys, time
ts = []
for _ in range(int(sys.argv[1]) + 1):
    t = time.perf_counter(); subprocess.run(['sh', '-c', sys.argv[2]], stdout=subprocess.DEVNULL); ts.append(time.perf_counter() - t)
print(statistics.median(ts[1:]))" "$1" "$2"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[2])/float(sys.argv[1]):.1f}')" "$1" "$2"; }

echo "| query | lidx | baseline | baseline / lidx |"
echo "|---|---:|---:|---:|"

# 2. grep -c over the family.
P=ERROR
L=$("$LIDX" grep -R -c "$P" "$F/app.log")
R=$(rg -z -c --no-config "$P" $ORDER | awk -F: '{s+=$NF} END {print s}')
G=$(zgrep -c "$P" $ORDER | awk -F: '{s+=$NF} END {print s}')
[ "$L" = "$R" ] && [ "$L" = "$G" ] || { echo "counts differ: lidx $L, rg $R, zgrep $G" >&2; exit 1; }
read -r a b < <($PAIRS --runs 3 --warmup 1 -- "$LIDX grep -R -c $P $F/app.log" -- "rg -z -c --no-config $P $ORDER")
echo "| grep -c over the family ($L lines) vs rg -z -c | $(ms "$a") | $(ms "$b") | $(ratio "$a" "$b") |"
read -r a b < <($PAIRS --runs 1 --warmup 0 -- "$LIDX grep -R -c $P $F/app.log" -- "zgrep -c $P $ORDER")
echo "| grep -c over the family vs zgrep -c | $(ms "$a") | $(ms "$b") | $(ratio "$a" "$b") |"

# 3. goto a global line near the middle.
N=$(( $("$LIDX" count -R "$F/app.log") / 2 ))
"$LIDX" lines -R "$F/app.log" "$N" > "$DIR/goto-lidx.out"
{ zcat -f $ORDER || true; } | sed -n "${N}p;${N}q" > "$DIR/goto-sed.out"  # zcat ends on SIGPIPE
cmp "$DIR/goto-lidx.out" "$DIR/goto-sed.out"
read -r a b < <($PAIRS --runs 3 --warmup 1 -- "$LIDX lines -R $F/app.log $N" -- "zcat -f $ORDER | sed -n '${N}p;${N}q'")
echo "| goto global line $N vs zcat -f \\| sed -n | $(ms "$a") | $(ms "$b") | $(ratio "$a" "$b") |"

# 4, 5. Ten minutes across the family, and across three merged logs.
STAMP=$("$LIDX" lines -R "$F/app.log" "$N" | cut -c1-16)
S="${STAMP}:00.000Z"
U=$(python3 -c "import datetime,sys; t=datetime.datetime.strptime(sys.argv[1][:19],'%Y-%m-%dT%H:%M:%S')+datetime.timedelta(minutes=10); print(t.strftime('%Y-%m-%dT%H:%M:%S')+'.000Z')" "$S")
"$LIDX" lines -R "$F/app.log" --since "$S" --until "$U" > "$DIR/win-lidx.out"
WL=$(wc -l < "$DIR/win-lidx.out")
a=$(med 5 "$LIDX lines -R $F/app.log --since $S --until $U")
echo "| 10 minutes across the family ($WL lines) | $(ms "$a") | (lnav below) | |"
# The merged logs' own middle (they span fewer hours than the family).
NA=$(( $("$LIDX" count "$M/a.log") / 2 ))
S2="$("$LIDX" lines "$M/a.log" "$NA" | cut -c1-16):00.000Z"
U2=$(python3 -c "import datetime,sys; t=datetime.datetime.strptime(sys.argv[1][:19],'%Y-%m-%dT%H:%M:%S')+datetime.timedelta(minutes=10); print(t.strftime('%Y-%m-%dT%H:%M:%S')+'.000Z')" "$S2")
"$LIDX" lines -I "$M/a.log" "$M/b.log" "$M/c.log" --since "$S2" --until "$U2" > "$DIR/merge-lidx.out"
ML=$(wc -l < "$DIR/merge-lidx.out")
c=$(med 5 "$LIDX lines -I $M/a.log $M/b.log $M/c.log --since $S2 --until $U2")
echo "| 10 minutes over 3 logs merged by time ($ML lines) | $(ms "$c") | (lnav below) | |"
echo

if command -v lnav >/dev/null; then
  echo "## lnav, once each (it indexes every file in memory first)"
  echo
  H=$(mktemp -d)
  for what in family merged; do
    if [ $what = family ]; then files=$ORDER; ours="$DIR/win-lidx.out"; s=$S; u=$U; else files="$M/a.log $M/b.log $M/c.log"; ours="$DIR/merge-lidx.out"; s=$S2; u=$U2; fi
    UL=$(python3 -c "import datetime,sys; t=datetime.datetime.strptime(sys.argv[1][:19],'%Y-%m-%dT%H:%M:%S')-datetime.timedelta(milliseconds=1); print(t.strftime('%Y-%m-%d %H:%M:%S.%f')[:23])" "$u")
    if HOME=$H TZ=UTC timeout 900 /usr/bin/time -f '%e %M' -o "$DIR/lnav.time" \
        lnav -n -c ":hide-lines-before ${s%Z}" -c ":hide-lines-after $UL" $files > "$DIR/lnav-$what.out" 2>"$DIR/lnav.err"; then
      read -r secs kb < "$DIR/lnav.time"
      if cmp -s "$DIR/lnav-$what.out" "$ours"; then same="identical to lidx's"
      elif cmp -s <(sort "$DIR/lnav-$what.out") <(sort "$ours"); then same="the same $(wc -l < "$ours") lines as lidx's, in another order where stamps are out of order (genlog's milliseconds are random within each second: lidx keeps each file's order and merges files by time, lnav reorders)"
      else same="differs from lidx's ($(wc -l < "$DIR/lnav-$what.out") lines against $(wc -l < "$ours"))"; fi
      echo "- $what: lnav $secs s, peak RSS $((kb / 1024)) MiB; its output $same."
    else
      echo "- $what: lnav did not finish within 15 minutes ($(head -c 200 "$DIR/lnav.err"))."
    fi
  done
  rm -rf "$H"
fi

# 6. The viewer over the three logs: launch to its first full screen.
if command -v tmux >/dev/null; then
  echo
  echo "## The viewer over the three logs (launch to the first full screen, median of 3)"
  echo
  SOCK=lidx-family-bench-$$
  view_open() {  # ARGS...: microseconds to the first full screen
    local log="$DIR/view-timing.log" t=()
    for _ in 1 2 3; do
      rm -f "$log"
      tmux -L "$SOCK" kill-server 2>/dev/null || true
      tmux -L "$SOCK" new-session -d -x 120 -y 40 "TZ=UTC LIDX_VIEW_TIMING=$log $LIDX view $*"
      for _ in $(seq 1 6000); do grep -q '^open' "$log" 2>/dev/null && break; sleep 0.05; done
      t+=("$(awk '/^open/{print $2; exit}' "$log")")
      tmux -L "$SOCK" send-keys q
      sleep 0.3
      tmux -L "$SOCK" kill-server 2>/dev/null || true
    done
    printf '%s\n' "${t[@]}" | sort -n | sed -n 2p
  }
  us=$(view_open --merge "$M/a.log" "$M/b.log" "$M/c.log")
  echo "- lidx view --merge, whole logs ($(( $("$LIDX" count "$M/a.log") * 3 )) lines, about): $(ms "$(echo "$us / 1000000" | bc -l)")"
  us=$(view_open --since "$S2" --until "$U2" "$M/a.log" "$M/b.log" "$M/c.log")
  echo "- lidx view --since --until, the 10-minute window ($ML lines): $(ms "$(echo "$us / 1000000" | bc -l)")"
fi
