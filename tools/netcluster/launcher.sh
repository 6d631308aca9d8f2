#!/usr/bin/env bash
# Hydra "ssh" replacement for netcluster.sh: hydra calls  launcher.sh [opts] HOST CMD...
# HOST is 10.77.0.(N+1); run CMD inside namespace zc-hN with its own UTS namespace
# (hostname zc-hN), the way ssh would run it in a shell on that host.
set -eu
[ -n "${NETCLUSTER_LAUNCHER_LOG:-}" ] && echo "launcher: $*" >> "$NETCLUSTER_LAUNCHER_LOG"
while [ $# -gt 0 ] && [[ "$1" == -* ]]; do shift; done   # ssh options hydra may add (-x)
host=$1; shift
case "$host" in
  10.77.0.*) n=$(( ${host##*.} - 1 )) ;;
  *) echo "launcher: host $host is not a netcluster host" >&2; exit 1 ;;
esac
[ "$n" -ge 0 ] || { echo "launcher: bad host $host" >&2; exit 1; }
exec ip netns exec "zc-h$n" unshare --uts /bin/sh -c "hostname zc-h$n && exec $*"
