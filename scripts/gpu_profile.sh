#!/usr/bin/env bash
# gpu_profile.sh — why the codec kernels run at the speed they do: Nsight Compute
# (ncu) over one pass of zcoll-gpu-bench on one real field (ferret, tiled to
# 64 MB, f32, REL 1e-3), and the kernels' registers and shared memory. On the
# GPU machine, after scripts/gpu_check.sh has built build-gpu/ (docs/gpu.md,
# "How to verify"): run(command="bash scripts/gpu_check.sh; bash scripts/gpu_profile.sh").
#
#   bash scripts/gpu_profile.sh [OUTDIR]   # OUTDIR: $OUT, else results/gpu-profile
#
# Writes OUTDIR/profile.tar.gz: ncu.txt (every section, readable), ncu.csv (the same,
# one row per metric), resources.txt (cuobjdump), codec.ncu-rep (the raw report).
# The clocks are left alone (--clock-control none), as the device notes advise.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-${OUT:-results/gpu-profile}}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zcoll-gpu-profile.XXXXXX")
bench=build-gpu/bench/gpu/zcoll-gpu-bench
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[[ -x $bench ]] || { echo "gpu_profile: $bench not built (run scripts/gpu_check.sh first)"; exit 1; }
[[ -n $ncu ]] || { echo "gpu_profile: ncu not found"; exit 1; }
echo "gpu_profile: $ncu, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')" | tee "$work/ncu.txt"
lib=$(ls build-gpu/src/cuda/libzcoll_cuda*.so* build-gpu/src/cuda/libzcoll_cuda*.a 2>/dev/null | head -1)
[[ -n $lib ]] && cuobjdump --dump-resource-usage "$lib" >"$work/resources.txt" 2>&1
# the chunk kernels and the small ones around them, the first launch of each
kernels='regex:^k_(compress|decompress|hom|doc|minmax|pack|scan_sizes|index|validate|setup_compress|open|write_header)'
timeout 150 "$ncu" --clock-control none --target-processes all -k "$kernels" -c 24 \
  --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  --section WarpStateStats --section SchedulerStats \
  -f -o "$work/codec" \
  "$bench" --input data/ferret_fnoc-uwnd_132x73x144.f32 --min-mb 64 --repeat 1 --rel 1e-3 \
  >"$work/run.log" 2>&1
rc=$?
echo "ncu exit $rc" | tee -a "$work/ncu.txt"
if [[ -f $work/codec.ncu-rep ]]; then
  "$ncu" --import "$work/codec.ncu-rep" --print-details all >>"$work/ncu.txt" 2>&1
  "$ncu" --import "$work/codec.ncu-rep" --page details --csv >"$work/ncu.csv" 2>&1
fi
tar -C "$work" -czf "$out/profile.tar.gz" .
rm -rf "$work"
exit $rc
