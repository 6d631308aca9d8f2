#!/usr/bin/env bash
# run_ab.sh OUTDIR ROUNDS REPS — dense_speed of main's base (3b46e4d) and this branch,
# alternating base new base new ..., one thread; raw outputs OUTDIR/{base,new}-R.txt.
set -euo pipefail
out="$1"; rounds="${2:-6}"; reps="${3:-5}"
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for b in base new; do
    OMP_NUM_THREADS=1 /tmp/wts-$b/dense_speed /work/shared/data "$reps" 1 > "$out/$b-$r.txt"
  done
done
