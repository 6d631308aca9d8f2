#!/usr/bin/env bash
# check_tree.sh — the repository stays small (CTest tree.size; bench/results/README.md):
#   * the tracked files, as they are in the working tree, at most 25 000 000 bytes
#     (ZCOLL_TREE_LIMIT overrides, for a test of this script);
#   * no script or source (*.py, *.c, *.cc, *.h, *.sh) tracked under bench/results/:
#     raw results go in packed, one archive per results directory, their scripts in
#     bench/reports/.
# Exit status: 0 when both hold, 1 when one does not (with the reason), 77 (CTest: skipped)
# outside a git checkout.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
limit=${ZCOLL_TREE_LIMIT:-25000000}
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
  echo "check_tree: not a git checkout: the tracked files are unknown (skipped)"
  exit 77
}
status=0
# tracked files as they are now (staged or not, before a commit); one deleted but not yet
# staged counts nothing
read -r bytes files < <(git ls-files -z | xargs -0 stat -c %s 2>/dev/null |
  awk '{s += $1; n++} END {printf "%d %d\n", s, n}')
if ((bytes > limit)); then
  echo "check_tree: the tracked files are $bytes bytes ($files files), over the limit of" \
    "$limit bytes. The largest:" >&2
  git ls-files -z | xargs -0 stat -c '%s %n' 2>/dev/null | sort -rn | head -10 | sed 's/^/  /' >&2
  echo "  Pack raw results (python3 bench/results_data.py pack NAME, bench/results/README.md);" \
    "keep plots that can be drawn again out of the tree." >&2
  status=1
else
  echo "check_tree: $bytes bytes in $files tracked files (limit $limit)"
fi
scripts=$(git ls-files -- 'bench/results/*.py' 'bench/results/*.c' 'bench/results/*.cc' \
  'bench/results/*.h' 'bench/results/*.sh')
if [[ -n $scripts ]]; then
  echo "check_tree: scripts or sources tracked under bench/results/ (move them to" \
    "bench/reports/<results dir>/; bench/results/README.md):" >&2
  sed 's/^/  /' <<<"$scripts" >&2
  status=1
fi
exit $status
