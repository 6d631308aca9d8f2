#!/usr/bin/env bash
# hot_ranges.sh CALL FILE VALUES REL LIB: the functions of LIB (libzcoll.so) whose code one
# cold zcoll_hom_add brings from memory (part 16's code_misses.sh measurement: callgrind's
# cache simulation inside measured_call of cold_call, ZCOLL_SIMD=avx2 since valgrind runs
# no AVX-512), as "offset size" lines (hex, from nm) for code_prefetch.cc. CALL: part 16's
# cold_call built against LIB.
set -euo pipefail
call=$1 file=$2 n=$3 rel=$4 lib=$5
out=$(mktemp)
ZCOLL_SIMD=avx2 valgrind --tool=callgrind --demangle=no --cache-sim=yes --LL=33554432,16,64 \
  --toggle-collect='*measured_call*' --callgrind-out-file="$out" "$call" "$file" "$n" "$rel" 0 \
  >/dev/null 2>&1
callgrind_annotate --threshold=100 --show=ILmr --sort=ILmr "$out" 2>/dev/null |
  awk '/libzcoll/ && $1 + 0 > 0 && match($0, /\?\?\?:[^ ]+/) { print substr($0, RSTART + 4, RLENGTH - 4) }' |
  while read -r sym; do nm -S "$lib" | awk -v s="$sym" '$4 == s { print $1, $2 }'; done
rm -f "$out"
