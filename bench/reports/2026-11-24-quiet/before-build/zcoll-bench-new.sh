#!/bin/sh
# This session's zcoll-bench (with --repeats) on the libraries of commit 0228f23 (before #17's changes).
LD_LIBRARY_PATH=/work/before-17/lib exec /work/before-17/bench-new.bin "$@"
