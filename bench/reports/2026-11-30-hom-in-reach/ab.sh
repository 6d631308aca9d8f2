#!/usr/bin/env bash
# ab.sh OUT ROUNDS: the hom mode of zcoll-codec-bench, the base and new builds
# interleaved (order alternating per round), cold (--cold) and warm, 1 and 2
# threads, every file of the data directory, REL 1e-2, 1e-3, 1e-4.
# ZCB_DIR: the directory of the builds' zcoll-codec-bench, zcb-base and zcb-new
# (default /tmp); DATA: the data directory (default ../shared/data).
set -euo pipefail
out=$1; rounds=$2; mkdir -p "$out"
files=$(ls ${DATA:-../shared/data}/*.f32 | xargs -n1 basename | sed 's/\.f32$//')
for r in $(seq 0 $((rounds - 1))); do
  builds="base new"; [ $((r % 2)) = 1 ] && builds="new base"
  for caches in cold warm; do
    for b in $builds; do
      flag=""; [ $caches = cold ] && flag="--cold"
      ${ZCB_DIR:-/tmp}/zcb-$b --hom --data-dir ${DATA:-../shared/data} --files $files --threads 1 2 \
        --rel 1e-2 1e-3 1e-4 --repeat 5 --stat median $flag --json "$out/hom-$b-$caches-$r.json" >/dev/null
      echo "round $r $caches $b done"
    done
  done
done
