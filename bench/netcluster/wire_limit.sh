#!/usr/bin/env bash
# wire_limit.sh OUT_DIR BENCH [BENCH_BEFORE] — the fraction of the wire limit
# (docs/performance.md, "The fraction of the wire limit"), with one command: the
# emulated cluster of 2 hosts (a core per rank) at 1 Gbit/s, hom Allreduce of
# 64 MiB of floats against MPI's, REL 1e-4, 5 repeats of 1 timed call (1 warm-up),
# the two modes interleaved, on the fields of data/ (FNOC u-wind, EGM96 geoid) and,
# when ../shared/data has them, ETOPO5; each once with the exact REL range pass and
# once with ZCOLL_REL_RANGE=sampled. With BENCH_BEFORE (a zcoll-bench of another
# build, the same MPI) both binaries run every setting, alternating, so that a
# drift of the machine falls on both. Then prints the table (wire_fraction.py).
#
# Needs root (network namespaces), the MPICH build of zcoll-bench
# (cmake -B build && cmake --build build --target zcoll-bench), and a quiet machine:
# the ranks and the kernel's TCP path share the machine's cores. Takes the
# netcluster lock (/work/netcluster.lock) if it exists. About 6 minutes per
# binary on the 2-core VM (4 settings x 3 fields).
#   sudo bash bench/netcluster/wire_limit.sh results/wire-limit build/tools/zcoll_bench/zcoll-bench
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$1" after="$(realpath "$2")" before="${3:+$(realpath "$3")}"
cd "$repo"
fields=(data/ferret_fnoc-uwnd_132x73x144.f32 data/proj_egm96-geoid_721x1440.f32)
[[ -f ../shared/data/ferret_etopo5-rose_2161x4320.f32 ]] && fields+=(../shared/data/ferret_etopo5-rose_2161x4320.f32)
lock=(); [[ -e /work/netcluster.lock ]] && lock=(flock /work/netcluster.lock)
mkdir -p "$out"
check=""
run() {  # run SIDE BENCH FIELD RANGE
  local tag; tag="$1-$(basename "$3" .f32 | cut -d_ -f2)-$4"
  ZCOLL_REL_RANGE="$4" "${lock[@]}" python3 bench/netcluster/sweep.py --hosts 2 --rates 1gbit \
    --colls allreduce --sizes 64M:64M --modes mpi,hom --rel 1e-4 --repeats 5 --warmup 1 \
    --iters 1 --mpi mpich --bench "$2" --data "$3" --grace 5 $check --out "$out/$tag"
  check=--no-check  # the link check once, before the first run
}
for f in "${fields[@]}"; do
  for range in exact sampled; do
    run after "$after" "$f" "$range"
    [[ -n "$before" ]] && run before "$before" "$f" "$range"
  done
done
python3 bench/netcluster/wire_fraction.py "$out"/*/ | tee "$out/wire_fraction.md"
