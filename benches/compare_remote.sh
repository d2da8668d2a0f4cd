#!/usr/bin/env bash
# Remote sources: lidx reading a URL served by nginx on loopback, side by
# side with downloading and decompressing (curl | zcat | sed / rg), in one
# run.
#
#   benches/compare_remote.sh [TEXT_BYTES] [DATA_DIR]   (default: 1 GiB, ./bench-data)
#
# Generates a deterministic log (examples/genlog.rs), compresses it with
# gzip -6, builds both sidecars locally and ships them next to the files
# in a directory that nginx (started here, on a free port of 127.0.0.1,
# stopped on exit) serves. Then, for the plain text and the archive:
#   1. goto a line near the end, cold (no cache of any kind on the client:
#      every lidx process starts from nothing): requests, round trips and
#      bytes from nginx's access log and lidx's counters, and the
#      whole-process time (hyperfine median) against
#      curl -s URL | [zcat |] sed -n 'Np;Nq'; outputs checked identical;
#   2. grep --lines over 1% of the lines in the middle, against
#      curl -s URL | [zcat |] sed -n 'A,Bp;Bq' | rg (the same output,
#      checked identical first), with requests, bytes and peak RSS;
#   3. a shipped pair copied without -p (new modification time): the first
#      query on the copy (no remembered content check: an empty cache
#      directory before every run) against the same query on the pair as
#      indexed, locally and served by nginx.
# Needs: nginx, hyperfine, curl, gzip, rg, GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1073741824}
DIR=$(realpath -m "${2:-bench-data}")
mkdir -p "$DIR"
LIDX=$PWD/target/release/lidx
cargo build --release --quiet --example genlog
cargo build --release --quiet
T="$DIR/remote-$SIZE.log"
if [ ! -f "$T" ]; then
  echo "generating $T..." >&2
  target/release/examples/genlog "$T" "$SIZE"
fi
[ -f "$T.gz" ] || gzip -6 -c "$T" > "$T.gz"
for f in "$T" "$T.gz"; do [ -f "$f.lidx" ] || "$LIDX" index -q "$f"; done

# nginx on a free port, serving hard links of the files and their sidecars.
NG="$DIR/nginx"
rm -rf "$NG" && mkdir -p "$NG/www" "$NG/tmp"
for f in "$T" "$T.lidx" "$T.gz" "$T.gz.lidx"; do ln "$f" "$NG/www/" 2>/dev/null || cp "$f" "$NG/www/"; done
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$NG/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log;
events { worker_connections 256; }
http {
  log_format lidx '\$request|\$http_range|\$status|\$body_bytes_sent';
  access_log $NG/access.log lidx;
  client_body_temp_path $NG/tmp; proxy_temp_path $NG/tmp; fastcgi_temp_path $NG/tmp;
  uwsgi_temp_path $NG/tmp; scgi_temp_path $NG/tmp;
  sendfile on;
  server { listen 127.0.0.1:$PORT; root $NG/www; }
}
EOF
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
"$NGINX" -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log" &
NGPID=$!
trap 'kill $NGPID 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.05; done

JSON="$DIR/hf-remote.json"
CACHE="$DIR/xdg-cache"
export XDG_CACHE_HOME="$CACHE"
median() { python3 -c "import json,sys; r=json.load(open('$JSON'))['results']; print(r[int(sys.argv[1])]['median'])" "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.0f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.1f} ms')" "$1"; }
hfs() { hyperfine --output=pipe --style none --export-json "$JSON" "$@" >/dev/null 2>&1 || hyperfine --output=pipe --export-json "$JSON" "$@"; }
# Requests and bytes of one run of "$@" from nginx's log, and lidx's round trips.
measure() {
  sleep 0.2; : > "$NG/access.log"
  local st
  st=$(LIDX_REMOTE_STATS=1 "$@" 2>&1 >/dev/null | sed -n 's/^lidx: remote: //p')
  sleep 0.3
  local req bytes
  req=$(wc -l < "$NG/access.log")
  bytes=$(awk -F'|' '{s+=$4} END {print s+0}' "$NG/access.log")
  local trips
  trips=$(echo "$st" | sed -n 's/.*bytes, \([0-9]*\) round trips/\1/p')
  echo "$req|$bytes|$trips"
}

echo "# lidx on remote sources — $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/Model name: *//p')"
echo
echo "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1 (loopback: no network latency, so these"
echo "times are the floor; on a real link each round trip adds its RTT to lidx and each"
echo "byte to the pipelines). Text: $SIZE bytes; archive: $(stat -c %s "$T.gz") bytes (gzip -6)."
echo "Sidecars shipped next to the files: $(stat -c %s "$T.lidx") and $(stat -c %s "$T.gz.lidx") bytes."
echo
LINES=$("$LIDX" count "$T")
N=$((LINES - 10))
echo "## 1. Goto line $N of $LINES, cold (whole process, median)"
echo
echo "| source | lidx lines URL N | requests | round trips | bytes | curl \\| sed -n 'Np;Nq' | pipeline / lidx |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for kind in plain gzip; do
  if [ $kind = plain ]; then U="http://127.0.0.1:$PORT/$(basename "$T")"; CAT=""; else U="http://127.0.0.1:$PORT/$(basename "$T").gz"; CAT="zcat |"; fi
  A=$("$LIDX" lines "$U" "$N" | md5sum)
  B=$(set +o pipefail; curl -s "$U" | { if [ -n "$CAT" ]; then zcat 2>/dev/null; else cat; fi; } | sed -n "${N}p;${N}q" | md5sum)
  [ "$A" = "$B" ] || { echo "MISMATCH lidx vs curl|sed at line $N ($kind)"; exit 1; }
  IFS='|' read -r REQ BYTES TRIPS <<< "$(measure "$LIDX" lines "$U" "$N")"
  hfs -N --warmup 3 --runs 20 "$LIDX lines $U $N"
  LW=$(median 0)
  hfs --runs 3 "curl -s $U | $CAT sed -n '${N}p;${N}q'"
  S=$(median 0)
  echo "| $kind | $(ms "$LW") | $REQ | $TRIPS | $BYTES | $(ms "$S") | $(ratio "$S" "$LW")× |"
done
echo
LA=$((LINES / 2)); LB=$((LA + LINES / 100 - 1))
R=payload=4242
echo "## 2. grep --lines $LA:$LB (1% of the lines) for $R"
echo
echo "| source | lidx grep --lines | requests | bytes | peak RSS | curl \\| sed -n 'A,Bp;Bq' \\| rg | pipeline / lidx |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for kind in plain gzip; do
  if [ $kind = plain ]; then U="http://127.0.0.1:$PORT/$(basename "$T")"; CAT=""; else U="http://127.0.0.1:$PORT/$(basename "$T").gz"; CAT="zcat |"; fi
  X=$("$LIDX" grep -N --lines "$LA:$LB" "$R" "$U" | md5sum)
  Y=$(set +o pipefail; curl -s "$U" | { if [ -n "$CAT" ]; then zcat 2>/dev/null; else cat; fi; } | sed -n "${LA},${LB}p;${LB}q" | rg "$R" | md5sum)
  [ "$X" = "$Y" ] || { echo "MISMATCH grep --lines vs curl|sed|rg ($kind)"; exit 1; }
  IFS='|' read -r REQ BYTES TRIPS <<< "$(measure "$LIDX" grep -N --lines "$LA:$LB" "$R" "$U")"
  RSS=$( { /usr/bin/time -f %M "$LIDX" grep -N --lines "$LA:$LB" "$R" "$U" >/dev/null; } 2>&1 | tail -1)
  hfs --warmup 1 --runs 10 "$LIDX grep -N --lines $LA:$LB $R $U"
  GL=$(median 0)
  hfs --runs 3 "curl -s $U | $CAT sed -n '${LA},${LB}p;${LB}q' | rg $R"
  GR=$(median 0)
  echo "| $kind | $(ms "$GL") | $REQ | $BYTES | $((RSS / 1024)) MiB | $(ms "$GR") | $(ratio "$GR" "$GL")× |"
done
echo
echo "Cold means no client-side cache: the remote reader's block cache lives in"
echo "the process, and every run is a new process (the server's page cache is warm)."
echo
echo "## 3. A shipped pair copied without -p: the first query (goto line $N)"
echo
echo "Every run starts with an empty user cache directory, so the content check"
echo "of spec R-43 runs each time (nothing remembered)."
echo
echo "| source | where | pair as indexed | copy, first query | copy / indexed |"
echo "|---|---|---:|---:|---:|"
COPY="$NG/www/copy"
mkdir -p "$COPY"
for f in "$T" "$T.lidx" "$T.gz" "$T.gz.lidx"; do cp "$f" "$COPY/"; done
FRESH="$DIR/xdg-fresh"
for kind in plain gzip; do
  if [ $kind = plain ]; then B=$(basename "$T"); else B=$(basename "$T").gz; fi
  for where in local nginx; do
    if [ $where = local ]; then O="$T"; [ $kind = gzip ] && O="$T.gz"; C="$COPY/$B"
    else O="http://127.0.0.1:$PORT/$B"; C="http://127.0.0.1:$PORT/copy/$B"; fi
    A=$(XDG_CACHE_HOME="$FRESH" "$LIDX" lines "$C" "$N" 2>/dev/null | md5sum)
    Bs=$("$LIDX" lines "$O" "$N" | md5sum)
    [ "$A" = "$Bs" ] || { echo "MISMATCH copy vs pair ($kind, $where)"; exit 1; }
    hfs -N --warmup 2 --runs 15 --prepare "rm -rf $FRESH" "$LIDX lines $O $N" \
      "env XDG_CACHE_HOME=$FRESH $LIDX lines $C $N"
    P0=$(median 0); P1=$(median 1)
    echo "| $kind | $where | $(ms "$P0") | $(ms "$P1") | $(python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$P1" "$P0") |"
  done
done
cmp -s "$T.gz.lidx" "$COPY/$(basename "$T").gz.lidx" && echo && echo "The copied sidecars are unchanged afterwards (cmp)."

