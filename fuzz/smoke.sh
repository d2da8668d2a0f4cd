#!/usr/bin/env bash
# A short fuzz run of every target, for CI: FUZZ_SECONDS (default 45) each,
# from the committed seeds, with a fixed libFuzzer seed. New inputs go to a
# scratch corpus, never into seeds/. A crash, a leak or a timeout in a
# target fails the run (the reproducer is left in fuzz/artifacts/); a
# machine that cannot install cargo-fuzz or build with its sanitizer
# instrumentation skips the smoke run with a message.
set -euo pipefail
cd "$(dirname "$0")"
secs=${FUZZ_SECONDS:-45}

skip() {
  echo "fuzz smoke: SKIPPED: $1" >&2
  exit 0
}

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version 0.13.2 --quiet \
    || skip "cannot install cargo-fuzz"
fi
# cargo-fuzz needs nightly flags (-Zsanitizer); this lets a stable
# toolchain accept them.
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz build -O >/dev/null 2>build.log; then
  tail -20 build.log >&2
  # Code that does not compile is a failure; only a toolchain that cannot
  # build with the sanitizer is a reason to skip.
  if grep -q 'error\[E[0-9]*\]' build.log; then
    echo "fuzz smoke: FAILED: the targets do not compile" >&2
    exit 1
  fi
  skip "the targets do not build here"
fi
rm -f build.log

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for target in sidecar ingest cache stamps parsers; do
  mkdir -p "$scratch/$target"
  if ! cargo fuzz run -O "$target" "$scratch/$target" "seeds/$target" -- \
      -max_total_time="$secs" -seed=1 -print_final_stats=1 >"$scratch/log" 2>&1; then
    tail -40 "$scratch/log" >&2
    echo "fuzz smoke: $target FAILED (reproducer in fuzz/artifacts/$target/)" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/log" | grep -o '[0-9]*$' || echo '?')
  echo "fuzz smoke: $target: $runs runs in ${secs} s, no finding"
done
