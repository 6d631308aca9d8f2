#!/usr/bin/env bash
# ab.sh DIRA DIRB ITER: B/A (>1 = B faster), whole fields, interleaved in one process
for f in ferret_fnoc-uwnd_132x73x144 hst-acs_j8bt06nyq-sci_1024x1024 proj_egm96-geoid_721x1440 ncarg_rect3d-t_17x96x192; do
  for rel in 1e-3 1e-4; do
    echo "== ${f%%_[0-9]*} $rel  load $(cut -d' ' -f1 /proc/loadavg)"
    OMP_NUM_THREADS=1 nice -n 5 /tmp/h29b/abd $1/libzcoll.so.1.1.0 $2/libzcoll.so.1.1.0 /work/shared/data/$f.f32 $rel 0 $3
  done
done
