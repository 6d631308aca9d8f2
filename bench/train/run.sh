#!/usr/bin/env bash
# run.sh — training against PyTorch's own gradient compression (issue 37, item 2;
# bench/train/train_compare.py, tables and plots by bench/train/summarize.py).
#   bash bench/train/run.sh smoke [OUT]          2 local ranks, 4 steps per variant, no
#                                                netcluster: the pipeline works (< 2 min)
#   sudo bash bench/train/run.sh cluster OUT     2 then 4 emulated hosts at 1 Gbit/s
#                                                (tools/netcluster, docs/netcluster.md), one
#                                                rank per host; torn down at the end
# Environment: TRAIN_HOSTS (cluster sizes, default "2 4"), TRAIN_RATE (1gbit), TRAIN_STEPS
# (300, repeat 0: the curves), TRAIN_TIMING_STEPS (steps of repeats 1.., 60), TRAIN_REPEATS (3),
# TRAIN_VARIANTS (comma list, default all), TRAIN_ARGS (more train_compare.py options),
# TRAIN_TIMEOUT (seconds per cluster size, 3000), ZCOLL_PYTHON.
# Writes OUT/train-<hosts>x<rate>.json and .log, OUT/summary.md and OUT/plots/*.png.
# Needs scikit-learn's digits file: installs Debian's python3-sklearn when it is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
what=${1:?smoke or cluster}; out=${2:-bench/results/train-$(date +%F)}
mkdir -p "$out"
py=${ZCOLL_PYTHON:-/opt/zcoll-venv/bin/python}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1
variants=()
[[ -n "${TRAIN_VARIANTS:-}" ]] && variants=(--variants "$TRAIN_VARIANTS")
read -r -a extra <<< "${TRAIN_ARGS:-}"

has_digits() {
  "$py" - <<'PY'
import importlib.util, os, sys
s = importlib.util.find_spec("sklearn")
ok = s is not None and any(os.path.exists(os.path.join(d, "datasets", "data", "digits.csv.gz"))
                           for d in (s.submodule_search_locations or []))
sys.exit(0 if ok else 1)
PY
}
if ! has_digits; then
  echo "run.sh: installing python3-sklearn (scikit-learn's digits data set)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-sklearn >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-sklearn >/dev/null; }
  has_digits || { echo "run.sh: $py finds no sklearn digits file" >&2; exit 1; }
fi

t_all=$SECONDS
case "$what" in
  smoke)
    t=$SECONDS
    mpiexec -n 2 "$py" bench/train/train_compare.py --steps "${TRAIN_STEPS:-4}" --repeats "${TRAIN_REPEATS:-1}" \
      --warmup 1 --eval-every 2 --hidden 256 "${variants[@]}" "${extra[@]}" --label smoke \
      --json "$out/train-smoke.json" | tee "$out/train-smoke.log"
    echo "run.sh: smoke run took $(( SECONDS - t )) s"
    "$py" bench/train/summarize.py "$out/train-smoke.json" --plots "$out/plots" > "$out/summary.md"
    ls "$out/plots"/*.png >/dev/null
    echo "run.sh: summary and plots in $out (smoke: $(( SECONDS - t_all )) s)" ;;
  cluster)
    rate=${TRAIN_RATE:-1gbit}
    trap 'bash tools/netcluster/netcluster.sh teardown' EXIT
    jsons=()
    for hosts in ${TRAIN_HOSTS:-2 4}; do
      t=$SECONDS
      bash tools/netcluster/netcluster.sh setup "$hosts" "$rate"
      NETCLUSTER_TIMEOUT=${TRAIN_TIMEOUT:-3000} bash tools/netcluster/netcluster.sh run "$hosts" -- \
        "$py" bench/train/train_compare.py --steps "${TRAIN_STEPS:-300}" \
        --timing-steps "${TRAIN_TIMING_STEPS:-60}" --repeats "${TRAIN_REPEATS:-3}" \
        "${variants[@]}" "${extra[@]}" --label "${hosts}x${rate}" \
        --json "$out/train-${hosts}x$rate.json" 2>&1 | tee "$out/train-${hosts}x$rate.log"
      jsons+=("$out/train-${hosts}x$rate.json")
      echo "run.sh: $hosts hosts took $(( SECONDS - t )) s" | tee -a "$out/train-${hosts}x$rate.log"
    done
    "$py" bench/train/summarize.py "${jsons[@]}" --plots "$out/plots" | tee "$out/summary.md"
    echo "run.sh: cluster measurement took $(( SECONDS - t_all )) s" ;;
  *) echo "run.sh: smoke or cluster, not '$what'" >&2; exit 2 ;;
esac
