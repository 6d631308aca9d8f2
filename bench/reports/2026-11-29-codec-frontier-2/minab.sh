#!/usr/bin/env bash
# minab.sh OUT — profile_driver (bench/reports/2026-11-25-codec/profile_driver.c, built as
# bench-out/pd) on every file of data/ at REL 1e-2/1e-3/1e-4, 1 thread: the smallest thread
# CPU time of ITER calls per op (and of a memcpy of the same bytes in the same process),
# base (build-base) and branch (build) alternating ROUNDS times. Prints one line per run.
set -euo pipefail
cd /work/wt-fast-memlimit
ITER=${ITER:-30} ROUNDS=${ROUNDS:-3}
{ echo "# $(date -u +%FT%TZ) uptime: $(uptime)"
for f in data/*.f32; do for r in 1e-2 1e-3 1e-4; do for k in $(seq $ROUNDS); do for B in ${A:-build-base} ${B:-build}; do
  LD_LIBRARY_PATH=$B bench-out/pd $f $r 1 $ITER | awk -v B=$B -v f=$(basename $f) -v r=$r -v k=$k \
    '/GB\/s/{printf "%s %s %s %s %s %s\n", B, f, r, k, $1, $2}'
done; done; done; done
echo "# end $(date -u +%FT%TZ) uptime: $(uptime)"; } > "$1"
