#!/usr/bin/env bash
# ab.sh OUT ROUNDS BASE_LIB NEW_LIB — nd_speed (part 3's nd_speed.cc: every file of
# shared/data at REL 1e-2/1e-3/1e-4 with its dims, one thread, 3 repetitions; NODIMS=1:
# without dims) against two builds of libzcoll.so, alternating, ROUNDS rounds; one file
# per build and round (OUT/base-K.txt, OUT/new-K.txt). Tables: part 3's nd_ab_table.py OUT.
# Build: g++ -O2 -std=c++17 ../2026-11-29-codec-frontier-3/nd_speed.cc -I include
#   -I build/include -L build -lzcoll -o nd_speed
set -euo pipefail
OUT=$1; R=$2; BASE=$3; NEW=$4; mkdir -p "$OUT"
for k in $(seq 1 "$R"); do for B in base new; do
  L=$NEW; [ $B = base ] && L=$BASE
  { echo "# $B round $k $(date -u +%FT%TZ) $(uptime)"; OMP_NUM_THREADS=1 LD_LIBRARY_PATH=$L ${BIN:-./nd_speed} /work/shared/data 3 1; } > "$OUT/$B-$k.txt"
done; done
