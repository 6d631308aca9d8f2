#!/usr/bin/env bash
# sizes.sh CLI DATA: the dense stream's bytes per (file, REL, dims or not), f32, one thread,
# default chunks. Compare two builds' outputs with cmp.sh.
set -euo pipefail
cli=$1; data=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in "$data"/*.f32; do base=$(basename "$f" .f32); shape=${base##*_}
  dm=""; [[ $shape == *x* ]] && dm="--dims $shape"
  for b in 1e-2 1e-3 1e-4; do for d in "" "$dm"; do
    # shellcheck disable=SC2086  # $d is an option list
    "$cli" compress -i "$f" -o "$tmp/s" --type f32 --rel $b $d --codec dense --threads 1 >/dev/null
    echo "$base $b [${d}] $(stat -c %s "$tmp/s")"
  done; done
done
