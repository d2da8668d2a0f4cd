#!/bin/sh
# Rewrites tests/rg/expected.txt: ripgrep 15.2.0's output for every case of
# tests/it/rgsuite/cases.rs. LIDX_RG names the ripgrep to run (it must be
# 15.2.0; default /opt/rg-current/bin/rg, else `rg` on PATH).
set -e
cd "$(dirname "$0")/../../.."
if [ -z "$LIDX_RG" ]; then
    if [ -x /opt/rg-current/bin/rg ]; then LIDX_RG=/opt/rg-current/bin/rg; else LIDX_RG=rg; fi
fi
export LIDX_RG RGSUITE_REGEN=1
exec nice -n 10 cargo test -p lidx-cli --test it rgsuite_cases_match_rg -- --nocapture
