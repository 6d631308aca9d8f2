#!/usr/bin/env bash
# measure.sh BASE_BENCH NEW_BENCH [OUT] — issue 24's "nothing got slower": zcoll-bench of
# bcf2391 (before the control layer was rebuilt) and of this commit, alternately, ROUNDS
# times in one run, on the same data and settings; each run one repeat of the grid with
# the modes interleaved. 2 ranks on this 2-core machine (shared memory: the codec and the
# control path are what is compared, not a network). summarize.py reads the JSON. OUT
# defaults to bench/results/2026-11-26-control-layer (the run of the report is packed there).
set -euo pipefail
base=$1; new=$2; out=${3:-$(dirname "$0")/../../results/2026-11-26-control-layer}
mkdir -p "$out"
rounds=${ROUNDS:-5}
data=${DATA:-data/ferret_fnoc-uwnd_132x73x144.f32}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive ZCOLL_MIN_BYTES=0
for r in $(seq 1 "$rounds"); do
  for coll in allreduce reduce_scatter allgather bcast; do
    for which in base new; do
      exe=$base; [[ $which == new ]] && exe=$new
      mpiexec -n 2 "$exe" "$coll" -b 1M -e 16M -f 4 --data "$data" --rel 1e-4 \
        --modes mpi,raw,cpr_p2p,doc,hom -w 2 -n 5 \
        --json "$out/$which-$coll-r$r.json" > "$out/$which-$coll-r$r.txt"
    done
  done
done
