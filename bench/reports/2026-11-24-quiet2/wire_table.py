#!/usr/bin/env python3
"""The wire-limit tables of the second quiet session of 2026-11-24: hom's speedup over MPI
(and, for Bcast, over zcoll's own uncompressed chain, mode raw) divided by hom's compression
ratio, median [min-max] over the repeats; each repeat's speedup is the quotient of the two
modes' times in that repeat (modes interleaved).
    python3 wire_table.py [DIR]   (DIR: bench/results/2026-11-24-quiet2,
read from its archive unless unpacked)"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

here = sys.argv[1] if len(sys.argv) > 1 else rd.path("2026-11-24-quiet2")
RATE = {"500mbit": 0, "1gbit": 1, "2gbit": 2}


def load(pattern):
    """(hosts, rate, coll, field, rel) -> {mode: row} from the sweep directories matching pattern."""
    out = {}
    for js in rd.glob(os.path.join(here, pattern, "runs", "*.json")):
        j = rd.load_json(js)
        base = os.path.basename(js).split("_")
        hosts, rate = int(base[0][1:]), base[1]
        field = os.path.basename(j.get("data", "?")).split("_")[1]
        out[(hosts, rate, j["collective"], field, float(j["error_bound"]))] = {r["mode"]: r for r in j["rows"]}
    return out


def per_repeat(num, den):
    a, b = num["time_coll_us"]["repeats"], den["time_coll_us"]["repeats"]
    return [x / y for x, y in zip(a, b)]


def fmt(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}–{max(v):.2f}]"


def table(data, with_raw):
    head = "| hosts | rate | collective | field | REL | algo | ratio | speedup over MPI | fraction (MPI) |"
    sep = "|---|---|---|---|---|---|---:|---|---|"
    if with_raw:
        head += " raw / MPI | speedup over raw | fraction (raw) |"
        sep += "---|---|---|"
    print(head)
    print(sep)
    for key in sorted(data, key=lambda k: (k[0], RATE.get(k[1], 9), k[2], k[3], k[4])):
        m = data[key]
        if "hom" not in m or "mpi" not in m:
            continue
        hom, mpi = m["hom"], m["mpi"]
        ratio = hom["ratio"]
        s = per_repeat(mpi, hom)
        line = (f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]:g} | {hom.get('algorithm', '')} | "
                f"{ratio:.2f} | {fmt(s)} | {fmt([x / ratio for x in s])} |")
        if with_raw:
            if "raw" in m:
                sr = per_repeat(m["raw"], hom)
                line += f" {fmt(per_repeat(m['raw'], mpi))} | {fmt(sr)} | {fmt([x / ratio for x in sr])} |"
            else:
                line += " – | – | – |"
        print(line)


print("### 2 hosts (one rank per core): Allreduce and Reduce_scatter\n")
table(load("wire-h2-*[a-z]"), False)
print("\n### Bcast against MPI and against zcoll's uncompressed chain (raw)\n")
b = load("wire-h2-*-bcast")
b.update(load("wire-h4-*-bcast"))
table(b, True)
