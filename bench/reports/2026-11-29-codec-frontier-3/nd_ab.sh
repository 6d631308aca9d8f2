#!/usr/bin/env bash
# run.sh OUT — nd_speed (dense_speed.cc with each file's dims) against main before this
# session (3b46e4d, /work/wt-base/build) and the branch (61dd709, its libzcoll.so copied to /tmp/ablib), alternating,
# 4 rounds, 3 repetitions each, one thread. Build: g++ -O2 -std=c++17 nd_speed.cc
# -I include -I build/include -L build -lzcoll -o nd_speed
set -euo pipefail
OUT=$1; mkdir -p "$OUT"
for k in 1 2 3 4; do for B in base new; do
  L=/tmp/ablib; [ $B = base ] && L=/work/wt-base/build
  { echo "# $B round $k $(date -u +%FT%TZ) $(uptime)"; OMP_NUM_THREADS=1 LD_LIBRARY_PATH=$L ./nd_speed /work/shared/data 3 1; } > "$OUT/$B-$k.txt"
done; done
