#!/bin/bash
# The node-aware study at scale (docs/reports/2026-11-26-node-aware-scale.md), after calibrate.sh:
# the cost-model grid, the SimGrid profiles, the simulations, model vs simulator.
# usage: run.sh [OUT]   (build/ = Release build with libzcoll_mpi, build-smpi/ = -DZCOLL_SMPI=ON build)
set -e
D=${1:-bench/results/2026-11-26-node-scale}
PY=${PY:-/opt/zcoll-venv/bin/python}   # needs matplotlib for the maps
X="$PY tools/simscale/nodeaware.py --lib build/src/coll/libzcoll_mpi.so
   --calib-dram $(ls $D/calib-32M-r*.json | paste -sd,) --calib-cache $(ls $D/calib-256K-r*.json | paste -sd,)"
python3 tools/simscale/crossover.py --rates-table "128 MiB=$(ls $D/calib-32M-r*.json | paste -sd,)" \
  "1 MiB=$(ls $D/calib-256K-r*.json | paste -sd,)" > $D/rates.md
# issue 29: the one-rank-per-node crossover map of 2026-11-24, recomputed with these rates
$PY tools/simscale/crossover.py --lib build/src/coll/libzcoll_mpi.so \
  --calib-dram $(ls $D/calib-32M-r*.json | paste -sd,) --calib-cache $(ls $D/calib-256K-r*.json | paste -sd,) \
  --mem-gbps 320 --out $D > $D/crossover.log
# the same with the 2026-11-24 calibration's float SUM and memcpy (this VM's DRAM was slower today):
# the difference to 2026-11-24's map is then the codec's
$PY tools/simscale/crossover.py --lib build/src/coll/libzcoll_mpi.so \
  --calib-dram $(ls $D/calib-32M-r*.json | paste -sd,) --calib-cache $(ls $D/calib-256K-r*.json | paste -sd,) \
  --mem-gbps 320 --per-thread copy=14.97,reduce=9.85 --tag=-fastmem --out $D > $D/crossover-fastmem.log
$X --mib 64,16,4 --out $D > $D/nodeaware.log
$X --mib 64 --mem-gbps 120 --tag=-mem120 --out $D > $D/nodeaware-mem120.log
# what-if: a server core's memcpy / float SUM (the 2026-11-24 calibration's best, 14.97 / 9.85 GB/s)
$X --mib 64 --per-thread copy=14.97,reduce=9.85 --tag=-fastmem --out $D > $D/nodeaware-fastmem.log
$X --sim-profile 4,8,16 --out $D > $D/profiles.log
rm -rf $D/sim
python3 tools/simscale/nodesim.py --profiles $D/profiles.json --nodes 16 --ranks-per-node 4,8,16 \
  --gbps 25,100,400 --out $D/sim
python3 tools/simscale/nodesim.py --profiles $D/profiles.json --nodes 64 --ranks-per-node 8 \
  --gbps 100 --out $D/sim
$X --check $D/sim/rows.jsonl --out $D > $D/check.md
