#!/bin/bash
export ZCOLL_TUNE_FILE=/work/main/bench/results/2026-11-24-small4h/tune2.json
exec /work/main/build-h/tools/zcoll_bench/zcoll-bench "$@"
