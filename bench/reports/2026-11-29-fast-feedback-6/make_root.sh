#!/bin/bash
# make_root.sh ROOT SELECTIONS: the fresh-machine replica (docs/reports/2026-11-28-fast-feedback.md):
# a debootstrap minbase bookworm root with the packages the fresh image lists, the image's apt
# sources, CA certificates and pip.conf
set -euo pipefail
R=$1; SEL=$2
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
[[ -x $R/bin/bash ]] || debootstrap --variant=minbase bookworm "$R" http://deb.debian.org/debian
rm -f "$R/etc/apt/sources.list"
cp /etc/apt/sources.list.d/debian.sources "$R/etc/apt/sources.list.d/"
cp /etc/resolv.conf "$R/etc/resolv.conf"
for d in proc sys dev dev/pts; do mkdir -p $R/$d; mountpoint -q $R/$d || mount --bind /$d $R/$d; done
# the image's packages that Debian's archive has (its Google Cloud SDK and kubectl came from
# repositories the image disables)
chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get update -q
pk=$(for p in $(awk '$2=="install" {print $1}' "$SEL"); do
       c=$(chroot "$R" apt-cache policy "$p" 2>/dev/null | awk '/Candidate/ {print $2}')
       [[ -n $c && $c != "(none)" ]] && echo "$p"
     done | tr '\n' ' ')
chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive bash -c "apt-get install -y -q $pk"
cp /etc/pip.conf "$R/etc/pip.conf"
for d in dev/pts dev sys proc; do umount $R/$d || true; done
echo "make_root: $(chroot "$R" dpkg -l | grep -c '^ii') packages installed"
cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/ca-certificates.crt"  # the image's bundle (its egress CA)
