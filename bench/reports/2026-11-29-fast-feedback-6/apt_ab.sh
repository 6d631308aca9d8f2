#!/bin/bash
# apt_ab.sh TAG SETUP_SH: time `bash SETUP_SH` (the tests' package set from nothing) in a new
# overlay of the replica; the log to /work/fresh-2026-11-29/apt-TAG.log
set -uo pipefail
here=/work/fresh-2026-11-29; tag=$1; setup=$2
run=/var/tmp/fa-$tag; mkdir -p $run/upper $run/work $run/root
mount -t overlay overlay -o "lowerdir=/var/tmp/fresh-root,upperdir=$run/upper,workdir=$run/work" $run/root
mkdir -p $run/root/work/main/scripts && cp "$setup" $run/root/work/main/scripts/setup.sh
t0=$SECONDS
bash "$(dirname "$0")/../2026-11-28-fast-feedback/chroot_run.sh" $run/root "cd /work/main && bash scripts/setup.sh" > $here/apt-$tag.log 2>&1
echo "setup: rc=$? in $((SECONDS - t0)) s" | tee -a $here/apt-$tag.log
for d in work/shared usr/local dev/pts dev sys proc; do umount -l $run/root/$d 2>/dev/null; done
umount -l $run/root; rm -rf $run
