#!/usr/bin/env bash
# setup.sh — install zcoll's build and test dependencies on Debian bookworm.
# Idempotent: installs only the packages that are missing, and runs
# `apt-get update` only when something must be installed. Needs root then.
#
#   bash scripts/setup.sh             MPICH (the default MPI, what CI builds against), and
#                                     Open MPI too: LAMMPS (the PMPI shim's test) is built on it
#   bash scripts/setup.sh --openmpi   the same (kept for older instructions; Open MPI serves
#                                     ZCOLL_MPI=openmpi builds and `netcluster.sh run --mpi openmpi`)
#
# Installing Open MPI makes Debian point the generic mpicc / mpicxx / mpirun / mpiexec and
# the mpi.h / libmpi.so links at Open MPI (it has the higher alternatives priority);
# this script sets them back to MPICH right after installing (and on every run), so the
# default toolchain stays MPICH. Open MPI is used only where it is named explicitly
# (mpicc.openmpi, mpirun.openmpi, cmake -DZCOLL_MPI=openmpi).
set -euo pipefail

with_openmpi=0
for arg in "$@"; do
  case "$arg" in
    --openmpi) with_openmpi=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown argument '$arg' (only --openmpi)" >&2; exit 2 ;;
  esac
done

# Point the generic MPI alternatives at MPICH when Open MPI has taken them (no-op when
# they already point at MPICH, or when Open MPI is not installed).
keep_mpich_default() {
  command -v update-alternatives >/dev/null || return 0
  local arch entry name want cur
  arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
  for entry in "mpi:/usr/bin/mpicc.mpich" "mpirun:/usr/bin/mpirun.mpich" \
               "mpi-$arch:/usr/include/$arch/mpich"; do
    name=${entry%%:*}; want=${entry#*:}
    update-alternatives --query "$name" 2>/dev/null | grep -qx "Alternative: $want" || continue
    cur=$(update-alternatives --query "$name" | sed -n 's/^Value: //p')
    [[ "$cur" == "$want" ]] && continue
    if [[ $(id -u) -ne 0 ]]; then
      echo "setup: warning: '$name' points at $cur, not MPICH; as root run: update-alternatives --set $name $want" >&2
      continue
    fi
    update-alternatives --set "$name" "$want"
  done
}

packages=(
  cmake g++ make                    # build
  libgtest-dev googletest           # unit tests
  libbenchmark-dev                  # micro-benchmarks
  libcli11-dev nlohmann-json3-dev   # the zcoll CLI (argument parsing, JSON)
  mpich libmpich-dev                # the MPI collectives and their tests
  clang libclang-rt-14-dev          # libFuzzer targets
  clang-format clang-tidy           # scripts/lint.sh (CI's style checks)
  python3                           # demo table, helper scripts
  python3-venv python3-torch        # scripts/setup_python.sh: the venv (Debian's CPU torch for the DDP hook)
  gfortran                          # the PMPI shim's Fortran test
  lammps lammps-examples openmpi-bin libopenmpi-dev  # the PMPI shim's LAMMPS test (lmp is built on Open MPI; MPICH stays the default, see above)
  iproute2                          # ip, tc: the demo's emulated cluster (tools/netcluster)
  libsimgrid-dev                    # SMPI (smpicxx, smpirun): the simulated-cluster smoke test (docs/scale.md)
)
if [[ $with_openmpi -eq 1 ]]; then
  packages+=(openmpi-bin libopenmpi-dev)   # optional second MPI (see above)
fi

missing=()
for p in "${packages[@]}"; do
  # dpkg -s also succeeds for removed packages whose config files remain
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} packages already installed"
  keep_mpich_default
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages: ${missing[*]}; run as root (sudo bash scripts/setup.sh)" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y "${missing[@]}"
keep_mpich_default
