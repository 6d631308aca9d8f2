#!/usr/bin/env bash
# hom_ab.sh OUT ROUNDS BUILD...: the hom mode of zcoll-codec-bench alone, one thread, cold, on
# eight fields, for each build $ZCB_DIR/zcb-BUILD, the builds' order rotated per round:
# OUT/BUILD-ROUND.json. Tables: part 14's hom_ab.py OUT A B.
set -euo pipefail
out=$1 rounds=$2; shift 2; builds=("$@"); nb=${#builds[@]}
data=${DATA:-../shared/data}
files="ferret_fnoc-vwnd_132x73x144 ferret_fnoc-uwnd_132x73x144 hst-acs_j8bt06nyq-sci_1024x1024
  ncarg_rect3d-t_17x96x192 ncarg_rect3d-rhumidity_17x96x192 ferret_levitus-temp_20x180x360
  corrfunc_mr19-x_1235904 ferret_etopo5-rose_2161x4320"
mkdir -p "$out"
for r in $(seq 0 $((rounds - 1))); do
  for k in $(seq 0 $((nb - 1))); do
    b=${builds[$(((r + k) % nb))]}
    # shellcheck disable=SC2086
    "${ZCB_DIR:?set ZCB_DIR}/zcb-$b" --hom --cold --data-dir "$data" --files $files --threads 1 \
      --rel 1e-2 1e-3 1e-4 --repeat 5 --stat median --json "$out/$b-$r.json" >/dev/null 2>&1
  done
done
