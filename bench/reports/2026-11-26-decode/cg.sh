#!/usr/bin/env bash
# cg.sh LIBDIR TAG: callgrind Ir per value of decompress / accumulate / hom_add
lib="$1"; tag="$2"
for f in ferret_fnoc-uwnd_132x73x144 hst-acs_j8bt06nyq-sci_1024x1024 ferret_etopo5-rose_2161x4320; do
  n=$(( $(stat -c %s /work/shared/data/$f.f32) / 4 ))
  for rel in 1e-3 1e-4; do
    for op in decompress decompress_accumulate hom_add; do
      LD_LIBRARY_PATH=$lib OMP_NUM_THREADS=1 valgrind --tool=callgrind --toggle-collect="op_$op" \
        --callgrind-out-file=/tmp/h29/cg.$tag.out /tmp/h29/drv /work/shared/data/$f.f32 $rel 1 1 $op > /tmp/h29/drv.$tag.log 2>/dev/null
      ir=$(callgrind_annotate /tmp/h29/cg.$tag.out 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{gsub(",","",$1); print $1}')
      echo "$tag $f $rel $op $ir $(python3 -c "print(f'{$ir/$n:.3f}')")"
    done
  done
done
