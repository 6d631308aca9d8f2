#!/bin/bash
# decode_ab_all.sh OUT ROUNDS REL DATA LIBDIR... — part 7's decode_ab.sh over all eleven
# fields of DATA's manifest, about 200 MB decoded per run (DEC_TIME: part 7's dec_time).
set -euo pipefail
OUT=$1; N=$2; REL=$3; D=$4; shift 4
: > "$OUT"
for i in $(seq "$N"); do
  for f in $(python3 -c "import json,sys;print(' '.join(x['file'][:-4] for x in json.load(open(sys.argv[1]))['files']))" "$D/manifest.json"); do
    reps=$(( 200000000 / $(stat -c %s "$D/$f.f32") )); [ "$reps" -lt 8 ] && reps=8
    for lib in "$@"; do
      echo "$i $f $(basename "$lib") $(LD_LIBRARY_PATH=$lib "$DEC_TIME" "$D/$f.f32" "$REL" "$reps")" >> "$OUT"
    done
  done
done
