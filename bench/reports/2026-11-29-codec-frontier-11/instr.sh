#!/usr/bin/env bash
# instr.sh CLI FILE REL [DATA]: instructions of one zcoll_compress call (callgrind), dense
# codec with the dims in FILE's name (NAME_AxBxC), one thread. Prints the total.
set -euo pipefail
cli=$1; f=$2; r=$3; data=${4:-../shared/data}
out=$(mktemp); trap 'rm -f "$out" "$out.z"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=zcoll_compress "$cli" compress \
  -i "$data/$f.f32" -o "$out.z" --type f32 --rel "$r" --codec dense --dims "${f##*_}" --threads 1 >/dev/null 2>&1
callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/{gsub(",","",$1); print $1; exit}'
