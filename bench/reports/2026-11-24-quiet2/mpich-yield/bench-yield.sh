#!/bin/bash
export MPIR_CVAR_POLLS_BEFORE_YIELD=${YIELD_POLLS:-1}
exec /work/main/build-h/tools/zcoll_bench/zcoll-bench "$@"
