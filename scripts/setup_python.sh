#!/usr/bin/env bash
# setup_python.sh — the Python environment zcoll's Python package, examples and plots use.
#
# A virtual environment (default /opt/zcoll-venv; ZCOLL_VENV chooses another) made from
# Debian's /usr/bin/python3 with --system-site-packages, so that Debian's python3-torch
# (a CPU build, installed by scripts/setup.sh) is importable in it. Into it go, from PyPI:
# numpy 1.x (torch 1.13 is built against the numpy 1.x ABI), nanobind and scikit-build-core
# (to build the package), pytest and pytest-xdist, matplotlib, numcodecs and zarr 3, and
# mpi4py built from source against the MPI that `mpicc` names (the registry's mpi4py wheel
# links a libmpi that Debian's MPICH does not provide). Idempotent: a second run installs nothing.
# Prints the environment's python on its last line:  py=$(bash scripts/setup_python.sh | tail -1)
#   --no-mpi4py   the environment and the PyPI packages only (scripts/test.sh builds mpi4py,
#                 minutes of one core on a fresh machine, in the background with a second call)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

with_mpi4py=1
for arg in "$@"; do
  case "$arg" in
    --no-mpi4py) with_mpi4py=0 ;;
    *) echo "setup_python: unknown argument '$arg' (--no-mpi4py)" >&2; exit 2 ;;
  esac
done

venv="${ZCOLL_VENV:-/opt/zcoll-venv}"
py="$venv/bin/python"

if [[ ! -x "$py" ]]; then
  echo "setup_python: creating $venv (from /usr/bin/python3, with Debian's site packages)" >&2
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi

if ! "$py" - <<'PY' 2>/dev/null; then
import importlib.metadata as md
from packaging.requirements import Requirement
for line in open("scripts/python-requirements.txt"):
    line = line.split("#")[0].strip()
    if not line:
        continue
    req = Requirement(line)
    if not req.specifier.contains(md.version(req.name), prereleases=True):
        raise SystemExit(1)
PY
  echo "setup_python: installing scripts/python-requirements.txt into $venv" >&2
  "$py" -m pip install -q --disable-pip-version-check -r scripts/python-requirements.txt >&2
fi

# mpi4py against the same MPI as zcoll: built from source with MPICC; checked by name.
[[ $with_mpi4py -eq 1 ]] || { echo "$py"; exit 0; }
mpi_name=$(mpicc -show >/dev/null 2>&1 && (mpichversion >/dev/null 2>&1 && echo MPICH || echo "Open MPI"))
if ! "$py" -c "from mpi4py import MPI; import sys; sys.exit(0 if '$mpi_name' in MPI.Get_library_version() else 1)" 2>/dev/null; then
  echo "setup_python: building mpi4py from source against $(command -v mpicc) ($mpi_name); takes a few minutes" >&2
  MPICC=mpicc "$py" -m pip install -q --disable-pip-version-check --force-reinstall \
    --no-binary=mpi4py --no-deps mpi4py >&2
fi
echo "$py"
