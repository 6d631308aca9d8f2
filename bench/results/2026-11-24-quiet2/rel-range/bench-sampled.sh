#!/bin/bash
export ZCOLL_REL_RANGE=sampled
exec /work/main/build-h/tools/zcoll_bench/zcoll-bench "$@"
