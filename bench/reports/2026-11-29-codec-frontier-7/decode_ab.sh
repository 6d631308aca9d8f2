#!/usr/bin/env bash
# decode_ab.sh OUT ROUNDS REL DATA LIBDIR... — the dense codec's 1-D decode speed
# (dec_time, built next to this script) with each LIBDIR's libzcoll.so.1, the
# builds alternating per file and round; one line per run: round file libdir GB/s.
# Six fields of shared/data, REPS so that each run decodes about 400 MB.
set -euo pipefail
OUT=$1; N=$2; REL=$3; D=$4; shift 4
BIN=${DEC_TIME:-$(dirname "$0")/dec_time}
: > "$OUT"
for i in $(seq "$N"); do
  for f in ferret_etopo5-rose_2161x4320 ncarg_rect3d-rhumidity_17x96x192 corrfunc_mr19-x_1235904 \
           ncarg_trinidad-elev_1201x2401 hst-acs_j8bt06nyq-sci_1024x1024 obspy_bw-kw1-ehz_936001; do
    reps=$(( 400000000 / $(stat -c %s "$D/$f.f32") )); [ "$reps" -lt 8 ] && reps=8
    for lib in "$@"; do
      echo "$i $f $(basename "$lib") $(LD_LIBRARY_PATH=$lib "$BIN" "$D/$f.f32" "$REL" "$reps")" >> "$OUT"
    done
  done
done
