#!/usr/bin/env bash
# run.sh — the DDP overlap measurement of issue 28 (bench/ddp/ddp_overlap.py).
#   bash bench/ddp/run.sh smoke [OUT]          2 local ranks, 8 steps: the script works
#   sudo bash bench/ddp/run.sh cluster OUT     4 emulated hosts at 1 Gbit/s
#                                              (tools/netcluster, docs/netcluster.md)
# Environment: DDP_MODEL (resnet18 | transformer), DDP_STEPS, DDP_REPEATS,
# DDP_BATCH (per rank, default 32), DDP_HOSTS, DDP_RATE. Writes OUT/ddp-*.json and OUT/ddp-*.log.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
what=${1:?smoke or cluster}; out=${2:-bench/results/ddp-$(date +%F)}
mkdir -p "$out"
py=${ZCOLL_PYTHON:-/opt/zcoll-venv/bin/python}
model=${DDP_MODEL:-resnet18}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1
case "$what" in
  smoke)
    mpiexec -n 2 "$py" bench/ddp/ddp_overlap.py --model "$model" --steps "${DDP_STEPS:-8}" \
      --warmup 2 --repeats 1 --batch 8 --json "$out/ddp-smoke.json" | tee "$out/ddp-smoke.log" ;;
  cluster)
    hosts=${DDP_HOSTS:-4}; rate=${DDP_RATE:-1gbit}
    bash tools/netcluster/netcluster.sh setup "$hosts" "$rate"
    bash tools/netcluster/netcluster.sh run "$hosts" -- "$py" bench/ddp/ddp_overlap.py \
      --model "$model" --steps "${DDP_STEPS:-30}" --repeats "${DDP_REPEATS:-3}" \
      --batch "${DDP_BATCH:-32}" \
      --label "${hosts}x${rate}" --json "$out/ddp-$model-${hosts}x$rate.json" \
      | tee "$out/ddp-$model-${hosts}x$rate.log" ;;
  *) echo "run.sh: smoke or cluster, not '$what'" >&2; exit 2 ;;
esac
