#!/bin/bash
# hom_ab.sh OUT ROUNDS DATA LIBDIR... — hom add / memcpy (hom_time, built next to this
# script or HOM_TIME) with each LIBDIR's libzcoll.so.1, the builds alternating per
# field, bound and round; one line per run: round field@REL libdir ratio-to-memcpy.
set -euo pipefail
OUT=$1; N=$2; D=$3; shift 3
BIN=${HOM_TIME:-$(dirname "$0")/hom_time}
: > "$OUT"
for i in $(seq "$N"); do
  for f in corrfunc_mr19-x_1235904 proj_egm96-geoid_721x1440 ferret_fnoc-uwnd_132x73x144 \
           ncarg_trinidad-elev_1201x2401 hst-acs_j8bt06nyq-sci_1024x1024 obspy_bw-kw1-ehz_936001; do
    for r in 1e-2 1e-3 1e-4; do
      for l in "$@"; do
        echo "$i $f@$r $(basename "$l") $(LD_LIBRARY_PATH=$l "$BIN" "$D/$f.f32" $r 30 | awk '{print $NF}')" >> "$OUT"
      done
    done
  done
done
