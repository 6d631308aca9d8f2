#!/usr/bin/env bash
# crossover.sh BEFORE_BUILD AFTER_BUILD OUT_DIR [ROUNDS] — the crossover map of
# docs/reports/2026-11-24-crossover-map.md recomputed with the codec rates of two
# builds, calibrated in the same session: zcoll-calibrate on the FNOC wind field at
# REL 1e-4, 1 and 2 threads, partial sums of 1, 8 and 64 inputs, working sets of
# 128 MiB (32M values) and 1 MiB (256K), ROUNDS rounds (default 2), the builds
# alternating; then crossover.py (B_mem 320 GB/s, MPI's reduction on one thread,
# overlap 1) with each build's calibration, and the per-thread Allreduce payload
# rate 1 / (1/c + 1/d + 1/h) of each. Builds nothing: each build directory needs
# tools/simscale/zcoll-calibrate and src/coll/libzcoll_mpi.so
#   (cmake --build BUILD --target zcoll_calibrate zcoll_mpi).
# Run from the repository root. About 10 minutes per round on the 2-core VM.
# Calibrations already in OUT_DIR are kept (a rerun only redoes the maps).
# PYTHON: a Python with matplotlib (default: the project venv).
set -euo pipefail
py="${PYTHON:-/opt/zcoll-venv/bin/python}"
[[ -x "$py" ]] || py=python3
before="$1" after="$2" out="$3" rounds="${4:-2}"
data=data/ferret_fnoc-uwnd_132x73x144.f32
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for side in after before; do
    b=$after; [[ $side == before ]] && b=$before
    for v in 32M 256K; do
      [[ -f "$out/calib-$side-$v-r$r.json" ]] && continue
      echo "round $r $side $v: $(uptime)" | tee -a "$out/load.log"
      "$b/tools/simscale/zcoll-calibrate" --data "$data" --rel 1e-4 --values $v --threads 1,2 \
        --terms 1,8,64 --json "$out/calib-$side-$v-r$r.json" --profile "$out/profile-$side.txt" \
        > "$out/calib-$side-$v-r$r.log" 2>&1
    done
  done
done
for side in before after; do
  dr=$(ls "$out"/calib-$side-32M-r*.json | paste -sd,)
  ca=$(ls "$out"/calib-$side-256K-r*.json | paste -sd,)
  mkdir -p "$out/map-$side"
  "$py" tools/simscale/crossover.py --lib "$after/src/coll/libzcoll_mpi.so" --calib-dram "$dr" \
    --calib-cache "$ca" --mem-gbps 320 --out "$out/map-$side" > "$out/map-$side/crossover.log" 2>&1
  "$py" tools/simscale/crossover.py --rates-table "128 MiB=$dr" "1 MiB=$ca" > "$out/rates-$side.md"
done
"$py" - "$out" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]
def best(paths, t, kind):  # median over terms of the best round (crossover.py's rule)
    runs = [json.load(open(p)) for p in paths]
    terms = runs[0]["gbps"][t][kind]
    return statistics.median(max(r["gbps"][t][kind][k] for r in runs) for k in terms)
print("| build | compress c | decompress d | hom add h | 1/(1/c + 1/d + 1/h) GB/s |")
print("|---|---|---|---|---|")
for side in ("before", "after"):
    p = sorted(glob.glob(f"{out}/calib-{side}-32M-r*.json"))
    c, d, h = (best(p, "1", k) for k in ("compress", "decompress", "hom_add"))
    print(f"| {side} | {c:.2f} | {d:.2f} | {h:.2f} | {1 / (1 / c + 1 / d + 1 / h):.2f} |")
PY
