#!/usr/bin/env bash
# probes.sh OUT: the machine probes of part 15, into OUT/ (see the report).
#  memcpy-drift.txt    memcpy_drift 5550336 6000 (fnoc's bytes; about 45 s)
#  core-scaling.txt    core_scaling KIND 1|2 ITERS, 5 interleaved repeats per kind
set -euo pipefail
out=$1; here=$(cd "$(dirname "$0")" && pwd); mkdir -p "$out"
gcc -O2 -o "$out/memcpy_drift" "$here/memcpy_drift.c"
gcc -O2 -mavx2 -mfma -fopenmp -o "$out/core_scaling" "$here/core_scaling.c"
"$out/memcpy_drift" 5550336 6000 >"$out/memcpy-drift.txt"
: >"$out/core-scaling.txt"
for r in 1 2 3 4 5; do
  for k in "int 1000000000" "avx2int 1500000000" "fma 1000000000"; do
    set -- $k
    for t in 1 2; do "$out/core_scaling" "$1" "$t" "$2" >>"$out/core-scaling.txt"; done
  done
done
rm -f "$out/memcpy_drift" "$out/core_scaling"
