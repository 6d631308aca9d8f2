#!/usr/bin/env bash
# setup.sh — install zcoll's dependencies on Debian bookworm.
# Idempotent: installs only the packages that are missing, and runs
# `apt-get update` only when something must be installed. Needs root then.
#
#   bash scripts/setup.sh             everything the tests need (scripts/test.sh): the demo's
#                                     set, plus GoogleTest, Google Benchmark, clang (fuzzers,
#                                     lint), Open MPI + LAMMPS + gfortran (the PMPI shim's tests),
#                                     SimGrid, python3-venv and python3-torch
#   bash scripts/setup.sh --demo      only what scripts/demo.sh runs: the compiler, CMake, Ninja,
#                                     MPICH, CLI11, nlohmann-json, ccache, iproute2 and Debian's
#                                     matplotlib for the plots
#   bash scripts/setup.sh --build     only what the demo's build needs (the first line above;
#                                     demo.sh installs the rest while it builds)
#   bash scripts/setup.sh --openmpi   the same as the default (kept for older instructions)
#
# Installing Open MPI makes Debian point the generic mpicc / mpicxx / mpirun / mpiexec and
# the mpi.h / libmpi.so links at Open MPI (it has the higher alternatives priority);
# this script sets them back to MPICH right after installing (and on every run), so the
# default toolchain stays MPICH. Open MPI is used only where it is named explicitly
# (mpicc.openmpi, mpirun.openmpi, cmake -DZCOLL_MPI=openmpi).
set -euo pipefail

profile=tests
for arg in "$@"; do
  case "$arg" in
    --demo) profile=demo ;;
    --build) profile=build ;;
    --openmpi) ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown argument '$arg' (--demo, --build or --openmpi)" >&2; exit 2 ;;
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

# the demo's build (scripts/demo.sh): the library, the CLI, zcoll-bench and the example
packages=(
  cmake g++ make ccache ninja-build # build (ccache: every build of the tree, see CMakeLists.txt;
                                    # ninja: the scripts' build trees, see scripts/test.sh)
  libcli11-dev nlohmann-json3-dev   # the zcoll CLI (argument parsing, JSON)
  mpich libmpich-dev                # the MPI collectives
)
# the demo's runs: on the emulated cluster (ip, tc), and the plots
if [[ $profile != build ]]; then
  packages+=(
    python3 python3-matplotlib      # demo table and plots (Debian's matplotlib and numpy)
    iproute2                        # ip, tc: the demo's emulated cluster (tools/netcluster)
  )
fi
# the tests (scripts/test.sh) need these too
if [[ $profile == tests ]]; then
  packages+=(
    libgtest-dev googletest           # unit tests
    libbenchmark-dev                  # micro-benchmarks
    clang libclang-rt-14-dev          # libFuzzer targets
    clang-format clang-tidy           # scripts/lint.sh (CI's style checks)
    python3-venv python3-torch        # scripts/setup_python.sh: the venv (Debian's CPU torch for the DDP hook)
    gfortran                          # the PMPI shim's Fortran test
    lammps openmpi-bin libopenmpi-dev  # the PMPI shim's LAMMPS test (lmp is built on Open MPI; MPICH stays the default, see above)
    libsimgrid-dev                    # SMPI (smpicxx, smpirun): the simulated-cluster smoke test (docs/scale.md)
  )
fi

missing=()
for p in "${packages[@]}"; do
  # dpkg -s also succeeds for removed packages whose config files remain
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} packages of the $profile set already installed"
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
# without Debian's recommended extras: none is used here, and for the tests' set they
# are 43 more packages (Qt, video drivers, torch's C++ headers, LAMMPS's manual)
apt-get install -y --no-install-recommends "${missing[@]}"
keep_mpich_default
