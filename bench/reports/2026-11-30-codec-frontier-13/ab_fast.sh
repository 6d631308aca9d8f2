#!/usr/bin/env bash
# ab_fast.sh OUT ROUNDS: the fast codec's goal runs (bench/fast_goals.py) of two builds
# interleaved, cold caches only (the goals' measurement): per round and build (the first
# build alternating per round) the codec mode, then the hom mode, of zcoll-codec-bench on
# every file of the data directory, 1 and 2 threads, REL 1e-2, 1e-3, 1e-4, --repeat 5.
# Writes OUT/BUILD/{codec,hom}-cold-ROUND.json, which `fast_goals.py table OUT/BUILD`
# tabulates. ZCB_DIR: where zcb-base and zcb-new are; DATA: the data directory
# (default ../shared/data).
set -euo pipefail
out=$1; rounds=$2
data=${DATA:-../shared/data}
files=$(ls "$data"/*.f32 | xargs -n1 basename | sed 's/\.f32$//')
mkdir -p "$out/base" "$out/new"
for r in $(seq 0 $((rounds - 1))); do
  builds="base new"; [ $((r % 2)) = 1 ] && builds="new base"
  for b in $builds; do
    for mode in codec hom; do
      flag=(); [ $mode = hom ] && flag=(--hom)
      # shellcheck disable=SC2086  # $files is a list
      "${ZCB_DIR:?set ZCB_DIR}/zcb-$b" "${flag[@]}" --cold --data-dir "$data" --files $files \
        --threads 1 2 --rel 1e-2 1e-3 1e-4 --repeat 5 --stat median \
        --json "$out/$b/$mode-cold-$r.json" --label "ab_fast round $r" >/dev/null
    done
    echo "round $r $b done" >&2
  done
done
