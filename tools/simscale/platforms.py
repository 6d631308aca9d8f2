#!/usr/bin/env python3
"""platforms.py — SimGrid platforms and hostfiles for the at-scale study (docs/scale.md).

    python3 tools/simscale/platforms.py --nodes 512 --topology crossbar --out DIR
    python3 tools/simscale/platforms.py --nodes 512 --topology fattree --out DIR

writes DIR/<topology>-<N>.xml and DIR/<topology>-<N>.hosts (one host per line,
one MPI rank per host). With --ranks-per-host P (the node-aware study) every
host has P cores and the hostfile lists it P times (ranks by node: ranks
0..P-1 on node-0, ...); the files are then named <topology>-<N>x<P>. Every
host has one full-duplex link of --gbps (default 100 Gbit/s) to the network:

* crossbar: a cluster without backbone; a message crosses the sender's up link
  and the receiver's down link (each --lat-us / 2), so every pair of hosts has
  the full link rate and the end-to-end latency is --lat-us (default 1 us).
  The network is non-blocking: only the hosts' own links are shared.
* fattree: SimGrid's two-level FAT_TREE: leaf switches of --leaf hosts (16 by
  default, N/2 below 32 hosts), N/leaf leaves, each leaf with leaf/--oversub
  up links to as many spine switches (--oversub 1: full bisection). A route
  crosses up to 4 links, each --lat-us / 4, so the end-to-end latency is
  --lat-us through a spine and half of it inside a leaf.

Messages between ranks of one host cross the host's loopback link
(--loopback-gbps, default 8000 Gbit/s, i.e. free; --loopback-lat-us, default
0): SimGrid gives every such flow the loopback's full rate (it is not shared),
so set it to the rate one rank copies to another while every rank of the node
does (the node-aware study derives it from the node's memory bandwidth).

Host speed is 1 Gflop/s; it does not matter for the study, which charges
computation in seconds (smpi_execute_benched) and turns SMPI's CPU
benchmarking off.
"""
import argparse
import os


def _header():
    return ("<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<platform version="4.1">\n')


def platform_xml(nodes, topology, gbps=100.0, lat_us=1.0, leaf=None, oversub=1, ranks_per_host=1,
                 loopback_gbps=8000.0, loopback_lat_us=0.0):
    """The platform file text and the host names (each ranks_per_host times)."""
    if nodes < 2:
        raise ValueError("at least 2 nodes")
    bw = f"{gbps / 8:.6g}GBps"  # SimGrid: bytes per second
    hosts = [f"node-{i}" for i in range(nodes) for _ in range(ranks_per_host)]
    common = (f'prefix="node-" suffix="" radical="0-{nodes - 1}" speed="1Gf" core="{ranks_per_host}" '
              f'bw="{bw}" sharing_policy="SPLITDUPLEX" loopback_bw="{loopback_gbps / 8:.6g}GBps" '
              f'loopback_lat="{loopback_lat_us:.6g}us"')
    if topology == "crossbar":
        body = (f'  <zone id="world" routing="Full">\n'
                f'    <cluster id="crossbar" {common} lat="{lat_us / 2:.6g}us"/>\n'
                f'  </zone>\n')
        desc = f"crossbar, {nodes} hosts, {gbps:g} Gbit/s full-duplex host links, {lat_us:g} us end to end"
    elif topology == "fattree":
        if leaf is None:
            leaf = 16 if nodes >= 32 else max(1, nodes // 2)
        if nodes % leaf:
            raise ValueError(f"{nodes} nodes are not a multiple of the leaf size {leaf}")
        leaves = nodes // leaf
        up = max(1, leaf // oversub)
        params = f"2;{leaf},{leaves};1,{up};1,1"
        body = (f'  <zone id="world" routing="Full">\n'
                f'    <cluster id="fattree" {common} lat="{lat_us / 4:.6g}us" '
                f'topology="FAT_TREE" topo_parameters="{params}"/>\n'
                f'  </zone>\n')
        desc = (f"two-level fat tree, {nodes} hosts, {leaves} leaf switches of {leaf} hosts, "
                f"{up} spines (oversubscription {leaf / up:g}:1), {gbps:g} Gbit/s links, "
                f"{lat_us:g} us end to end through a spine")
    else:
        raise ValueError(f"unknown topology {topology}")
    if ranks_per_host > 1:
        desc += (f"; {ranks_per_host} ranks per host (cores), intra-host {loopback_gbps:g} Gbit/s per flow, "
                 f"{loopback_lat_us:g} us")
    return _header() + f"<!-- {desc} -->\n" + body + "</platform>\n", hosts, desc


def write(nodes, topology, out, **kw):
    """Write the platform and hostfile; returns (xml path, hostfile path, description)."""
    os.makedirs(out, exist_ok=True)
    xml, hosts, desc = platform_xml(nodes, topology, **kw)
    P = kw.get("ranks_per_host", 1)
    name = f"{topology}-{nodes}" if P == 1 else f"{topology}-{nodes}x{P}"
    px = os.path.join(out, f"{name}.xml")
    ph = os.path.join(out, f"{name}.hosts")
    with open(px, "w") as f:
        f.write(xml)
    with open(ph, "w") as f:
        f.write("\n".join(hosts) + "\n")
    return px, ph, desc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, nargs="+", required=True)
    ap.add_argument("--topology", choices=["crossbar", "fattree"], default="crossbar")
    ap.add_argument("--gbps", type=float, default=100.0)
    ap.add_argument("--lat-us", type=float, default=1.0)
    ap.add_argument("--leaf", type=int)
    ap.add_argument("--oversub", type=int, default=1)
    ap.add_argument("--ranks-per-host", type=int, default=1)
    ap.add_argument("--loopback-gbps", type=float, default=8000.0)
    ap.add_argument("--loopback-lat-us", type=float, default=0.0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    for n in a.nodes:
        px, ph, desc = write(n, a.topology, a.out, gbps=a.gbps, lat_us=a.lat_us, leaf=a.leaf,
                             oversub=a.oversub, ranks_per_host=a.ranks_per_host,
                             loopback_gbps=a.loopback_gbps, loopback_lat_us=a.loopback_lat_us)
        print(f"{px} {ph}: {desc}")


if __name__ == "__main__":
    main()
