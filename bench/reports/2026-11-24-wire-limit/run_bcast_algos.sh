#!/usr/bin/env bash
# run_bcast_algos.sh OUT BUILD: Bcast 64 MiB (FNOC winds, REL 1e-4) on the emulated cluster
# (4 hosts, 1 Gbit/s, set up by the caller) in modes mpi,raw,hom with each Bcast algorithm
# forced (ZCOLL_BCAST_ALGO), to separate the wire (raw) from the codec (hom).
# Call it under `flock /work/netcluster.lock`.
set -euo pipefail
out="$1"; b="$2"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
mkdir -p "$out"
for algo in binomial chain; do
  NETCLUSTER_FINALIZE_GRACE=5 "$repo/tools/netcluster/netcluster.sh" run --mpi mpich 4 -- \
    env LD_LIBRARY_PATH="$b" ZCOLL_BCAST_ALGO=$algo "$b/zcoll-bench" bcast -b 64M -e 64M \
    --data "$repo/data/ferret_fnoc-uwnd_132x73x144.f32" --rel 1e-4 --modes mpi,raw,hom -w 1 -n 3 \
    --threads 1 --breakdown --json "$out/bcast_$algo.json" > "$out/bcast_$algo.log" 2>&1
done
