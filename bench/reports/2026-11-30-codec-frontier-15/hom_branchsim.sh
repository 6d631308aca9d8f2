#!/usr/bin/env bash
# hom_branchsim.sh: instructions and mispredicted branches a block of zcoll_hom_add in
# callgrind's branch model (--branch-sim=yes: conditional and indirect), per field, bound and
# build $ZCB_DIR/zcb-NAME for NAME in $BINS; two hom adds per run (--repeat 1 --warmup 0).
# A model, not the CPU's predictor: it ranks the variants, it does not time them.
set -euo pipefail
data=${DATA:-../shared/data}; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for spec in ${ROWS:-hst:1e-2 hst:1e-4 rect3d-t:1e-2 rect3d-t:1e-4 rhumidity:1e-3 fnoc-vwnd:1e-2 \
  fnoc-vwnd:1e-4 fnoc-uwnd:1e-4 levitus:1e-3 corrfunc:1e-4 etopo5:1e-4}; do
  f=${spec%%:*} rel=${spec##*:}
  for b in ${BINS:-base merge chunk}; do
    valgrind --tool=callgrind --branch-sim=yes --toggle-collect='zcoll_hom_add' \
      --callgrind-out-file="$tmp/cg" "${ZCB_DIR:?set ZCB_DIR}/zcb-$b" --data-dir "$data" --hom \
      --files "$f" --threads 1 --rel "$rel" --repeat 1 --warmup 0 --json "$tmp/run.json" >/dev/null 2>&1
    python3 - "$tmp/cg" "$tmp/run.json" "$f $rel $b" <<'PY'
import json, sys
ev = next(l.split()[1:] for l in open(sys.argv[1]) if l.startswith("events:"))
su = dict(zip(ev, map(int, next(l.split()[1:] for l in open(sys.argv[1]) if l.startswith("summary:")))))
blocks = 2 * sum(json.load(open(sys.argv[2]))["rows"][0]["pipeline_blocks"])
print(sys.argv[3], "instr/block %.1f" % (su["Ir"] / blocks),
      "mispredicts/block %.3f" % ((su["Bcm"] + su["Bim"]) / blocks))
PY
  done
done
