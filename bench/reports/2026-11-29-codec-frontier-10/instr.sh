#!/bin/bash
# instr.sh CLI... : callgrind instructions of zcoll_compress and the stream size per row (dims, one thread)
cd "$(dirname "$0")/../../.."
for f in ${FILES:-fnoc-vwnd_132x73x144 fnoc-uwnd_132x73x144 rect3d-t_17x96x192 trinidad-elev_1201x2401 etopo5-rose_2161x4320}; do ff=$(ls ../shared/data/*$f.f32); d=${f##*_}; for r in ${RELS:-1e-2 1e-3 1e-4}; do
 line="$f $r"
 for b in "$@"; do
  n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=zcoll_compress $b compress -i $ff -o ${TMPDIR:-/tmp}/instr.zc --type f32 --rel $r --codec dense --dims $d --threads 1 2>&1 | grep "Collected" | awk '{print $4}')
  line="$line $n $(stat -c %s ${TMPDIR:-/tmp}/instr.zc)"; done
 echo "$line"; done; done
