#!/usr/bin/env bash
# lint.sh [BUILD_DIR] — the style checks CI runs (scripts/test.sh):
#   1. clang-format (.clang-format) on every tracked C, C++ and CUDA file: any
#      change it would make is an error (run `scripts/lint.sh --fix` to apply);
#   2. clang-tidy (.clang-tidy: bug-prone patterns, function size) on the
#      libraries' sources in src/, with BUILD_DIR's compile_commands.json.
# Exit status: 0 when both are clean.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fix=0
if [[ "${1:-}" == "--fix" ]]; then fix=1; shift; fi
build="${1:-${ZCOLL_BUILD_DIR:-build}}"

# the measurement programs of the reports (bench/reports) are records, kept as they ran
mapfile -t sources < <(git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh' '*.inl' | grep -v '^bench/reports/')
if [[ $fix -eq 1 ]]; then
  clang-format -i "${sources[@]}"
  echo "lint: formatted ${#sources[@]} files"
  exit 0
fi
echo "lint: clang-format on ${#sources[@]} files"
clang-format --dry-run --Werror "${sources[@]}"

[[ -f "$build/compile_commands.json" ]] || {
  echo "lint: $build/compile_commands.json missing (configure the build first)" >&2
  exit 1
}
# the host libraries: codec, core, transport, collectives (the SMPI hooks build
# only under SimGrid; CUDA sources are checked by nvcc's own warnings)
mapfile -t tidy < <(ls src/codec/*.cc src/core/*.cc src/transport/*.cc src/coll/*.cc \
                       src/coll/*/*.cc | grep -v 'src/coll/sim_cost.cc')
echo "lint: clang-tidy on ${#tidy[@]} files"
# The compile commands are GCC's, with -Werror in CI: clang's own diagnostics
# (GCC-only warning names, warnings GCC does not give) are not lint findings;
# the GCC build judges warnings, .clang-tidy's checks are errors themselves.
printf '%s\n' "${tidy[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-error
echo "lint: clean"
