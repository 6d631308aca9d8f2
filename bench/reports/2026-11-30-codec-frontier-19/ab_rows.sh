#!/usr/bin/env bash
# ab_rows.sh AB_COLD LIB_A LIB_B DATA_DIR ROUNDS OUT.jsonl: ab_cold on every f32 file of
# DATA_DIR (its two halves as the inputs) at REL 1e-2, 1e-3, 1e-4, one JSON line a row.
set -euo pipefail
ab=$1 lib_a=$2 lib_b=$3 data=$4 rounds=$5 out=$6
: >"$out"
for f in "$data"/*.f32; do
  n=$(($(stat -c %s "$f") / 8))  # values per input: half the file's floats
  for rel in 1e-2 1e-3 1e-4; do
    "$ab" "$lib_a" "$lib_b" "$f" "$n" "$rel" "$rounds" >>"$out"
  done
done
