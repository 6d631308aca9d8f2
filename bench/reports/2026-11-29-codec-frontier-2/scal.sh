#!/usr/bin/env bash
# scal.sh OUT — bench-out/scal (scal.c) on every file of data/ at REL 1e-2/1e-3/1e-4:
# wall-clock minimum over ITER calls with 1 and 2 threads, base (build-base) and branch
# (build) alternating ROUNDS times.
set -euo pipefail
cd /work/wt-fast-memlimit
ITER=${ITER:-40} ROUNDS=${ROUNDS:-2}
{ echo "# $(date -u +%FT%TZ) uptime: $(uptime)"
for f in data/*.f32; do for r in 1e-2 1e-3 1e-4; do for k in $(seq $ROUNDS); do for B in build-base build; do
  LD_LIBRARY_PATH=$B bench-out/scal $f $r $ITER | awk -v B=$B -v f=$(basename $f) -v r=$r -v k=$k \
    '{printf "%s %s %s %s %s %s %s\n", B, f, r, k, $1, $3, $6}'
done; done; done; done
echo "# end $(date -u +%FT%TZ) uptime: $(uptime)"; } > "$1"
