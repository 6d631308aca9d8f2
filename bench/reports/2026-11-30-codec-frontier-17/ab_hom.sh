#!/usr/bin/env bash
# ab_hom.sh OUT ROUNDS: the hom add of two builds interleaved, one thread: per round (the
# first build alternating per round) the hom mode of zcoll-codec-bench on every file of the
# data directory (FILES: some of them), REL 1e-2, 1e-3, 1e-4 (RELS), --repeat 5 (REPEAT), the
# caches emptied before every call (the goals' measurement; CACHES=warm: not). Writes
# OUT/BUILD/hom-CACHES-ROUND.json (the layout of part 13's ab_fast.sh), which hom_goal.py
# reads. ZCB_DIR: where zcb-base and zcb-new are; DATA: the data directory (default
# ../shared/data).
set -euo pipefail
out=$1; rounds=$2
data=${DATA:-../shared/data}
files=${FILES:-$(ls "$data"/*.f32 | xargs -n1 basename | sed 's/\.f32$//')}
caches=${CACHES:-cold}
cold=(); [ "$caches" = cold ] && cold=(--cold)
mkdir -p "$out/base" "$out/new"
for r in $(seq 0 $((rounds - 1))); do
  builds="base new"; [ $((r % 2)) = 1 ] && builds="new base"
  for b in $builds; do
    # shellcheck disable=SC2086  # $files and $RELS are lists
    "${ZCB_DIR:?set ZCB_DIR}/zcb-$b" --hom "${cold[@]}" --data-dir "$data" --files $files \
      --threads 1 --rel ${RELS:-1e-2 1e-3 1e-4} --repeat "${REPEAT:-5}" --stat median \
      --json "$out/$b/hom-$caches-$r.json" --label "ab_hom round $r" >/dev/null
    echo "round $r $b done" >&2
  done
done
