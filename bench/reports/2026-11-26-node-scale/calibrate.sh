#!/bin/bash
# The node model's per-thread rates for the node-aware study (docs/reports/2026-11-26-node-aware-scale.md):
# three rounds, each a DRAM-sized (32M values = 128 MiB per buffer) and a cache-sized (256K) calibration.
set -e
D=${1:-bench/results/2026-11-26-node-scale}
BIN=${2:-build/tools/simscale/zcoll-calibrate}
mkdir -p $D
for r in 1 2 3; do for v in 32M 256K; do
  uptime > $D/calib-$v-r$r.log
  nice -n -15 $BIN --data ../shared/data/ferret_fnoc-uwnd_132x73x144.f32 --rel 1e-4 --values $v --threads 1,2 \
    --terms 1,8,64 --json $D/calib-$v-r$r.json --profile /tmp/nodescale-p.txt >> $D/calib-$v-r$r.log 2>&1
done; done
