#!/usr/bin/env python3
"""sweep.py - run zcoll-bench across the emulated cluster (tools/netcluster) for every
(hosts, link rate, collective) and collect the JSON, logs, link checks and a manifest.

    python3 bench/netcluster/sweep.py                       # the full sweep (as root)
    python3 bench/netcluster/sweep.py --hosts 4 --rates 1gbit \\
        --colls allreduce --sizes 1M:64M --modes mpi,hom         # a small one
    python3 bench/netcluster/sweep.py --wire-limit              # hom vs MPI at 64 MiB, 4 hosts
    python3 bench/plot_bench.py RESULTS_DIR                      # then the plots
    python3 bench/netcluster/summarize.py RESULTS_DIR            # and the tables

Every zcoll-bench runs the whole size x mode grid --repeats times (default 5), the modes
interleaved (their order rotated per repeat), and records every repeat's time: the summary
reports medians and ranges, and marks differences that the ranges do not support.
--rel and --data take comma lists (one zcoll-bench per value). --wire-limit is the preset of
the wire-limit table: 4 hosts; 0.5, 1, 2 Gbit/s; hom against MPI for Allreduce,
Reduce_scatter and Bcast at 64 MiB; REL 1e-4 and 1e-3; the FNOC wind field and, when
../shared/data has it, the ETOPO5 field (summarize.py prints speedup / ratio).

For each hosts K and rate R: `netcluster.sh setup K R`, `netcluster.sh check K` (the
achieved link rates, kept in the manifest; --no-check skips it), then for each collective
`netcluster.sh run [--mpi M] K -- zcoll-bench COLL ... --json FILE`. Results go to
OUT/runs/h{K}_{R}_{COLL}.json (+ .log with the benchmark's output), OUT/checks/h{K}_{R}.txt,
and OUT/manifest.json: the exact commands (with their environment), exit status, duration,
whether the launcher had to be stopped in MPI_Finalize, and the parsed link checks. The
manifest is rewritten after every step, so an interrupted sweep still has one.

Needs root (network namespaces). See docs/netcluster.md.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NETCLUSTER = os.path.join(REPO, "tools", "netcluster", "netcluster.sh")
DEFAULT_DATA = os.path.join(REPO, "data", "ferret_fnoc-uwnd_132x73x144.f32")
SECOND_FIELD = os.path.join(REPO, "..", "shared", "data", "ferret_etopo5-rose_2161x4320.f32")
ALL_COLLS = "allreduce,reduce_scatter,allgather,bcast,scatter,reduce,gather"
sys.path.insert(0, os.path.join(REPO, "tools", "common"))
import zcoll_units  # noqa: E402  (tools/common/zcoll_units.py)


def csv_list(s):
    return [x for x in s.split(",") if x]


def rate_bps(r):
    """A link rate for tc, in bit/s. The units are tools/common/zcoll_units.py's; the rate must
    be given in bits (500mbit, 1gbit), as tc reads a bare number or "bps" differently."""
    try:
        bps = zcoll_units.rate_bps(r)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{e} (e.g. 500mbit, 1gbit)") from e
    if not r.lower().endswith(("bit", "bits")):
        raise argparse.ArgumentTypeError(f"bad rate {r!r}: give tc the rate in bits (500mbit, 1gbit)")
    return int(bps)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hosts", default="2,4", help="comma list of host counts (default 2,4)")
    p.add_argument("--ranks-per-host", type=int, default=1,
                   help="ranks on each host, sharing its memory (netcluster.sh run --ranks-per-host; "
                        "default 1)")
    p.add_argument("--round-robin", action="store_true",
                   help="with --ranks-per-host: rank i on host i mod K (netcluster.sh run --round-robin)")
    p.add_argument("--rates", default="500mbit,1gbit,2gbit", help="comma list of link rates")
    p.add_argument("--colls", default=ALL_COLLS, help="comma list of collectives (default all seven)")
    p.add_argument("--sizes", default="1M:64M", help="BEGIN:END message sizes (zcoll-bench -b/-e)")
    p.add_argument("--factor", default="4", help="size factor (zcoll-bench -f, default 4)")
    p.add_argument("--modes", default="mpi,raw,cpr_p2p,doc,hom,auto",
                   help="zcoll-bench --modes (include mpi: speedups are over it)")
    p.add_argument("--data", default=DEFAULT_DATA,
                   help="raw f32 file(s), comma list (default data/ferret_fnoc-uwnd)")
    p.add_argument("--rel", default="1e-4", help="relative error bound(s), comma list (default 1e-4)")
    p.add_argument("--warmup", default="1", help="warm-up iterations per row, in the first repeat (default 1)")
    p.add_argument("--iters", default="1", help="timed iterations per repeat (default 1)")
    p.add_argument("--repeats", type=int, default=5,
                   help="zcoll-bench --repeats: the grid this many times, modes interleaved (default 5)")
    p.add_argument("--wire-limit", action="store_true",
                   help="preset: 4 hosts, 500mbit,1gbit,2gbit, allreduce,reduce_scatter,bcast at 64M, "
                        "modes mpi,hom, REL 1e-4,1e-3, the FNOC and ETOPO5 fields")
    p.add_argument("--threads", default="1", help="zcoll-bench --threads (default 1)")
    p.add_argument("--bench-args", default="", help="more zcoll-bench arguments, one string")
    p.add_argument("--mpi", choices=["openmpi", "mpich"], default=None,
                   help="MPI to launch with (default: openmpi if mpirun.openmpi exists, else mpich)")
    p.add_argument("--bench", default=None,
                   help="zcoll-bench binary built against that MPI (default build-ompi/... for "
                        "openmpi, build/... for mpich)")
    p.add_argument("--out", default=None, help="results directory (default results/netcluster-DATE)")
    p.add_argument("--no-check", action="store_true", help="skip `netcluster.sh check`")
    p.add_argument("--timeout", type=int, default=900, help="seconds per run (NETCLUSTER_TIMEOUT)")
    p.add_argument("--grace", type=int, default=20,
                   help="seconds a finished run may sit in MPI_Finalize (NETCLUSTER_FINALIZE_GRACE)")
    p.add_argument("--mtu", default=None, help="NETCLUSTER_MTU for setup (default: the tool's, 9000)")
    p.add_argument("--nice", type=int, default=0, help="run the benchmark under nice -n N")
    p.add_argument("--teardown", action="store_true", help="tear the cluster down at the end")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    a = p.parse_args()
    if a.wire_limit:  # the preset's values where the command line kept the defaults
        preset = {"hosts": "4", "rates": "500mbit,1gbit,2gbit", "colls": "allreduce,reduce_scatter,bcast",
                  "sizes": "64M", "modes": "mpi,hom", "rel": "1e-4,1e-3"}
        if os.path.exists(SECOND_FIELD):
            preset["data"] = DEFAULT_DATA + "," + SECOND_FIELD
        for k, v in preset.items():
            if getattr(a, k) == p.get_default(k):
                setattr(a, k, v)
    a.hosts = [int(x) for x in csv_list(a.hosts)]
    a.rates = csv_list(a.rates)
    for r in a.rates:
        rate_bps(r)
    a.colls = csv_list(a.colls)
    if ":" not in a.sizes:
        a.sizes = f"{a.sizes}:{a.sizes}"
    a.begin, a.end = a.sizes.split(":", 1)
    if a.mpi is None:
        # The MPI the given binary links (launching an MPICH binary with Open MPI's mpirun
        # gives K singleton ranks of 1 that all "pass"), else Open MPI when installed.
        a.mpi = linked_mpi(a.bench) if a.bench else None
        if a.mpi is None:
            a.mpi = "openmpi" if shutil.which("mpirun.openmpi") else "mpich"
    if a.bench is None:
        a.bench = os.path.join(REPO, "build-ompi" if a.mpi == "openmpi" else "build",
                               "tools", "zcoll_bench", "zcoll-bench")
    a.bench = os.path.abspath(a.bench)
    a.datas = [os.path.abspath(d) for d in csv_list(a.data)]
    a.rels = csv_list(a.rel)
    if a.out is None:
        a.out = os.path.join(REPO, "results",
                             "netcluster-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    a.out = os.path.abspath(a.out)
    return a


def linked_mpi(binary):
    """'mpich' or 'openmpi' from the libmpi a binary links (ldd), None if unknown."""
    try:
        out = subprocess.run(["ldd", binary], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout
    except OSError:
        return None
    if "libmpich" in out:
        return "mpich"
    if "openmpi" in out or "libmpi.so.40" in out:
        return "openmpi"
    return None


def sh(cmd, env_over=None):
    """The command as one shell line, with the environment overrides in front."""
    pre = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in (env_over or {}).items())
    return (pre + " " if pre else "") + shlex.join(cmd)


def run(cmd, env_over=None, log=None, dry=False):
    """Run cmd (list) with env overrides; output to log (and a short line to the terminal)."""
    line = sh(cmd, env_over)
    print("+ " + line, flush=True)
    if dry:
        return 0, 0.0, ""
    env = dict(os.environ)
    env.update({k: str(v) for k, v in (env_over or {}).items()})
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    dt = time.monotonic() - t0
    if log:
        with open(log, "w") as f:
            f.write("$ " + line + "\n" + p.stdout)
    return p.returncode, dt, p.stdout


CHECK_LINE = re.compile(r"^\s+(\S+) (send|receive) \(([^)]*)\)\s+achieved\s+([0-9.]+) Mbit/s\s+"
                        r"configured\s+([0-9.]+) Mbit/s\s+ratio ([0-9.]+)\s+\[([^\]]*)\] (OK|FAIL)")
GOODPUT_LINE = re.compile(r"^\s+(iperf3|tcpbulk) goodput (\S+) -> (\S+): ([0-9.]+) Mbit/s")


def parse_check(text):
    """netcluster.sh check output -> list of measurements."""
    out, test = [], None
    for ln in text.splitlines():
        if ln.startswith("== "):
            test = ln[3:].split(" (configured")[0]
            continue
        m = CHECK_LINE.match(ln)
        if m:
            out.append({"test": test, "host": m.group(1), "direction": m.group(2),
                        "counter": m.group(3), "achieved_mbps": float(m.group(4)),
                        "configured_mbps": float(m.group(5)), "ratio": float(m.group(6)),
                        "ok": m.group(8) == "OK"})
            continue
        m = GOODPUT_LINE.match(ln)
        if m:
            out.append({"test": test, "goodput_tool": m.group(1), "from": m.group(2),
                        "to": m.group(3), "goodput_mbps": float(m.group(4))})
    return out


def tool_version(cmd):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=20).stdout.strip().splitlines()[0:2]
    except Exception as e:  # noqa: BLE001 - informational only
        return [f"unavailable: {e}"]


def git_state():
    def g(*a):
        try:
            return subprocess.run(["git", "-C", REPO, *a], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True).stdout.strip()
        except OSError:
            return ""
    return {"commit": g("rev-parse", "HEAD"), "dirty": bool(g("status", "--porcelain", "--untracked-files=no"))}


def main():
    a = parse_args()
    if not a.dry_run:
        if os.geteuid() != 0:
            sys.exit("sweep: must run as root (network namespaces)")
        if not os.access(a.bench, os.X_OK):
            sys.exit(f"sweep: {a.bench} not found; build it (docs/netcluster.md: "
                     f"{'cmake -B build-ompi -DZCOLL_MPI=openmpi' if a.mpi == 'openmpi' else 'cmake -B build'})")
        for d in a.datas:
            if not os.path.exists(d):
                sys.exit(f"sweep: data file {d} not found")
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "checks"), exist_ok=True)
    launcher = "mpirun.openmpi" if a.mpi == "openmpi" else "mpiexec.mpich"
    manifest = {
        "created": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "argv": sys.argv,
        "repo": git_state(),
        "machine": {"kernel": platform.release(), "cpus": os.cpu_count(), "node": platform.node()},
        "mpi": a.mpi,
        "mpi_version": tool_version([launcher, "--version"]),
        "bench": a.bench,
        "data": a.datas[0] if len(a.datas) == 1 else a.datas,
        "settings": {"sizes": [a.begin, a.end], "factor": a.factor, "modes": a.modes, "rel": a.rel,
                     "warmup": a.warmup, "iters": a.iters, "repeats": a.repeats,
                     "wire_limit": a.wire_limit, "threads": a.threads,
                     "bench_args": a.bench_args, "timeout_s": a.timeout, "finalize_grace_s": a.grace,
                     "mtu": a.mtu or os.environ.get("NETCLUSTER_MTU", "9000"),
                     "tbf_bucket_us": os.environ.get("NETCLUSTER_BUCKET_US", "200"), "nice": a.nice},
        "clusters": [],
    }
    mpath = os.path.join(a.out, "manifest.json")

    def save():
        if not a.dry_run:
            with open(mpath + ".tmp", "w") as f:
                json.dump(manifest, f, indent=2)
            os.replace(mpath + ".tmp", mpath)

    save()
    failures = 0
    setup_env = {"NETCLUSTER_MTU": a.mtu} if a.mtu else {}
    for k in a.hosts:
        for rate in a.rates:
            tag = f"h{k}_{rate}" if a.ranks_per_host == 1 else f"h{k}x{a.ranks_per_host}_{rate}"
            cl = {"hosts": k, "ranks_per_host": a.ranks_per_host, "round_robin": a.round_robin, "rate": rate,
                  "rate_bps": rate_bps(rate), "runs": []}
            manifest["clusters"].append(cl)
            cmd = [NETCLUSTER, "setup", str(k), rate]
            rc, _, out = run(cmd, setup_env, dry=a.dry_run)
            cl["setup"] = {"cmd": sh(cmd, setup_env), "rc": rc, "output": out.strip()}
            if rc != 0:
                print(out, file=sys.stderr)
                sys.exit(f"sweep: setup {k} {rate} failed")
            if not a.no_check and k >= 2:
                cmd = [NETCLUSTER, "check", str(k)]
                log = os.path.join(a.out, "checks", tag + ".txt")
                rc, dt, out = run(cmd, log=log, dry=a.dry_run)
                meas = parse_check(out)
                cl["check"] = {"cmd": sh(cmd), "rc": rc, "seconds": round(dt, 1),
                               "log": os.path.relpath(log, a.out), "measurements": meas}
                if not a.dry_run:
                    rates = [m["achieved_mbps"] for m in meas if "achieved_mbps" in m and m["direction"] == "receive"]
                    print(f"  check rc={rc}: receive rates {rates} Mbit/s (configured {rate_bps(rate)/1e6:.0f})")
            save()
            variants = [(d, rel) for d in a.datas for rel in a.rels]
            for coll, (data, rel) in [(c, v) for c in a.colls for v in variants]:
                name = f"{tag}_{coll}"
                if len(variants) > 1:  # one file per field and bound
                    name += f"_{os.path.splitext(os.path.basename(data))[0]}_rel{rel}"
                js = os.path.join(a.out, "runs", name + ".json")
                log = os.path.join(a.out, "runs", name + ".log")
                bench = [a.bench, coll, "-b", a.begin, "-e", a.end, "-f", a.factor,
                         "--data", data, "--rel", rel, "--modes", a.modes,
                         "-w", a.warmup, "-n", a.iters, "--repeats", str(a.repeats),
                         "--threads", a.threads, "--json", js]
                bench += shlex.split(a.bench_args)
                if a.nice:
                    bench = ["nice", "-n", str(a.nice)] + bench
                cmd = [NETCLUSTER, "run", "--mpi", a.mpi, "--ranks-per-host", str(a.ranks_per_host)]
                cmd += ["--round-robin"] if a.round_robin else []
                cmd += [str(k), "--"] + bench
                env = {"NETCLUSTER_TIMEOUT": a.timeout, "NETCLUSTER_FINALIZE_GRACE": a.grace}
                if os.path.exists(js) and not a.dry_run:
                    os.remove(js)
                rc, dt, out = run(cmd, env, log=log, dry=a.dry_run)
                hang = "netcluster: finalize-hang" in out
                timed_out = "netcluster: run timed out" in out
                ok_json = os.path.exists(js)
                status = None
                if ok_json:
                    with open(js) as f:
                        res = json.load(f)
                    status = res.get("pass")
                    nranks = k * a.ranks_per_host
                    if res.get("ranks", nranks) != nranks:  # e.g. launched by the other MPI
                        print(f"  {name}: the benchmark ran {res.get('ranks')} ranks, not {nranks}: "
                              f"wrong --mpi for this binary?", flush=True)
                        status = False
                        ok_json = False
                entry = {"collective": coll, "data": os.path.basename(data), "rel": rel,
                         "cmd": sh(cmd, env), "rc": rc, "seconds": round(dt, 1),
                         "json": os.path.relpath(js, a.out) if ok_json else None,
                         "log": os.path.relpath(log, a.out), "pass": status,
                         "finalize_hang": hang, "timed_out": timed_out,
                         "link_bytes": re.findall(r"netcluster: (zc-h\d+) sent ([0-9.]+) MB, "
                                                  r"received ([0-9.]+) MB", out)}
                cl["runs"].append(entry)
                if not a.dry_run:
                    print(f"  {name}: rc={rc} {dt:.0f}s json={'yes' if ok_json else 'NO'} pass={status}"
                          f"{' (stopped in MPI_Finalize)' if hang else ''}{' (TIMED OUT)' if timed_out else ''}",
                          flush=True)
                    if rc != 0 or not ok_json:
                        failures += 1
                save()
    if a.teardown:
        run([NETCLUSTER, "teardown"], dry=a.dry_run)
    print(f"sweep: results in {a.out} ({failures} failed runs); plots: python3 bench/plot_bench.py {a.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
