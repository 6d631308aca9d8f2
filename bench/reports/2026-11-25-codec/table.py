#!/usr/bin/env python3
"""table.py RESULT.json [--threads N] [--summary] — Markdown tables from measure.py's JSON.

Per file and bound: each operation's rate before and after (GB/s, median [min–max]
over the repeats), memcpy of the same repeats, the per-repeat ratio after/memcpy
(median [min–max]) and the goal it is held to. --summary: the goals only, the
worst case over files and bounds, and the 2-thread scaling (2-thread median rate /
1-thread median rate of the same build). A RESULT.json under bench/results/ is read from its
archive unless unpacked."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

# issue 29: rate / memcpy of the same run, 1 thread, every file and bound
GOALS = {"compress_abs": 0.5, "compress_rel": 0.4, "decompress": 0.7, "decompress_acc": 0.6,
         "hom_add": 1.0}
NAMES = {"compress_abs": "compress (ABS)", "compress_rel": "compress (REL, with range pass)",
         "range": "range pass alone", "decompress": "decompress",
         "decompress_acc": "decompress-accumulate", "hom_add": "hom add (per input byte)"}


def rng(d, fmt="{:.2f}"):
    return (fmt + " [" + fmt + "–" + fmt + "]").format(d["median"], d["min"], d["max"])


def case_tables(res, threads):
    out = []
    for c in res["cases"]:
        if c["threads"] != threads:
            continue
        load = f"load {c['loadavg_before'][0]}→{c['loadavg_after'][0]}"
        ident = "identical" if all(c["identical"].values()) else "DIFFERENT: " + str(c["identical"])
        out.append(f"\n**{c['file']}, REL {c['rel']:g}** (abs eb {c['abs_eb']:.4g}, ratio "
                   f"{c['ratio']:.2f}, {threads} thread{'s' * (threads > 1)}, {load}; streams {ident})\n")
        out.append("| operation | before GB/s | after GB/s | memcpy GB/s | before/memcpy | "
                   "after/memcpy | goal |")
        out.append("|---|---|---|---|---|---|---|")
        for r in c["rows"]:
            g = GOALS.get(r["op"])
            goal = "" if g is None or threads != 1 else (
                f"≥ {g} {'met' if r['after']['over_memcpy']['median'] >= g else 'MISSED'}")
            out.append(f"| {NAMES[r['op']]} | {rng(r['before']['gbps'])} | {rng(r['after']['gbps'])} "
                       f"| {rng(r['memcpy_gbps'])} | {rng(r['before']['over_memcpy'])} | "
                       f"{rng(r['after']['over_memcpy'])} | {goal} |")
    return "\n".join(out)


def summary(res):
    out = ["| operation | goal | before: worst / median case | after: worst / median case | "
           "after, worst case | met on |",
           "|---|---|---|---|---|---|"]
    ones = [c for c in res["cases"] if c["threads"] == 1]
    for op in NAMES:
        vals = {k: [] for k in ("before", "after")}
        where = []
        for c in ones:
            for r in c["rows"]:
                if r["op"] == op:
                    for k in vals:
                        vals[k].append(r[k]["over_memcpy"]["median"])
                    where.append(f"{c['file'].split('_')[1]} {c['rel']:g}")
        if not where:
            continue
        g = GOALS.get(op)

        def med(v):
            v = sorted(v)
            return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])

        worst = min(range(len(where)), key=lambda i: vals["after"][i])
        met = "" if g is None else f"{sum(v >= g for v in vals['after'])}/{len(where)}"
        out.append(f"| {NAMES[op]} | {'' if g is None else '≥ ' + str(g)} | "
                   f"{min(vals['before']):.2f} / {med(vals['before']):.2f} | "
                   f"{min(vals['after']):.2f} / {med(vals['after']):.2f} | {where[worst]} | {met} |")
    # 2-thread scaling
    by = {(c["file"], c["rel"], c["threads"]): c for c in res["cases"]}
    scal = ["", "| operation | before: 2 thr / 1 thr, min / median | after: 2 thr / 1 thr, "
            "min / median | cases ≥ 1.8 (after) |", "|---|---|---|---|"]
    for op in NAMES:
        sc = {"before": [], "after": []}
        for (f, rel, th), c in by.items():
            if th != 2 or (f, rel, 1) not in by:
                continue
            r2 = next((r for r in c["rows"] if r["op"] == op), None)
            r1 = next((r for r in by[(f, rel, 1)]["rows"] if r["op"] == op), None)
            if r1 is None or r2 is None:  # an op that measure.py --ops left out
                continue
            for k in sc:
                sc[k].append(r2[k]["gbps"]["median"] / r1[k]["gbps"]["median"])
        if sc["after"]:
            s = {k: sorted(v) for k, v in sc.items()}
            scal.append(f"| {NAMES[op]} | {s['before'][0]:.2f} / {s['before'][len(s['before']) // 2]:.2f} | "
                        f"{s['after'][0]:.2f} / {s['after'][len(s['after']) // 2]:.2f} | "
                        f"{sum(v >= 1.8 for v in s['after'])}/{len(s['after'])} |")
    return "\n".join(out + (scal if len(scal) > 3 else []))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--summary", action="store_true")
    a = ap.parse_args()
    res = rd.load_json(a.json)
    b = res["builds"]
    print(f"measure.py {res['date_utc']}: before {b['before']['commit']}"
          f"{' (dirty)' if b['before']['dirty'] else ''}, after {b['after']['commit']}"
          f"{' (dirty)' if b['after']['dirty'] else ''}; {res['settings']['repeat']} repeats; "
          f"load {res['machine']['loadavg_start']} → {res['machine']['loadavg_end']}; "
          f"{res['machine']['cpu']}, {res['machine']['cpus']} CPUs; "
          f"clock: {res['settings'].get('clock', 'wall')}")
    print(summary(res) if a.summary else case_tables(res, a.threads))


if __name__ == "__main__":
    main()
