#!/bin/bash
# (the fresh-machine replica of docs/reports/2026-11-28-fast-feedback.md: a debootstrap root with the
# image's packages, one overlay per run; ROOT is the overlay's mount point)
# chroot_run.sh ROOT CMD: run CMD in a fresh-machine chroot with /proc,/sys,/dev, shared/ and CUDA
set -e
R=$1; shift
for d in proc sys dev dev/pts; do mkdir -p $R/$d; mountpoint -q $R/$d || mount --bind /$d $R/$d; done
mkdir -p $R/work/shared $R/usr/local $R/run/netns
mountpoint -q $R/work/shared || mount --bind -o ro /work/shared $R/work/shared
mountpoint -q $R/usr/local || mount --rbind -o ro /usr/local $R/usr/local
cp /etc/resolv.conf $R/etc/resolv.conf 2>/dev/null || true
chroot $R env -i PIP_CERT=/etc/ssl/certs/ca-certificates.crt SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt PIP_DEFAULT_TIMEOUT=180 PIP_DISABLE_PIP_VERSION_CHECK=1 HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb bash -c "$*"
