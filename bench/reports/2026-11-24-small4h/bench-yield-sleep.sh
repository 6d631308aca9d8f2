#!/bin/bash
# zcoll waits sleep between tests, MPICH yields after every poll
export ZCOLL_WAIT_SLEEP=20us MPIR_CVAR_POLLS_BEFORE_YIELD=1
exec /work/main/build-h/tools/zcoll_bench/zcoll-bench "$@"
