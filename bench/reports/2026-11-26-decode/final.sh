#!/usr/bin/env bash
# final.sh N ITER: base (A) vs final (B), interleaved in one process
for f in ferret_fnoc-uwnd_132x73x144 hst-acs_j8bt06nyq-sci_1024x1024 proj_egm96-geoid_721x1440 ferret_etopo5-rose_2161x4320; do
  for rel in 1e-3 1e-4; do
    echo "== ${f%%_1*} $rel N=$1"
    OMP_NUM_THREADS=1 /tmp/h29/abd /tmp/h29/base/libzcoll.so.1.1.0 /tmp/h29/final/libzcoll.so.1.1.0 /work/shared/data/$f.f32 $rel $1 $2
  done
done
