#!/usr/bin/env bash
# measure.sh OUT_DIR BENCH [ROUNDS [PLACEMENT [SIZES]]] — node-aware against flat Allreduce on the
# emulated cluster (docs/netcluster.md): 2 hosts x 2 ranks (netcluster run
# --ranks-per-host 2, ZCOLL_NODE_MAP=0,0,1,1), 1 Gbit/s, hom and MPI at 4, 16 and
# 64 MiB of the FNOC u-wind field, REL 1e-4; zcoll-bench --algo ring (flat) and
# --algo node_aware in alternating sweeps (ROUNDS of each, default 2), each sweep 5
# repeats of 1 timed call (1 warm-up) with the two modes interleaved. Then
# summarize.py prints the table. Needs root and a quiet machine (4 ranks and the
# kernel's TCP path share the 2 cores); about 2 minutes per sweep. PLACEMENT
# round-robin (default by-node): rank i on host i mod 2 (netcluster run
# --round-robin, ZCOLL_NODE_MAP=0,1,0,1); SIZES (default 4M:64M) as sweep.py's
# BEGIN:END.
#   sudo bash bench/reports/2026-11-26-node-aware/measure.sh \
#     bench/results/2026-11-26-node-aware/run build/tools/zcoll_bench/zcoll-bench
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="$(realpath -m "$1")" bench="$(realpath "$2")" rounds="${3:-2}"
placement="${4:-by-node}" sizes="${5:-4M:64M}"
rr=""; [ "$placement" = round-robin ] && rr=--round-robin
cd "$repo"
mkdir -p "$out"
check=""
for (( i = 1; i <= rounds; i++ )); do
  for algo in ring node_aware; do
    python3 bench/netcluster/sweep.py --hosts 2 --ranks-per-host 2 --rates 1gbit \
      --colls allreduce --sizes "$sizes" --factor 4 $rr --modes mpi,hom --rel 1e-4 --repeats 5 \
      --warmup 1 --iters 1 --mpi mpich --bench "$bench" \
      --data data/ferret_fnoc-uwnd_132x73x144.f32 --bench-args "--algo $algo" --grace 5 \
      $check --out "$out/$algo-$i"
    check=--no-check  # the link check once, before the first sweep
  done
done
python3 "$here/summarize.py" "$out" | tee "$out/summary.md"
