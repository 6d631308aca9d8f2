#!/usr/bin/env bash
# run_pair.sh OUT ROUNDS DATA REL COLLS [BUILDS...]: on the emulated cluster (4 hosts,
# 1 Gbit/s; set up by the caller), zcoll-bench 64 MiB, modes mpi,hom, --breakdown,
# 1 warm-up + 3 iterations, for each build directory in BUILDS (each holds
# zcoll-bench, libzcoll.so.1, libzcoll_mpi.so.1), interleaved round by round
# (base, new, base, new, ...) so that the shared machine's drift hits both alike.
# Call it under `flock /work/netcluster.lock` (docs/netcluster.md).
set -euo pipefail
out="$1"; rounds="$2"; data="$3"; rel="$4"; colls="$5"; shift 5
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
mkdir -p "$out"
tag=$(basename "$data" .f32 | cut -d_ -f2)_$rel
for ((i = 1; i <= rounds; ++i)); do
  for b in "$@"; do
    name=$(basename "$b")
    for c in ${colls//,/ }; do
      NETCLUSTER_FINALIZE_GRACE=5 "$repo/tools/netcluster/netcluster.sh" run --mpi mpich 4 -- \
        env LD_LIBRARY_PATH="$b" "$b/zcoll-bench" "$c" -b 64M -e 64M --data "$data" --rel "$rel" \
        --modes mpi,hom -w 1 -n 3 --threads 1 --breakdown \
        --json "$out/${tag}_${c}_${name}_$i.json" > "$out/${tag}_${c}_${name}_$i.log" 2>&1
    done
  done
done
