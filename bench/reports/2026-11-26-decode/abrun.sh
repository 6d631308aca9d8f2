#!/usr/bin/env bash
# abrun.sh LIBA LIBB ROUNDS [N]: B/A speed per case (>1 = B faster)
for i in $(seq $3); do for f in ferret_fnoc-uwnd_132x73x144 hst-acs_j8bt06nyq-sci_1024x1024 proj_egm96-geoid_721x1440; do for rel in 1e-3 1e-4; do echo "${f:0:12} $rel: $(OMP_NUM_THREADS=1 /tmp/h29/abd $1/libzcoll.so.1.1.0 $2/libzcoll.so.1.1.0 /work/shared/data/$f.f32 $rel ${4:-65536} 500 | awk '/B\/A/{printf "%s %s %s %s  ", $1, $3, $5, $8}')"; done; done; done
