#!/usr/bin/env bash
# instr.sh OUT: instructions of zcoll_hom_add (callgrind, one thread) in the hom
# mode of zcoll-codec-bench, base and new builds, on four fields at REL 1e-2 and
# 1e-4. A run with --repeat 1 --warmup 0 makes two hom adds (the check and the
# timed call); the totals are of both.
# ZCB_DIR: the directory of zcb-base and zcb-new (default /tmp); DATA: the data
# directory (default ../shared/data).
set -euo pipefail
out=$1; mkdir -p "$out"
for f in fnoc-vwnd hst levitus corrfunc; do
  for rel in 1e-2 1e-4; do
    for b in base new; do
      valgrind --tool=callgrind --toggle-collect='zcoll_hom_add' --callgrind-out-file="$out/cg-$b-$f-$rel" \
        ${ZCB_DIR:-/tmp}/zcb-$b --data-dir ${DATA:-../shared/data} --hom --files $f --threads 1 --rel $rel \
        --repeat 1 --warmup 0 --json "$out/run-$b-$f-$rel.json" >/dev/null 2>&1
      blocks=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]; print(sum(r['pipeline_blocks']))" "$out/run-$b-$f-$rel.json" 2>/dev/null || true)
      echo "$f $rel $b $(grep '^summary:' "$out/cg-$b-$f-$rel" | cut -d' ' -f2) $blocks"
      rm -f "$out/cg-$b-$f-$rel"
    done
  done
done
