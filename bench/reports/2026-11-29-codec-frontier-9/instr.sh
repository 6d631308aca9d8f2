#!/usr/bin/env bash
# instr.sh ZCOLL_CLI TAG [DATA] — callgrind's instruction counts of one dense
# compression (zcoll_compress only, not the tool's file I/O) and one
# decompression (zcoll_decompress) with dims, one thread, of five fields at
# REL 1e-2 and 1e-4: one line per field and bound, "TAG field rel compress N
# decompress N". Two builds' lines side by side: their instruction ratio.
set -euo pipefail
bin=$1; tag=$2; data=${3:-../shared/data}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in ferret_etopo5-rose_2161x4320:2161x4320 ferret_fnoc-vwnd_132x73x144:132x73x144 \
         obspy_bw-kw1-ehz_936001:936001 proj_egm96-geoid_721x1440:721x1440 \
         ncarg_rect3d-t_17x96x192:17x96x192; do
  n=${f%%:*}; dims=${f##*:}
  for rel in 1e-2 1e-4; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/c.out" --toggle-collect=zcoll_compress \
      "$bin" compress -i "$data/$n.f32" -o "$tmp/s.zc" --type f32 --rel $rel --threads 1 \
      --codec dense --dims "$dims" >/dev/null 2>&1
    c=$(callgrind_annotate "$tmp/c.out" 2>/dev/null | awk '/PROGRAM TOTALS/{print $1}')
    valgrind --tool=callgrind --callgrind-out-file="$tmp/d.out" --toggle-collect=zcoll_decompress \
      "$bin" decompress -i "$tmp/s.zc" -o "$tmp/s.out" --threads 1 >/dev/null 2>&1
    d=$(callgrind_annotate "$tmp/d.out" 2>/dev/null | awk '/PROGRAM TOTALS/{print $1}')
    echo "$tag $n $rel compress $c decompress $d"
  done
done
