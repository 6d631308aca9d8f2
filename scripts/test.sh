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
# ---- PMPI shim (issue 12): its mpi4py test needs the venv of scripts/setup_python.sh
# (mpi4py built against MPICH). When the venv was not there at configure time the test
# was not registered: set the venv up, reconfigure and run that test now.
if ! ctest --test-dir "$build" -N -R '^pmpi\.mpi4py' | grep -q 'pmpi\.mpi4py'; then
  py=$(bash scripts/setup_python.sh | tail -1)
  cmake -S . -B "$build" -DZCOLL_PYTHON="$py" >/dev/null
  ctest --test-dir "$build" --output-on-failure -R '^pmpi\.mpi4py' --no-tests=error
fi
echo "test.sh: all tests passed"
