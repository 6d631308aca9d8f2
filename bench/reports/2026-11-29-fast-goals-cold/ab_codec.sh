#!/usr/bin/env bash
# ab_codec.sh OUT ROUNDS: codec mode of zcoll-codec-bench, base and fused builds
# interleaved (order alternating per round), warm, OMP_WAIT_POLICY=passive; 1 and 2
# threads, every file.
# ZCB_DIR: the directory of the two builds' zcoll-codec-bench, zcb-base and zcb-fused
# (default /tmp/s14); DATA: the data directory (default ../shared/data).
set -euo pipefail
out=$1; rounds=$2; mkdir -p "$out"
files=$(ls ${DATA:-../shared/data}/*.f32 | xargs -n1 basename | sed 's/\.f32$//')
for r in $(seq 0 $((rounds - 1))); do
  builds="base fused"; [ $((r % 2)) = 1 ] && builds="fused base"
  for b in $builds; do
    OMP_WAIT_POLICY=passive ${ZCB_DIR:-/tmp/s14}/zcb-$b --data-dir ${DATA:-../shared/data} --files $files \
      --threads 1 2 --rel 1e-2 1e-3 1e-4 --repeat 5 --stat median \
      --json "$out/codec-$b-passive-$r.json" >/dev/null
    echo "round $r $b done"
  done
done
