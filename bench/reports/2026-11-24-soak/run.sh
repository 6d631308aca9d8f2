#!/usr/bin/env bash
# The 2026-11-24 soak figure: zcoll-soak at N = 1..7 world ranks (oversubscribed
# on 2 cores), consecutive seed ranges, one log per rank count.
# Usage: bash bench/reports/2026-11-24-soak/run.sh BUILD_DIR OUT_DIR
set -u
build=${1:-build-h}; out=${2:-bench/results/2026-11-24-soak}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
for spec in 1:3000 2:2000 3:1500 4:1000 5:800 6:600 7:600; do
  np=${spec%%:*}; it=${spec##*:}
  seed=$((np * 1000000))
  echo "== np=$np seeds $seed..$((seed + it - 1)) ($(date -u +%FT%TZ))"
  /usr/bin/time -f "wall %e s, max rss %M KiB" mpirun -np "$np" "$build/tools/zcoll_soak/zcoll-soak" \
    --seed "$seed" --iterations "$it" --max-mib 1 --max-count 20000 --timeout 120
  echo "exit $?"
done
