#!/usr/bin/env bash
# test.sh — install dependencies (scripts/setup.sh), build zcoll with its tests
# (Release) and run them all; then the fuzz smoke run (scripts/fuzz_smoke.sh).
# Exits non-zero on any failure. This is what CI runs (.ci/run).
# ZCOLL_BUILD_DIR chooses the build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export ZCOLL_BUILD_DIR="${ZCOLL_BUILD_DIR:-build}"
build="$ZCOLL_BUILD_DIR"

bash scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON
cmake --build "$build" -j2
# --no-tests=error: a configuration that registers no test must not pass
ctest --test-dir "$build" --output-on-failure -j2 --no-tests=error

bash scripts/fuzz_smoke.sh
echo "test.sh: all tests passed"
