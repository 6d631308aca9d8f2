#!/usr/bin/env bash
# code_misses.sh CALL FILE VALUES REL: the code cache lines one zcoll_hom_add (1 thread) brings
# from memory when its code has not run before in the process (callgrind's cache simulation, a
# 32 MiB 16-way LL, counting inside measured_call only). That is its code on caches that were
# emptied, as on a CPU whose L2 holds what L1i does. Its inputs were just written by
# zcoll_compress, so its data misses (DLmr, DLmw) are not the cold call's. CALL: cold_call built
# against the library to count. Prints the totals and the functions with code misses (ILmr).
set -euo pipefail
call=$1 file=$2 n=$3 rel=$4
out=$(mktemp)
valgrind --tool=callgrind --cache-sim=yes --LL=33554432,16,64 --toggle-collect='*measured_call*' \
  --callgrind-out-file="$out" "$call" "$file" "$n" "$rel" 0 >/dev/null 2>&1
callgrind_annotate --threshold=100 --show=Ir,ILmr,DLmr,DLmw --sort=ILmr "$out" 2>/dev/null |
  sed -n '/^Ir /,$p' | awk 'NR <= 2 || $3 + 0 > 0' | cut -c1-160
rm -f "$out"
