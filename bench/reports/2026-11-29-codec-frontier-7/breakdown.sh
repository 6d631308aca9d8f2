#!/usr/bin/env bash
# breakdown.sh OUT ROUNDS DATA BASE NO_EXTRA STEPS_ONLY — where the dense
# decoder's time goes at REL 1e-4: decode GB/s (dec_time) with the library as
# it is (BASE), without the extra bits (NO_EXTRA: patches/no-extra-bits.patch)
# and with the rANS steps only (STEPS_ONLY: patches/steps-only.patch), each a
# directory holding that build's libzcoll.so.1; timing-only builds (their
# values are wrong). Prints round file build GB/s.
set -euo pipefail
OUT=$1; N=$2; D=$3; shift 3
BIN=${DEC_TIME:-$(dirname "$0")/dec_time}
: > "$OUT"
for i in $(seq "$N"); do
  for f in ferret_etopo5-rose_2161x4320 ncarg_rect3d-rhumidity_17x96x192 corrfunc_mr19-x_1235904; do
    reps=$(( 400000000 / $(stat -c %s "$D/$f.f32") )); [ "$reps" -lt 8 ] && reps=8
    for lib in "$@"; do
      echo "$i $f $(basename "$lib") $(LD_LIBRARY_PATH=$lib "$BIN" "$D/$f.f32" 1e-4 "$reps")" >> "$OUT"
    done
  done
done
