#!/usr/bin/env bash
# sizes_cs.sh CLI DATA CHUNK: as sizes.sh, with dims only, at the chunk size CHUNK, two threads.
set -euo pipefail
cli=$1; data=$2; cs=$3; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in "$data"/*.f32; do base=$(basename "$f" .f32); shape=${base##*_}
  [[ $shape == *x* ]] || continue
  for b in 1e-2 1e-3 1e-4; do
    "$cli" compress -i "$f" -o "$tmp/s" --type f32 --rel $b --dims "$shape" --chunk-size "$cs" \
      --codec dense --threads 2 >/dev/null
    echo "$base $b dims $(stat -c %s "$tmp/s")"
  done
done
