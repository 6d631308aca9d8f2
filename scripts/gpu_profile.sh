#!/usr/bin/env bash
# gpu_profile.sh — why the codec kernels run at the speed they do, on the GPU
# machine after scripts/gpu_check.sh has built build-gpu/ (docs/gpu.md, "How to
# verify"): run(command="bash scripts/gpu_check.sh; bash scripts/gpu_profile.sh").
#   1. Nsight Compute (ncu) over one pass of zcoll-gpu-bench on one real field
#      (ferret, tiled to 64 MB, f32, REL 1e-3): every kernel of compress and
#      decompress, and the kernels' registers and shared memory;
#   2. zcoll-gpu-bench on the synthetic field at 0.25 to 256 MB: the time of one
#      call against its size (what a call costs besides its bytes);
#   3. ncu's durations of the kernels of the calibration's 65536-value segments
#      (the pieces the collectives and the scale study's rates are made of).
#
#   bash scripts/gpu_profile.sh [OUTDIR]   # OUTDIR: $OUT, else results/gpu-profile
#
# Writes OUTDIR/profile.tar.gz: ncu.txt and ncu.csv (part 1, readable and one row
# per metric), resources.txt (cuobjdump), sizes-*.json and sizes.log (part 2),
# segments.csv and segments.log (part 3). The raw .ncu-rep files stay on the
# machine (megabytes; the repository's results are kept under 25 MB). The clocks
# are left alone (--clock-control none), as the device notes advise.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-${OUT:-results/gpu-profile}}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zcoll-gpu-profile.XXXXXX")
bench=build-gpu/bench/gpu/zcoll-gpu-bench
export PATH="$PWD/.gpu-mpi/mpich/bin:$PATH:/usr/local/cuda/bin"  # the MPI gpu_check unpacked
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
# 2. one call's time against its size (synthetic field: exactly the size asked)
for mb in 0.25 1 4 16 64 256; do
  timeout 30 "$bench" --min-mb "$mb" --repeat 10 --rel 1e-3 --json "$work/sizes-$mb.json" \
    >>"$work/sizes.log" 2>&1 || echo "sizes $mb MB: exit $?" | tee -a "$work/ncu.txt"
done
# 3. the kernels of the calibration's segments (1M values: 16 segments)
cal=build-gpu/bench/gpu/zcoll-gpu-coll-bench
if [[ -x $cal ]] && command -v mpiexec >/dev/null; then
  timeout 90 "$ncu" --clock-control none --target-processes all -c 120 --section SpeedOfLight \
    -f -o "$work/segments" mpiexec -n 1 "$cal" calibrate --data data/ferret_fnoc-uwnd_132x73x144.f32 \
    --rel 1e-4 --values 1048576 --terms 1 --repeat 1 --json "$work/segments-calibrate.json" \
    >"$work/segments.log" 2>&1
  echo "segments: ncu exit $?" | tee -a "$work/ncu.txt"
  [[ -f $work/segments.ncu-rep ]] &&
    "$ncu" --import "$work/segments.ncu-rep" --page details --csv >"$work/segments.csv" 2>&1
else
  echo "segments: zcoll-gpu-coll-bench or mpiexec missing" | tee -a "$work/ncu.txt"
fi
rm -f "$work"/*.ncu-rep
tar -C "$work" -czf "$out/profile.tar.gz" .
rm -rf "$work"
exit $rc
