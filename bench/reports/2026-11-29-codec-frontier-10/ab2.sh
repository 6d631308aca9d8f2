#!/bin/bash
# ab2.sh ROUNDS OUT CLI... : as ab.sh, but each round drops the page cache and runs fresh copies
# of the binaries (the speed of a binary on this VM depends on where its pages land: ±30%).
rounds=$1; out=$2; shift 2; data=${DATA:-../shared/data}
: > $out
for r in $(seq $rounds); do
 sync; echo 3 > /proc/sys/vm/drop_caches
 bins=()
 for b in "$@"; do c=${TMPDIR:-/tmp}/ab2-bin/$(basename $b).$r; mkdir -p ${TMPDIR:-/tmp}/ab2-bin; cp $b $c; bins+=($c); done
 for f in ferret_fnoc-uwnd_132x73x144 ferret_fnoc-vwnd_132x73x144 ncarg_rect3d-t_17x96x192 ncarg_trinidad-elev_1201x2401 ncarg_rect3d-rhumidity_17x96x192 ferret_etopo5-rose_2161x4320; do
  d=${f##*_}
  for rel in 1e-2 1e-3 1e-4; do
   for i in "${!bins[@]}"; do
    ${bins[$i]} eval -i $data/$f.f32 --type f32 --rel $rel --threads 1 --codec dense --dims $d --repeat 5 --json | python3 -c "import json,sys; d=json.load(sys.stdin); print('$(basename ${@:$((i+1)):1})', '$f', '$rel', $r, d['ratio'], d['compress_gbps'], d['decompress_gbps'])" >> $out
   done; done; done; done
