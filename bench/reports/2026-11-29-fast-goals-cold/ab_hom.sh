#!/usr/bin/env bash
# ab_hom.sh OUT ROUNDS: hom mode of zcoll-codec-bench, base and fused builds
# interleaved (order alternating per round), warm with the default OpenMP wait
# policy and with OMP_WAIT_POLICY=passive; 1 and 2 threads, every file.
# ZCB_DIR: the directory of the two builds' zcoll-codec-bench, zcb-base and zcb-fused
# (default /tmp/s14); DATA: the data directory (default ../shared/data).
set -euo pipefail
out=$1; rounds=$2; mkdir -p "$out"
files=$(ls ${DATA:-../shared/data}/*.f32 | xargs -n1 basename | sed 's/\.f32$//')
for r in $(seq 0 $((rounds - 1))); do
  builds="base fused"; [ $((r % 2)) = 1 ] && builds="fused base"
  for policy in default passive; do
    for b in $builds; do
      env_p=""; [ $policy = passive ] && env_p="OMP_WAIT_POLICY=passive"
      env $env_p ${ZCB_DIR:-/tmp/s14}/zcb-$b --hom --data-dir ${DATA:-../shared/data} --files $files --threads 1 2 \
        --rel 1e-2 1e-3 1e-4 --repeat 5 --stat median --json "$out/hom-$b-$policy-$r.json" >/dev/null
      echo "round $r $policy $b done"
    done
  done
done
