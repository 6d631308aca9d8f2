#!/usr/bin/env bash
# lint.sh [BUILD_DIR] — the style checks CI runs (scripts/test.sh):
#   1. clang-format (.clang-format) on every tracked C, C++ and CUDA file: any
#      change it would make is an error (run `scripts/lint.sh --fix` to apply);
#   2. ruff (ruff.toml) on every tracked Python file (--force-exclude: ruff.toml's
#      exclusions hold for the files named here too);
#   3. clang-tidy (.clang-tidy: bug-prone patterns, function size) on every C/C++
#      source of the tree that BUILD_DIR compiles (src/, tools/, bench/, tests/,
#      examples/; the list comes from BUILD_DIR's compile_commands.json, see
#      `scripts/tidy_cached.py --list`), through tidy_cached.py's result cache.
# ZCOLL_PY: the Python with ruff (default: the venv of scripts/setup_python.sh).
# Exit status: 0 when all three are clean.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fix=0
if [[ "${1:-}" == "--fix" ]]; then fix=1; shift; fi
build="${1:-${ZCOLL_BUILD_DIR:-build}}"

# the measurement programs of the reports (bench/reports) are records, kept as they ran
mapfile -t sources < <(git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh' '*.inl' | grep -v '^bench/reports/')
mapfile -t pysources < <(git ls-files '*.py')
py="${ZCOLL_PY:-$(bash scripts/setup_python.sh | tail -1)}"
if [[ $fix -eq 1 ]]; then
  clang-format -i "${sources[@]}"
  echo "lint: formatted ${#sources[@]} files"
  "$py" -m ruff check --fix --quiet --force-exclude "${pysources[@]}" || true
  echo "lint: ruff's safe fixes applied to ${#pysources[@]} files (what is left needs a hand)"
  exit 0
fi
echo "lint: clang-format on ${#sources[@]} files"
clang-format --dry-run --Werror "${sources[@]}"
echo "lint: ruff on ${#pysources[@]} files"
"$py" -m ruff check --quiet --force-exclude "${pysources[@]}"

[[ -f "$build/compile_commands.json" ]] || {
  echo "lint: $build/compile_commands.json missing (configure the build first)" >&2
  exit 1
}
# every C/C++ source of the tree with a compile command in BUILD_DIR (the libraries, the
# PMPI shim, the CUDA emulation and the CUDA sources it compiles as C++, tools, bench,
# tests, examples; not bench/reports, not other build directories)
mapfile -t tidy < <(python3 scripts/tidy_cached.py "$build" --list)
(( ${#tidy[@]} > 0 )) || { echo "lint: no C/C++ source in $build/compile_commands.json" >&2; exit 1; }
echo "lint: clang-tidy on ${#tidy[@]} files"
# The compile commands are GCC's, with -Werror in CI: clang's own diagnostics
# (GCC-only warning names, warnings GCC does not give) are not lint findings
# (tidy_cached.py passes -Wno-unknown-warning-option -Wno-error); the GCC build judges
# warnings, .clang-tidy's checks are errors themselves.
python3 scripts/tidy_cached.py "$build" "${tidy[@]}"

echo "lint: clean"
