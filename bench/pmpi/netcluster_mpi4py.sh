#!/usr/bin/env bash
# netcluster_mpi4py.sh — wall time of an unmodified mpi4py script
# (tests/pmpi/mpi4py_fields.py: Allreduce of 1.39 MB of the wind field per rank,
# Bcast of the 4.15 MB geoid field) on the emulated cluster (tools/netcluster,
# one rank per host), without and with libzcoll_pmpi.so (SHIM_ENV, mode auto by
# default) and with it forced to mode hom, interleaved in one run.
# A benchmark, not a test. Needs root (network namespaces). Writes raw JSON lines
# and the logs to OUT and prints a median / range summary.
#
#   bash bench/pmpi/netcluster_mpi4py.sh OUT [ROUNDS] [HOSTS] [RATE]
#
#   OUT     directory for the results (e.g. bench/results/2026-11-24-pmpi)
#   ROUNDS  alternations of (without, with) the shim (default 5); each run times
#           REPEAT=6 calls of each collective (the first, with the handle's creation
#           and the cost model's probe, is kept but summarised apart)
#   HOSTS   emulated hosts (default 4), RATE their links (default 1gbit)
#
# Environment: ZCOLL_BUILD_DIR (default build) holds src/pmpi/libzcoll_pmpi.so;
# PY the venv's python (scripts/setup_python.sh); SHIM_ENV the shim's settings
# (default: ZCOLL_PMPI=1 ZCOLL_EB_MODE=abs ZCOLL_ERROR_BOUND=1e-2 ZCOLL_BOUND=result ZCOLL_MODE=auto
# ZCOLL_PMPI_COLLS=allreduce,bcast ZCOLL_PMPI_REPORT=1; the script checks the result
# against 1e-2, hence ZCOLL_BOUND=result).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${1:?usage: netcluster_mpi4py.sh OUT [ROUNDS] [HOSTS] [RATE]}
rounds=${2:-5} hosts=${3:-4} rate=${4:-1gbit}
repeat=${REPEAT:-6}
build=${ZCOLL_BUILD_DIR:-build}
shim=$PWD/$build/src/pmpi/libzcoll_pmpi.so
py=${PY:-$(bash scripts/setup_python.sh | tail -1)}
shim_env=${SHIM_ENV:-"ZCOLL_PMPI=1 ZCOLL_EB_MODE=abs ZCOLL_ERROR_BOUND=1e-2 ZCOLL_BOUND=result ZCOLL_MODE=auto ZCOLL_PMPI_COLLS=allreduce,bcast ZCOLL_PMPI_REPORT=1"}
[[ -f $shim ]] || { echo "no $shim (cmake --build $build --target zcoll_pmpi)" >&2; exit 1; }
mkdir -p "$out"
nc=tools/netcluster/netcluster.sh
state=$("$nc" status 2>&1 || true)
if grep -q '^config: none' <<<"$state"; then
  "$nc" setup "$hosts" "$rate"
  trap '"$nc" teardown' EXIT
else
  echo "netcluster already set up (by someone else?): status below; not touching it" >&2
  "$nc" status >&2
  exit 1
fi
export NETCLUSTER_DONE_MARKER='^(OK|FAIL)$' NETCLUSTER_OK_MARKER='^OK$' NETCLUSTER_FINALIZE_GRACE=${NETCLUSTER_FINALIZE_GRACE:-5}
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet || echo ' (dirty)')"
  echo "hosts: $hosts rate: $rate rounds: $rounds repeat: $repeat"
  echo "shim settings: $shim_env"
  echo "machine: $(nproc) cores, shared with other users (timings are noisy)"
} >"$out/manifest.txt"
: >"$out/runs.jsonl"
for ((r = 0; r < rounds; r++)); do
  for label in without with with-hom; do
    envs=()
    [[ $label == with ]] && read -r -a envs <<<"LD_PRELOAD=$shim $shim_env"
    [[ $label == with-hom ]] && read -r -a envs <<<"LD_PRELOAD=$shim $shim_env ZCOLL_MODE=hom"
    log="$out/round$r-$label.log"
    "$nc" run "$hosts" -- env "${envs[@]}" OMP_NUM_THREADS=1 "$py" tests/pmpi/mpi4py_fields.py \
      --expect "$([[ $label == with* ]] && echo bound || echo exact)" --bound 1e-2 \
      --repeat "$repeat" --label "$label" >"$log" 2>&1 || { echo "round $r $label failed: $log" >&2; tail "$log" >&2; }
    grep '^{' "$log" | sed "s/^{/{\"round\": $r, /" >>"$out/runs.jsonl" || true
  done
done
"$py" - "$out/runs.jsonl" <<'PYEOF' | tee "$out/summary.txt"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for coll in ("allreduce", "bcast"):
    for label in ("without", "with", "with-hom"):
        xs = [r[coll + "_s"] for r in rows if r["label"] == label and r["iter"] > 0]
        first = [r[coll + "_s"] for r in rows if r["label"] == label and r["iter"] == 0]
        if not xs:
            continue
        print("%-9s %-8s: median %.4f s  range %.4f..%.4f  (n=%d; first calls median %.4f)"
              % (coll, label, statistics.median(xs), min(xs), max(xs), len(xs),
                 statistics.median(first)))
PYEOF
