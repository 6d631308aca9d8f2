#!/usr/bin/env bash
# setup.sh — install zcoll's build and test dependencies on Debian bookworm.
# Idempotent: installs only the packages that are missing, and runs
# `apt-get update` only when something must be installed. Needs root then.
set -euo pipefail

packages=(
  cmake g++ make                    # build
  libgtest-dev googletest           # unit tests
  libbenchmark-dev                  # micro-benchmarks
  libcli11-dev nlohmann-json3-dev   # the zcoll CLI (argument parsing, JSON)
  mpich libmpich-dev                # the MPI collectives and their tests
  clang libclang-rt-14-dev          # libFuzzer targets
  python3                           # demo table, helper scripts
)

missing=()
for p in "${packages[@]}"; do
  # dpkg -s also succeeds for removed packages whose config files remain
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} packages already installed"
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
