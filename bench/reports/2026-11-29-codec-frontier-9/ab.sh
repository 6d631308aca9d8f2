#!/usr/bin/env bash
# ab.sh ROUNDS OUT ZCOLL_CLI... — the builds' dense compression and
# decompression with dims, one thread (`zcoll eval --repeat 5`: the best of 5),
# seven fields at REL 1e-2 and 1e-4, the builds alternating within each
# field, bound and round. OUT: "cli field rel round ratio compress_GBps
# decompress_GBps" per line; ab_table.py makes the table.
set -euo pipefail
rounds=$1; out=$2; shift 2; data=${DATA:-../shared/data}
: >"$out"
for r in $(seq "$rounds"); do
  for f in ferret_etopo5-rose_2161x4320:2161x4320 ferret_fnoc-vwnd_132x73x144:132x73x144 \
           obspy_bw-kw1-ehz_936001:936001 proj_egm96-geoid_721x1440:721x1440 \
           ncarg_rect3d-t_17x96x192:17x96x192 corrfunc_mr19-x_1235904:1235904 \
           hst-acs_j8bt06nyq-sci_1024x1024:1024x1024; do
    n=${f%%:*}; dims=${f##*:}
    for rel in 1e-2 1e-4; do
      for b in "$@"; do
        "$b" eval -i "$data/$n.f32" --type f32 --rel $rel --threads 1 --codec dense --dims "$dims" \
          --repeat 5 --json | python3 -c "import json,sys; d=json.load(sys.stdin); \
print('$b', '$n', '$rel', $r, d['ratio'], d['compress_gbps'], d['decompress_gbps'])" >>"$out"
      done
    done
  done
done
