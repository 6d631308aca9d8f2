#!/usr/bin/env bash
# The soak figure again on the merged code of this session (checksums, status agreement,
# abort notices, per-call tags, bcast_chain, the device seam, segment-wise allgather decoding):
# zcoll-soak at N = 1..7 world ranks (oversubscribed on 2 cores), seed ranges that the first
# figure (../2026-11-24-soak) did not use, one log per rank count.
# Usage: bash bench/reports/2026-11-24-soak-merged/run.sh BUILD_DIR OUT_DIR
set -u
build=${1:-build-h}; out=${2:-bench/results/2026-11-24-soak-merged}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
for spec in 1:3000 2:3000 3:1200 4:800 5:600 6:450 7:450; do
  np=${spec%%:*}; it=${spec##*:}
  seed=$((np * 1000000 + 500000))
  echo "== np=$np seeds $seed..$((seed + it - 1)) ($(date -u +%FT%TZ))"
  /usr/bin/time -f "wall %e s, max rss %M KiB" mpirun -np "$np" "$build/tools/zcoll_soak/zcoll-soak" \
    --seed "$seed" --iterations "$it" --max-mib 1 --max-count 20000 --timeout 120
  echo "exit $?"
done
