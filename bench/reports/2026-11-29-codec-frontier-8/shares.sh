#!/bin/bash
# shares.sh NDTIME DATA LIBDIR... — instruction counts (callgrind) of nd_time's two
# compressions and two decompressions (REPS 1, 1-D) with each LIBDIR's libzcoll.so.1:
# zcoll_compress, quantize_avx2 and zcoll_decompress, inclusive; one line per run.
set -euo pipefail
BIN=$1; D=$2; shift 2
T=$(mktemp -d)
for f in corrfunc_mr19-x_1235904 ferret_etopo5-rose_2161x4320 hst-acs_j8bt06nyq-sci_1024x1024; do
  for r in 1e-3 1e-4; do
    for lib in "$@"; do
      LD_LIBRARY_PATH=$lib valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" \
        "$BIN" "$D/$f.f32" $r 1 > /dev/null 2>&1
      callgrind_annotate --inclusive=yes "$T/cg.out" > "$T/cg.txt" 2> /dev/null
      get() { grep -m1 "$1" "$T/cg.txt" | awk '{gsub(",", "", $1); print $1}'; }
      echo "$f $r $(basename "$lib") compress $(get '???:zcoll_compress ') quantize" \
        "$(get 'quantize_avx2<float>') decompress $(get '???:zcoll_decompress ')"
    done
  done
done
rm -rf "$T"
