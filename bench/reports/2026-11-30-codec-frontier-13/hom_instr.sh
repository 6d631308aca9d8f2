#!/usr/bin/env bash
# hom_instr.sh OUT: instructions a block of zcoll_hom_add (callgrind, one thread) in the hom
# mode of zcoll-codec-bench, per field, bound and build: the builds are $ZCB_DIR/zcb-NAME for
# NAME in $BINS (default "base new"); a --repeat 1 --warmup 0 run makes two hom adds, and the
# count is over both. FIELDS, RELS and DATA (default ../shared/data) may be set.
set -euo pipefail
out=$1; shift; mkdir -p "$out"
bins=${BINS:-"base new"}
for f in ${FIELDS:-fnoc-vwnd fnoc-uwnd hst levitus corrfunc rect3d-t}; do
  for rel in ${RELS:-1e-2 1e-4}; do
    for b in $bins; do
      valgrind --tool=callgrind --toggle-collect='zcoll_hom_add' --callgrind-out-file="$out/cg-$b-$f-$rel" \
        ${ZCB_DIR:?set ZCB_DIR}/zcb-$b --data-dir ${DATA:-../shared/data} --hom --files $f --threads 1 --rel $rel \
        --repeat 1 --warmup 0 --json "$out/run-$b-$f-$rel.json" >/dev/null 2>&1
      blocks=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]; print(sum(r['pipeline_blocks']))" "$out/run-$b-$f-$rel.json" 2>/dev/null || true)
      ins=$(grep '^summary:' "$out/cg-$b-$f-$rel" | cut -d' ' -f2)
      echo "$f $rel $b $ins $blocks $(python3 -c "print(f'{$ins/(2*$blocks):.1f}')")"
      rm -f "$out/cg-$b-$f-$rel"
    done
  done
done
