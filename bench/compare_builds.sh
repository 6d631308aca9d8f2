#!/usr/bin/env bash
# compare_builds.sh OLD_BUILD NEW_BUILD OUT_DIR [ROUNDS] — the codec benchmark
# (compress/decompress and hom add vs DOC) and a 2-rank Allreduce of the same
# two builds, interleaved round by round (old, new, old, new, ...), so that the
# machine's drift hits both alike. Writes one JSON per run into OUT_DIR and
# prints a median (min-max) table per build with bench/compare_builds.py.
set -euo pipefail
old="$1"; new="$2"; out="$3"; rounds="${4:-5}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="$here/../data"
mkdir -p "$out"
for ((i = 1; i <= rounds; ++i)); do
  for side in old new; do
    b="$old"; [[ $side == new ]] && b="$new"
    "$b/bench/zcoll-codec-bench" --data-dir "$data" --files geoid uwnd --threads 1 --rel 1e-3 \
      --repeat 5 --json "$out/codec_${side}_$i.json" > /dev/null
    "$b/bench/zcoll-codec-bench" --data-dir "$data" --files geoid --threads 1 --rel 1e-3 \
      --repeat 5 --hom --json "$out/hom_${side}_$i.json" > /dev/null
    OMP_NUM_THREADS=1 mpirun -np 2 "$b/tools/zcoll_bench/zcoll-bench" allreduce -b 1M -e 16M -f 4 \
      --data "$data/ferret_fnoc-uwnd_132x73x144.f32" --rel 1e-4 --modes mpi,hom,doc \
      --json "$out/allreduce_${side}_$i.json" > /dev/null
  done
done
python3 "$here/compare_builds.py" "$out"
