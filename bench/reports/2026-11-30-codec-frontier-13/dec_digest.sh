#!/usr/bin/env bash
# dec_digest.sh DEC_CLI BASE_CLI [DATA_DIR...] — one line per (file, dtype, bound,
# chunk size, threads): the SHA-256 of the values DEC_CLI decompresses from the
# stream BASE_CLI compresses (default codec): scripts/stream_digest.sh with
# DECODE=DEC_CLI (default data: ../shared/data beside the checkout). Two decoders
# are bit-identical on these streams exactly when the outputs are identical:
#   diff <(dec_digest.sh base/zcoll base/zcoll) <(dec_digest.sh new/zcoll base/zcoll)
# (Part 13's digest/ was made by an earlier copy of the loop: the same lines in
# another order of the bounds; sort both to compare with it.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
dec="$1"; base="$2"; shift 2
[[ $# -gt 0 ]] || set -- "$root/../shared/data"
DECODE="$dec" exec bash "$root/scripts/stream_digest.sh" "$base" "$@"
