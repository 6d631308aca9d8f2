#!/usr/bin/env bash
# smoke.sh — the CTest test smpi.smoke (label smpi; docs/scale.md): build the SMPI
# variant of zcoll in its own build directory and run a small simulated sweep.
#   bash tools/simscale/smoke.sh SOURCE_DIR SMPI_BUILD_DIR CALIBRATE_BIN
# Exit 77 (CTest: skipped) when SimGrid's smpicxx/smpirun are not installed.
# Checks: (1) a quick calibration writes a profile; (2) the smoke preset
# of study.py (2..16 nodes, every collective and mode, threads 1 and 2) runs
# in model mode with no failed row; (3) at 4 nodes, charging the real codec on
# real data (ZCOLL_SIM_CODEC=charge) and the model give the same simulated
# times for raw and sizes within 15% for the compressed modes; (4) zcoll-bench,
# built against SMPI, validates every mode's results on real data; (5) the GPU
# study simulates the link rate it is given.
set -euo pipefail
if ! command -v smpicxx >/dev/null || ! command -v smpirun >/dev/null; then
  echo "smpi.smoke: SimGrid (smpicxx, smpirun) not installed: skipped"
  exit 77
fi
src=$(cd "$1" && pwd); build=$2; calibrate=$3
py=${PYTHON:-python3}
t0=$(date +%s)
cmake -S "$src" -B "$build" -DZCOLL_SMPI=ON -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j2 --target zcoll_simscale zcoll-bench > "$build/smoke-build.log" 2>&1 ||
  { tail -40 "$build/smoke-build.log"; exit 1; }
echo "smpi.smoke: SMPI build ready after $(( $(date +%s) - t0 )) s"
out="$build/smoke"
rm -rf "$out"
mkdir -p "$out"
data="$src/data/ferret_fnoc-uwnd_132x73x144.f32"
# (1) a quick calibration: only checks that the tool works (timings taken while
# other tests run are not worth charging); the sweeps charge the committed
# profile of the study, scale/profile.txt in bench/results/scale.tar.xz
"$calibrate" --data "$data" --values 512K --terms 1,2,16 --repeat 2 --json "$out/calibration.json" \
  --profile "$out/quick-profile.txt" 2> "$out/calibrate.log"
grep -q "^ratio 16 " "$out/quick-profile.txt"
tar -xJOf "$src/bench/results/scale.tar.xz" scale/profile.txt > "$out/profile.txt"
# (2) the smoke sweep, model mode
"$py" "$src/tools/simscale/study.py" --preset smoke --build "$build" --out "$out" \
  --profile "$out/profile.txt" --nice 0 --no-plots
# (3) + checks on the rows
plat="$out/platforms"
cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf --cfg=smpi/bw-factor:0:1
     --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/shared-malloc:local
     --cfg=smpi/test:0 --cfg=smpi/iprobe:0 --cfg=smpi/wtime:0 --log=root.thres:warning
     --cfg=smpi/allreduce:lr)
for mode in model charge; do
  ZCOLL_SIM_CODEC=$mode ZCOLL_SIM_PROFILE="$out/profile.txt" OMP_NUM_THREADS=1 \
    smpirun -np 4 -platform "$plat/crossbar-4.xml" -hostfile "$plat/crossbar-4.hosts" "${cfg[@]}" \
    "$build/tools/simscale/zcoll-simscale" --coll allreduce --sizes 4MB --threads 1 --data "$data" \
    --json "$out/consistency.jsonl" --label "$mode" > "$out/consistency-$mode.log" 2>&1
done
"$py" - "$out" <<'PY'
import json, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(f"{out}/rows.jsonl")]
bad = [r for r in rows if r["failed"]]
assert not bad, f"failed rows: {bad}"
want = 3 * 2 * 9 + 4 * 9   # allreduce: 3 node counts x 2 sizes; 4 collectives x 1 size; 9 rows each
assert len(rows) == want, f"{len(rows)} rows, expected {want}"
for r in rows:
    assert r["sim_seconds"] > 0, r
    if r["mode"] in ("cpr_p2p", "doc", "hom"):
        assert 1.5 < r["ratio_sent"] < 20, r
# the MPI ring Allreduce against 2(N-1)(alpha + D/(N B)) + reduce: the ideal network
mpi = [r for r in rows if r["collective"] == "allreduce" and r["mode"] == "mpi" and r["nodes"] == 16
       and r["bytes"] > 1e7][0]
N, D, B = 16, mpi["bytes"], 12.5e9
net = 2 * (N - 1) * (1e-6 + D / N / B)
assert net < mpi["sim_seconds"] < net * 2.5, (net, mpi["sim_seconds"])
c = {r["label"] + r["mode"]: r for r in (json.loads(l) for l in open(f"{out}/consistency.jsonl"))}
for m in ("mpi", "raw"):
    a, b = c["model" + m]["sim_seconds"], c["charge" + m]["sim_seconds"]
    assert abs(a - b) <= 1e-9 + 1e-6 * a, (m, a, b)
for m in ("cpr_p2p", "doc", "hom"):
    a, b = c["model" + m], c["charge" + m]
    assert abs(a["bytes_sent"] / b["bytes_sent"] - 1) < 0.15, (m, a["bytes_sent"], b["bytes_sent"])
    assert abs(a["sim_seconds"] / b["sim_seconds"] - 1) < 0.15, (m, a["sim_seconds"], b["sim_seconds"])
print(f"smpi.smoke: {len(rows)} simulated rows ok; MPI ring {mpi['sim_seconds']*1e3:.3f} ms vs network "
      f"{net*1e3:.3f} ms; model vs real codec within 15%")
PY
# (4) zcoll-bench validates every mode on real data inside the simulation
ZCOLL_SIM_CODEC=charge ZCOLL_SIM_PROFILE="$out/profile.txt" OMP_NUM_THREADS=1 \
  smpirun -np 4 -platform "$plat/crossbar-4.xml" -hostfile "$plat/crossbar-4.hosts" "${cfg[@]}" \
  "$build/tools/zcoll_bench/zcoll-bench" allreduce -b 64K -e 1M -f 4 --data "$data" \
  --modes mpi,raw,cpr_p2p,doc,hom -w 0 -n 1 > "$out/zcoll-bench.log" 2>&1 ||
  { cat "$out/zcoll-bench.log"; exit 1; }
grep "^# OK" "$out/zcoll-bench.log"
# (5) the GPU study on the device rates of the first H200 run, at 10 Gbit/s: the links
# the table compares against are the links simulated (the first GPU study simulated
# study.py's default 100 Gbit/s while its NCCL model used 400): raw, uncompressed, is
# wire-bound like the NCCL ring model and within 10 % of it
tar -xJOf "$src/bench/results/2026-11-28-gpu-check-3.tar.xz" 2026-11-28-gpu-check-3/calibrate.json \
  > "$out/gpu-calibrate.json"
"$py" "$src/tools/simscale/gpu_study.py" --bench-json "$out/gpu-calibrate.json" --build "$build" \
  --out "$out/gpu" --nodes 4 --size 16MB --link-gbps 10 --modes raw,hom > "$out/gpu-study.log"
"$py" - "$out/gpu" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/rows.jsonl")]
raw = [r for r in rows if r["mode"] == "raw"][0]
table = json.load(open(sys.argv[1] + "/gpu_table.json"))
model = 2 * 3 / 4 * 16e6 / (10e9 / 8) + 2 * 3 * 2e-6
assert table["link_gbps"] == 10, table
assert abs(raw["sim_seconds"] / model - 1) < 0.10, (raw["sim_seconds"], model)
print(f"smpi.smoke: GPU study at 10 Gbit/s: raw {raw['sim_seconds']*1e3:.2f} ms, ring model {model*1e3:.2f} ms")
PY
echo "smpi.smoke: passed in $(( $(date +%s) - t0 )) s"
