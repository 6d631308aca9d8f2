#!/usr/bin/env bash
# wait_policy.sh OUT ROUNDS: zcoll-codec-bench's hom mode (the goals' cold calls, 1 and 2
# threads, --repeat 11) under OMP_WAIT_POLICY=passive and under the runtime's default,
# alternating per round; FILE (default ncarg_rect3d-t_17x96x192) at REL 1e-2. Writes
# OUT/POLICY-ROUND.json. ZCB: the bench (default build/bench/zcoll-codec-bench).
set -euo pipefail
out=$1 rounds=$2
zcb=${ZCB:-build/bench/zcoll-codec-bench}
mkdir -p "$out"
for r in $(seq 0 $((rounds - 1))); do
  policies="passive default"; [ $((r % 2)) = 1 ] && policies="default passive"
  for p in $policies; do
    env $([ "$p" = passive ] && echo OMP_WAIT_POLICY=passive || echo -u OMP_WAIT_POLICY) \
      "$zcb" --hom --cold --data-dir "${DATA:-../shared/data}" \
      --files "${FILE:-ncarg_rect3d-t_17x96x192}" --threads 1 2 --rel 1e-2 --repeat 11 \
      --stat median --json "$out/$p-$r.json" --label "wait_policy $p round $r" >/dev/null
  done
done
