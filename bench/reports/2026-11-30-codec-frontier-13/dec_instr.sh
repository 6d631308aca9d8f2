#!/usr/bin/env bash
# dec_instr.sh OUT CLI...: instructions a value of one zcoll_decompress call (callgrind, one
# thread) of the fast codec's streams, per field, bound and CLI. The streams are written once
# by the first CLI. Valgrind hides GFNI from the CPU check, so every CLI runs its plain AVX2
# decoders here (the avx2+gfni set's transposes cannot run under valgrind).
# FIELDS, RELS and DATA (default ../shared/data) may be set.
set -euo pipefail
out=$1; shift; mkdir -p "$out"
data=${DATA:-../shared/data}
for f in ${FIELDS:-rect3d-t rect3d-rhumidity fnoc-vwnd hst levitus}; do
  in=$(ls "$data"/*"$f"*.f32 | head -1)
  n=$(( $(stat -c %s "$in") / 4 ))
  for rel in ${RELS:-1e-2 1e-4}; do
    "$1" compress -i "$in" -o "$out/s.zc" --type f32 --rel "$rel" --threads 1
    for cli in "$@"; do
      valgrind --tool=callgrind --toggle-collect=zcoll_decompress --callgrind-out-file="$out/cg" \
        "$cli" decompress -i "$out/s.zc" -o "$out/s.out" --threads 1 >/dev/null 2>&1
      ins=$(grep '^summary:' "$out/cg" | cut -d' ' -f2)
      echo "$f $rel $(basename "$cli") $ins $n $(python3 -c "print(f'{$ins/$n:.3f}')")"
    done
  done
done
rm -f "$out/cg" "$out/s.zc" "$out/s.out"
