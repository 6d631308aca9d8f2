#!/usr/bin/env bash
# netcluster.sh - emulate a K-host cluster on one machine with network namespaces.
#
#   setup K RATE      K hosts zc-h0..zc-h{K-1}, each joined by a veth pair to bridge
#                     zc-br0 in namespace zc-sw; tbf shaping of each host's send and
#                     receive rate (e.g. 500mbit, 1gbit, 2gbit).  Idempotent.
#   run [--mpi mpich|openmpi] [--ranks-per-host R [--round-robin]] K -- CMD...
#                     run an MPI program with R ranks (default 1) on each of K hosts
#                     (MPICH/hydra by default, or NETCLUSTER_MPI); stops a launcher stuck
#                     in MPI_Finalize. The R ranks of a host share its namespace and its
#                     hostname; their messages to each other take the host's loopback
#                     (unshaped TCP), to other hosts the shaped link. ZCOLL_NODE_MAP
#                     tells zcoll the layout (the MPI library sees R*K nodes). Ranks are
#                     placed host by host (0..R-1 on the first); --round-robin places
#                     rank i on host i mod K (a rank order not by node).
#   check [K]         measure achieved vs configured rate (iperf3 or python3 fallback).
#   status            print what exists.
#   teardown          remove everything (safe to run twice).
#
# Addresses: 10.77.0.0/24 exists only inside the zc-* namespaces (hosts 10.77.0.1..K,
# the bridge 10.77.0.254 for mpiexec).  Nothing is configured in the root namespace, and
# there is no default route anywhere, so no packet can leave the emulated cluster.
# See docs/netcluster.md.
set -euo pipefail

SW=zc-sw                 # switch namespace: holds the bridge, mpiexec runs here
BR=zc-br0
NET=10.77.0
BRADDR=$NET.254
HIF=zc0                  # interface name inside every host namespace
STATE=/run/zcoll-netcluster
BUCKET_US=${NETCLUSTER_BUCKET_US:-200}   # tbf bucket, microseconds of line rate
QUEUE_MS=${NETCLUSTER_QUEUE_MS:-10}      # tbf queue limit, milliseconds of line rate
RUN_TIMEOUT=${NETCLUSTER_TIMEOUT:-600}   # seconds before `run` kills mpiexec
MTU=${NETCLUSTER_MTU:-9000}              # link MTU: jumbo frames by default (1500 costs ~2x the CPU per byte here)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "netcluster: $*" >&2; exit 2; }
need_root() { [ "$(id -u)" = 0 ] || die "must run as root"; }
host() { echo "zc-h$1"; }
swport() { echo "zc-h$1p"; }           # switch-side end of host N's veth pair
addr() { echo "$NET.$(( $1 + 1 ))"; }
nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
ns_exists() { ip netns list | awk '{print $1}' | grep -qx "$1"; }

# rate string (500mbit, 1gbit, 2.5gbit, 100kbit, 1000000) -> bits/s
rate_bps() {
  python3 - "$1" <<'PY'
import re, sys
s = sys.argv[1].strip().lower()
m = re.fullmatch(r'([0-9.]+)\s*(|bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps)', s)
if not m: sys.exit("bad rate: " + s)
v = float(m.group(1)); u = m.group(2)
mult = {'':1,'bit':1,'kbit':1e3,'mbit':1e6,'gbit':1e9,'tbit':1e12,
        'bps':8,'kbps':8e3,'mbps':8e6,'gbps':8e9}[u]   # tc: "bps" = bytes/s
print(int(v*mult))
PY
}

shape() {   # shape ns dev bps
  local ns=$1 dev=$2 bps=$3
  local burst=$(( bps / 8 * BUCKET_US / 1000000 ))
  [ "$burst" -lt $(( 2 * (MTU + 14) )) ] && burst=$(( 2 * (MTU + 14) ))   # must hold two full frames
  local limit=$(( bps / 8 * QUEUE_MS / 1000 ))
  [ "$limit" -lt $(( 4 * burst )) ] && limit=$(( 4 * burst ))
  nsx "$ns" tc qdisc replace dev "$dev" root tbf rate "${bps}bit" burst "$burst" limit "$limit"
}

hosts_present() { ip netns list | awk '{print $1}' | grep -E '^zc-h[0-9]+$' | sed 's/zc-h//' | sort -n; }

cmd_setup() {
  need_root
  [ $# -eq 2 ] || die "usage: setup K RATE"
  local K=$1 RATE=$2 bps
  [[ "$K" =~ ^[0-9]+$ ]] && [ "$K" -ge 1 ] && [ "$K" -le 200 ] || die "K must be 1..200"
  bps=$(rate_bps "$RATE")
  # the private range must never exist in the root namespace
  if ip -4 addr show | grep -q "inet $NET\."; then die "$NET.0/24 is assigned in the root namespace; refusing"; fi

  ns_exists $SW || ip netns add $SW
  nsx $SW sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  nsx $SW ip link set lo up
  nsx $SW ip link show $BR >/dev/null 2>&1 || nsx $SW ip link add $BR type bridge
  nsx $SW ip link set $BR type bridge stp_state 0 forward_delay 0 2>/dev/null || true
  nsx $SW ip addr replace $BRADDR/24 dev $BR
  nsx $SW ip link set $BR up

  # remove hosts beyond K (setup with a smaller K)
  local n
  for n in $(hosts_present); do [ "$n" -ge "$K" ] && del_host "$n"; done

  for (( n = 0; n < K; n++ )); do
    local h; h=$(host $n); local p; p=$(swport $n)
    ns_exists "$h" || ip netns add "$h"
    nsx "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    if ! nsx "$h" ip link show $HIF >/dev/null 2>&1 || ! nsx $SW ip link show "$p" >/dev/null 2>&1; then
      nsx "$h" ip link del $HIF 2>/dev/null || true
      nsx $SW ip link del "$p" 2>/dev/null || true
      # create the pair directly inside the two namespaces (never in the root one)
      nsx $SW ip link add "$p" type veth peer name $HIF netns "$h"
    fi
    nsx $SW ip link set "$p" mtu "$MTU"
    nsx "$h" ip link set $HIF mtu "$MTU"
    nsx $SW ip link set "$p" master $BR
    nsx $SW ip link set "$p" up
    nsx "$h" ip link set lo up
    nsx "$h" ip addr flush dev $HIF
    nsx "$h" ip addr add "$(addr $n)/24" dev $HIF
    nsx "$h" ip link set $HIF up
    shape "$h" $HIF "$bps"        # host send rate   (egress of the host side)
    shape $SW "$p" "$bps"         # host receive rate (egress of the switch side)
  done
  mkdir -p $STATE
  printf 'K=%s\nRATE=%s\nBPS=%s\nMTU=%s\n' "$K" "$RATE" "$bps" "$MTU" > $STATE/config
  echo "netcluster: $K hosts at $RATE ($bps bit/s send and receive each), bucket ${BUCKET_US}us, mtu $MTU"
}

del_host() {
  local h; h=$(host "$1")
  nsx $SW ip link del "$(swport "$1")" 2>/dev/null || true
  ip netns del "$h" 2>/dev/null || true
}

cmd_teardown() {
  need_root
  local n
  for n in $(hosts_present); do del_host "$n"; done
  if ns_exists $SW; then
    # kill anything we left running in the namespaces (pids by namespace, not by name)
    ip netns pids $SW 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del $SW
  fi
  rm -rf $STATE
  echo "netcluster: torn down"
}

cmd_status() {
  if [ -f $STATE/config ]; then echo "config:"; sed 's/^/  /' $STATE/config; else echo "config: none"; fi
  echo "namespaces:"; ip netns list | grep -E '^zc-' | sed 's/^/  /' || echo "  (none)"
  if ns_exists $SW; then
    echo "bridge $BR in $SW:"; nsx $SW ip -br addr show | sed 's/^/  /'
    echo "switch-side shaping (host receive):"; nsx $SW tc qdisc show | grep tbf | sed 's/^/  /' || true
  fi
  local n
  for n in $(hosts_present); do
    local h; h=$(host "$n")
    echo "$h: $(nsx "$h" ip -br -4 addr show dev $HIF 2>/dev/null | tr -s ' ')  send: $(nsx "$h" tc qdisc show dev $HIF 2>/dev/null | grep -o 'rate [^ ]* burst [^ ]*')"
  done
}

load_config() {
  [ -f $STATE/config ] || die "not set up (run: setup K RATE)"
  # shellcheck disable=SC1091
  . $STATE/config
}

# rate_line NAME B0 B1 T0 T1 CFG LOWCHECK -> "  NAME achieved ... OK|FAIL"
rate_line() {
  python3 - "$@" <<'PY'
import sys
name, b0, b1, t0, t1, cfg, low = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), sys.argv[7] == "1"
r = (b1 - b0) * 8 / (t1 - t0)
ok = r <= 1.05 * cfg and (not low or r >= 0.5 * cfg)
crit = "<=1.05x, >=0.5x" if low else "<=1.05x (shared)"
print(f"  {name:32s} achieved {r/1e6:9.1f} Mbit/s  configured {cfg/1e6:9.1f} Mbit/s  ratio {r/cfg:.3f}  [{crit}] {'OK' if ok else 'FAIL'}")
PY
}

txbytes() { nsx "$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }

# measure: args = "label" lowsend then pairs "src:dst"; prints achieved vs configured; returns 1 on fail
measure() {
  local label=$1 lowsend=$2; shift 2   # lowsend=0: senders share a receiver, no lower bound
  # NETCLUSTER_CHECK_SECONDS: each measurement's length (default 8 s: 2 s warm-up, then a
  # 5 s window); the demo uses 4
  local dur=${NETCLUSTER_CHECK_SECONDS:-8}
  local pairs=("$@") pids=() i=0 warm win souts=()
  warm=$(awk -v d="$dur" 'BEGIN { print d / 4 }')
  win=$(awk -v d="$dur" 'BEGIN { print d * 5 / 8 }')
  local -A servers=()
  for pr in "${pairs[@]}"; do
    local s=${pr%:*} d=${pr#*:}
    local port=$(( 5201 + i ))
    local so; so=$(mktemp); souts+=("$so")
    if [ "$TOOL" = iperf3 ]; then
      nsx "$(host "$d")" iperf3 -s -1 -p $port -B "$(addr "$d")" >/dev/null 2>&1 &
    else
      nsx "$(host "$d")" python3 "$HERE/tcpbulk.py" server "$(addr "$d")" $port >"$so" 2>&1 &
    fi
    servers[$i]=$!
    i=$(( i + 1 ))
  done
  sleep 0.5
  i=0
  local outs=()
  for pr in "${pairs[@]}"; do
    local s=${pr%:*} d=${pr#*:}
    local port=$(( 5201 + i )) o; o=$(mktemp)
    outs+=("$o")
    if [ "$TOOL" = iperf3 ]; then
      nsx "$(host "$s")" iperf3 -c "$(addr "$d")" -B "$(addr "$s")" -p $port -t $dur -J >"$o" 2>&1 &
    else
      nsx "$(host "$s")" python3 "$HERE/tcpbulk.py" client "$(addr "$s")" "$(addr "$d")" $port $dur >"$o" 2>&1 &
    fi
    pids+=($!)
    i=$(( i + 1 ))
  done
  sleep $warm
  # counters: sender host egress (send shaping) and receiver switch port egress (receive shaping)
  local dsts; dsts=$(for pr in "${pairs[@]}"; do echo "${pr#*:}"; done | sort -un)
  local srcs; srcs=$(for pr in "${pairs[@]}"; do echo "${pr%:*}"; done | sort -un)
  local -A s0=() r0=() s1=() r1=()
  local t0 t1 n
  t0=$(date +%s.%N)
  for n in $srcs; do s0[$n]=$(txbytes "$(host "$n")" $HIF); done
  for n in $dsts; do r0[$n]=$(txbytes $SW "$(swport "$n")"); done
  sleep $win
  t1=$(date +%s.%N)
  for n in $srcs; do s1[$n]=$(txbytes "$(host "$n")" $HIF); done
  for n in $dsts; do r1[$n]=$(txbytes $SW "$(swport "$n")"); done
  for p in "${pids[@]}"; do wait "$p" || true; done
  for p in "${servers[@]}"; do wait "$p" 2>/dev/null || true; done
  local rc=0 line
  echo "== $label (configured $RATE = $BPS bit/s per host, each direction)"
  for n in $srcs; do
    line=$(rate_line "$(host "$n") send (zc0 tx)" "${s0[$n]}" "${s1[$n]}" "$t0" "$t1" "$BPS" "$lowsend")
    echo "$line"; [[ "$line" == *FAIL ]] && rc=1
  done
  for n in $dsts; do
    line=$(rate_line "$(host "$n") receive (switch port tx)" "${r0[$n]}" "${r1[$n]}" "$t0" "$t1" "$BPS" 1)
    echo "$line"; [[ "$line" == *FAIL ]] && rc=1
  done
  i=0
  for o in "${outs[@]}"; do
    if [ "$TOOL" != iperf3 ]; then
      local s d; s=${pairs[$i]%:*}; d=${pairs[$i]#*:}
      echo "  tcpbulk goodput zc-h$s -> zc-h$d: $(python3 -c "import sys; print(f'{float(sys.argv[1])/1e6:.1f} Mbit/s')" "$(cat "${souts[$i]}")" 2>/dev/null || cat "${souts[$i]}")"
      rm -f "$o" "${souts[$i]}"; i=$(( i + 1 )); continue
    fi
    rm -f "${souts[$i]}"
    python3 - "${pairs[$i]}" "$o" <<'PY' || true
import json, sys
try:
    j = json.load(open(sys.argv[2]))
    r = j["end"]["sum_received"]["bits_per_second"]
    s, d = sys.argv[1].split(":")
    print(f"  iperf3 goodput zc-h{s} -> zc-h{d}: {r/1e6:.1f} Mbit/s")
except Exception as e:
    print("  iperf3 output unreadable:", open(sys.argv[2]).read()[-300:])
PY
    rm -f "$o"; i=$(( i + 1 ))
  done
  return $rc
}

cmd_check() {
  need_root; load_config
  local k=${1:-$K}
  [ "$k" -ge 2 ] && [ "$k" -le "$K" ] || die "check needs 2 <= k <= K ($K)"
  TOOL=${NETCLUSTER_CHECK_TOOL:-}
  if [ -z "$TOOL" ]; then command -v iperf3 >/dev/null && TOOL=iperf3 || TOOL=python; fi
  echo "check: traffic generator $TOOL"
  local rc=0
  measure "unidirectional zc-h0 -> zc-h1" 1 0:1 || rc=1
  measure "bidirectional zc-h0 <-> zc-h1" 1 0:1 1:0 || rc=1
  if [ "$k" -ge 3 ]; then
    # incast: all others send to h1 at once; only h1's receive shaping limits the sum
    local pairs=() n
    for (( n = 0; n < k; n++ )); do [ $n -ne 1 ] && pairs+=("$n:1"); done
    measure "incast (receive shaping) ${pairs[*]}" 0 "${pairs[@]}" || rc=1
  fi
  [ $rc -eq 0 ] && echo "check: PASS" || echo "check: FAIL"
  return $rc
}

# rank_procs NS -> number of processes in namespace NS other than the MPI launcher's
# daemons (hydra_pmi_proxy, orted) and the launcher's shell: the rank (and its children)
rank_procs() {
  local c=0 p comm
  for p in $(ip netns pids "$1" 2>/dev/null); do
    comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
    case "$comm" in hydra_pmi_proxy|orted|sh|unshare|ip|launcher.sh) ;; *) c=$(( c + 1 )) ;; esac
  done
  echo $c
}

# mpi_cmdline K R HOSTFILE CMD... : sets MPI_CMD, the launcher command line for $MPI (run
# in zc-sw), K hosts with R ranks each
mpi_cmdline() {
  local k=$1 r=$2 hf=$3; shift 3
  local rndv=${NETCLUSTER_UCX_RNDV_THRESH:-inf} extra=() map=${ZCOLL_NODE_MAP:-} i
  # extra launcher arguments, e.g. NETCLUSTER_MPI_ARGS="--mca coll_tuned_use_dynamic_rules 1"
  [ -n "${NETCLUSTER_MPI_ARGS:-}" ] && read -r -a extra <<< "$NETCLUSTER_MPI_ARGS"
  # R > 1: MPI keeps treating every rank as a node of its own (MPICH without
  # NOLOCAL would take all namespaces for one node and move every message through
  # shared memory, past the links), so the ranks of a host talk over its loopback;
  # zcoll learns the layout from ZCOLL_NODE_MAP (ranks are placed host by host),
  # unless the caller set one.
  # PLACEMENT=round-robin (run --round-robin): rank i on host i mod k
  if [ -z "$map" ] && [ "$r" -gt 1 ]; then
    for (( i = 0; i < k * r; i++ )); do
      if [ "${PLACEMENT:-by-node}" = round-robin ]; then map+="${map:+,}$(( i % k ))"
      else map+="${map:+,}$(( i / r ))"; fi
    done
  fi
  local ppn=(-ppn "$r") mapby=("ppr:$r:node")
  [ "${PLACEMENT:-by-node}" = round-robin ] && ppn=() && mapby=(node)
  if [ -n "$map" ]; then
    if [ "$MPI" = openmpi ]; then extra+=(-x "ZCOLL_NODE_MAP=$map"); else extra+=(-genv ZCOLL_NODE_MAP "$map"); fi
  fi
  case "$MPI" in
    mpich)
      # hydra: hostfile "ADDR:1"; the launcher maps ADDR to its namespace
      MPI_CMD=(mpiexec.mpich -f "$hf" -n $(( k * r )) "${ppn[@]}"
        -launcher ssh -launcher-exec "$HERE/launcher.sh"
        -iface $BR
        -genv MPIR_CVAR_NOLOCAL 1
        -genv UCX_TLS tcp,self
        -genv UCX_NET_DEVICES $HIF
        -genv UCX_RNDV_THRESH "$rndv"
        -genv OMP_WAIT_POLICY passive
        "${extra[@]}" "$@") ;;
    openmpi)
      # ORTE: mpirun starts one orted per host through plm_rsh_agent (the same launcher);
      # the orteds call back over TCP (oob) on 10.77.0.0/24 only. MPI traffic: pml ucx
      # over TCP on zc0; no shared-memory btl (vader), no binding (all "hosts" share 2 cores).
      MPI_CMD=(mpirun.openmpi --allow-run-as-root -np $(( k * r )) --hostfile "$hf"
        --map-by "${mapby[@]}" --bind-to none
        --mca plm_rsh_agent "$HERE/launcher.sh"
        --mca plm_rsh_no_tree_spawn 1
        --mca oob_tcp_if_include $NET.0/24
        --mca btl self,tcp
        --mca btl_tcp_if_include $NET.0/24
        --mca pml ucx
        --mca pml_ucx_tls any --mca pml_ucx_devices any
        -x UCX_TLS=tcp,self
        -x UCX_NET_DEVICES=$HIF
        -x UCX_RNDV_THRESH="$rndv"
        -x OMP_WAIT_POLICY=passive
        "${extra[@]}" "$@") ;;
    *) die "unknown MPI '$MPI' (mpich or openmpi)" ;;
  esac
}

cmd_run() {
  need_root; load_config
  MPI=${NETCLUSTER_MPI:-mpich}
  local r=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --mpi) [ $# -ge 2 ] || die "--mpi needs mpich or openmpi"; MPI=$2; shift 2 ;;
      --mpi=*) MPI=${1#--mpi=}; shift ;;
      --ranks-per-host) [ $# -ge 2 ] || die "--ranks-per-host needs a count"; r=$2; shift 2 ;;
      --ranks-per-host=*) r=${1#--ranks-per-host=}; shift ;;
      --round-robin) PLACEMENT=round-robin; shift ;;
      *) break ;;
    esac
  done
  [[ "$r" =~ ^[0-9]+$ ]] && [ "$r" -ge 1 ] && [ "$r" -le 64 ] || die "--ranks-per-host must be 1..64"
  [ $# -ge 1 ] || die "usage: run [--mpi mpich|openmpi] [--ranks-per-host R] K -- CMD..."
  local k=$1; shift
  [ "${1:-}" = "--" ] && shift
  [ $# -ge 1 ] || die "usage: run [--mpi mpich|openmpi] [--ranks-per-host R] K -- CMD..."
  [[ "$k" =~ ^[0-9]+$ ]] && [ "$k" -ge 1 ] && [ "$k" -le "$K" ] || die "run needs 1 <= k <= K ($K)"
  local hf=$STATE/hosts.$MPI.$k n
  : > "$hf"
  for (( n = 0; n < k; n++ )); do
    # hydra fills a host's slots before the next: one slot per host cycles them
    local slots=$r; [ "${PLACEMENT:-by-node}" = round-robin ] && [ "$MPI" = mpich ] && slots=1
    if [ "$MPI" = openmpi ]; then echo "$(addr $n) slots=$r" >> "$hf"; else echo "$(addr $n):$slots" >> "$hf"; fi
  done
  mpi_cmdline "$k" "$r" "$hf" "$@"
  command -v "${MPI_CMD[0]}" >/dev/null || die "${MPI_CMD[0]} not found (Open MPI: bash scripts/setup.sh --openmpi)"
  # ranks start in the launcher's working directory, so relative paths work
  local rc=0 t0 t1 grace=${NETCLUSTER_FINALIZE_GRACE:-20} marker=${NETCLUSTER_DONE_MARKER:-'^# (OK|FAILED):'}
  local ok_marker=${NETCLUSTER_OK_MARKER:-'^# OK:'} log stuck=0
  local -A tx0=() rx0=()
  for (( n = 0; n < k; n++ )); do tx0[$n]=$(txbytes "$(host $n)" $HIF); rx0[$n]=$(txbytes $SW "$(swport $n)"); done
  log=$(mktemp /tmp/netcluster-run.XXXXXX)
  t0=$(date +%s.%N)
  set +e
  # stdout also goes to $log, which the watchdog below reads
  ip netns exec $SW timeout -k 10 "$RUN_TIMEOUT" "${MPI_CMD[@]}" > >(tee -a "$log") &
  local pid=$! seen=() done_since="" last_size=-1 quiet_since
  quiet_since=$(date +%s)
  # Watchdog: the program is done when its output has the done-marker (zcoll-bench:
  # "# OK: ..." / "# FAILED: ...") or when the rank of one host has exited while others
  # still run.
  # If then the output stays unchanged for $grace seconds, the remaining ranks are stuck
  # in MPI_Finalize (MPICH 4.0.2 + UCX-TCP, >= 3 hosts): stop the launcher.
  if [ "$grace" -gt 0 ]; then
    while kill -0 "$pid" 2>/dev/null; do
      sleep 1
      local now sz; now=$(date +%s); sz=$(stat -c %s "$log" 2>/dev/null || echo 0)
      if [ "$sz" != "$last_size" ]; then last_size=$sz; quiet_since=$now; fi
      if [ -z "$done_since" ]; then
        if grep -Eq "$marker" "$log"; then done_since=$now; fi
        local running=0 exited=0 c
        for (( n = 0; n < k; n++ )); do
          c=$(rank_procs "$(host $n)")
          if [ "$c" -gt 0 ]; then seen[$n]=1; running=$(( running + 1 ))
          elif [ -n "${seen[$n]:-}" ]; then exited=$(( exited + 1 )); fi
        done
        if [ -z "$done_since" ] && [ "$exited" -gt 0 ] && [ "$running" -gt 0 ]; then done_since=$now; fi
      fi
      if [ -n "$done_since" ] && [ $(( now - done_since )) -ge "$grace" ] && [ $(( now - quiet_since )) -ge "$grace" ]; then
        stuck=1
        echo "netcluster: program done but the launcher still runs ${grace}s later (stuck in MPI_Finalize?); stopping it" >&2
        kill -TERM "$pid" 2>/dev/null
        break
      fi
    done
  fi
  wait "$pid"
  rc=$?
  set -e
  t1=$(date +%s.%N)
  sleep 0.2   # let tee drain
  for (( n = 0; n < k; n++ )); do
    local tx rx; tx=$(( $(txbytes "$(host $n)" $HIF) - tx0[$n] )); rx=$(( $(txbytes $SW "$(swport $n)") - rx0[$n] ))
    python3 -c "import sys; tx,rx,dt,c=int(sys.argv[1]),int(sys.argv[2]),float(sys.argv[3]),float(sys.argv[4]); print(f'netcluster: zc-h$n sent {tx/1e6:.1f} MB, received {rx/1e6:.1f} MB in {dt:.1f} s (whole run, mean {tx*8/dt/1e6:.0f}/{rx*8/dt/1e6:.0f} Mbit/s; link {c/1e6:.0f} Mbit/s)', file=sys.stderr)" \
      "$tx" "$rx" "$(python3 -c "print($t1-$t0)")" "$BPS"
  done
  if [ $stuck -eq 1 ]; then
    # the results are complete; the exit status follows the program's own verdict line
    if grep -Eq "$ok_marker" "$log"; then rc=0; else rc=1; fi
    echo "netcluster: finalize-hang: $MPI run stopped after the program finished (exit status $rc from its output)" >&2
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "netcluster: run timed out after ${RUN_TIMEOUT}s (MPICH 4.0.2/UCX-TCP often hangs in MPI_Finalize with >= 3 hosts; output above is complete if the program printed its results)" >&2
  fi
  rm -f "$log"
  # leftover processes in host namespaces after a hang: kill them by namespace pid list
  for (( n = 0; n < k; n++ )); do ip netns pids "$(host $n)" 2>/dev/null | xargs -r kill -9 2>/dev/null || true; done
  return $rc
}

case "${1:-}" in
  setup) shift; cmd_setup "$@" ;;
  teardown) shift; cmd_teardown ;;
  status) shift; cmd_status ;;
  check) shift; cmd_check "$@" ;;
  run) shift; cmd_run "$@" ;;
  *) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
