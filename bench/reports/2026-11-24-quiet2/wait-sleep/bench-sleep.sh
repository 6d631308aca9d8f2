#!/bin/bash
export ZCOLL_WAIT_SLEEP=${ZCOLL_WAIT_SLEEP_SET:-20us}
exec /work/main/build-h/tools/zcoll_bench/zcoll-bench "$@"
