#!/usr/bin/env python3
"""fast_goals.py — the fast codec's goals (issue 34, item 2) from zcoll-codec-bench.

The goals (FAST_GOALS of codec_frontier.py): decompress >= 0.7x memcpy, hom add
>= 1.0x memcpy (per byte of one input), 2 threads >= 1.8x one thread
(compress, decompress, hom add), "at the memory limit of a core".

  fast_goals.py run DIR [--rounds 5] [--repeat 7] [--bench PATH] [--data DIR]
                       [--caches cold|warm|both] [--first-round N]
      Per round, in an order rotated per round, four runs of zcoll-codec-bench on
      every file of the data directory (shared/data), REL 1e-2, 1e-3, 1e-4, 1 and
      2 threads: the codec mode and the --hom mode, each with --cold (the caches
      emptied before every timed call, memcpy's too: inputs and outputs in memory,
      as a large collective's are; the goals' measurement) and without (warm: a
      field smaller than the caches stays in them from call to call). JSON files
      DIR/{codec,hom}-{cold,warm}-ROUND.json. --caches cold: the goals' runs only;
      --first-round N numbers the rounds from N (a caller that adds one round at a
      time: scripts/cpu_scale_check.sh). Every round also runs the --ceiling mode
      (DIR/ceiling-ROUND.json): the same 2-thread ratios with memory out of the
      way (each thread on an L2-resident slice) and of an integer loop, the share
      of a 2-thread goal that the machine's cores, not its memory, allow.
  fast_goals.py table DIR [--json OUT]
      Per field, bound and caches: each goal's ratio per round (of the round's
      medians: the calls of a row are interleaved, the 1- and 2-thread rows of a
      round follow each other), its median [min, max] over the rounds, ✗ where
      the median misses the goal; a count of the rows that meet each goal; then
      the ceiling runs' ratios per field and bound in the same form.

In the hom mode a 3-D field's inputs are its two halves along the slowest axis
(zcoll-codec-bench's comment), so its rows have half the values of the codec
mode's. Every timing is wall clock on the machine it ran on: compare rounds of
one machine only.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

from codec_frontier import FAST_GOALS

HERE = os.path.dirname(os.path.abspath(__file__))
RELS = ["1e-2", "1e-3", "1e-4"]
RUNS = [("codec", "cold"), ("hom", "cold"), ("codec", "warm"), ("hom", "warm"), ("ceiling", "")]
CEILING_KERNELS = ["compress", "decompress", "hom", "alu"]


def run(args):
    os.makedirs(args.dir, exist_ok=True)
    files = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.data, "*.f32")))
    if not files:
        sys.exit(f"no *.f32 file in {args.data}")
    runs = [x for x in RUNS if args.caches in ("both", x[1]) or x[0] == "ceiling"]
    for r in range(args.first_round, args.first_round + args.rounds):
        for mode, caches in runs[r % len(runs):] + runs[:r % len(runs)]:
            out = os.path.join(args.dir, f"{mode}-{caches}-{r}.json" if caches
                               else f"{mode}-{r}.json")
            cmd = [args.bench, "--data-dir", args.data, "--files", *files, "--threads", "1", "2",
                   "--rel", *RELS, "--repeat", str(args.repeat), "--stat", "median",
                   "--json", out, "--label", f"fast_goals round {r}"]
            cmd += [f"--{mode}"] if mode != "codec" else []
            cmd += ["--cold"] if caches == "cold" else []
            print(" ".join(cmd), file=sys.stderr, flush=True)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def medians(path, keys):
    """{(dataset, rel, threads): {key: median seconds}} of one run's JSON."""
    rows = json.load(open(path))["rows"]
    return {(x["dataset"], x["rel"], x["threads"]): {k: x[k]["median_s"] for k in keys}
            for x in rows}


def goal_ratios(codec, hom):
    """Per (dataset, rel): each goal's ratio in one round (rates: inverse times)."""
    out = {}
    for (name, rel, threads), c in codec.items():
        if threads != 1 or (name, rel, 2) not in codec:
            continue
        c2, h1, h2 = codec[(name, rel, 2)], hom.get((name, rel, 1)), hom.get((name, rel, 2))
        g = {"memcpy_2t_over_1t": c["memcpy"] / c2["memcpy"],
             "decompress_over_memcpy": c["memcpy"] / c["decompress"],
             "compress_2t_over_1t": c["compress_abs"] / c2["compress_abs"],
             "decompress_2t_over_1t": c["decompress"] / c2["decompress"]}
        if h1 and h2:
            g["hom_add_over_memcpy"] = h1["memcpy"] / h1["hom"]
            g["hom_add_2t_over_1t"] = h1["hom"] / h2["hom"]
        out[(name, rel)] = g
    return out


def table(args):
    result = {"goals": FAST_GOALS, "rows": [], "summary": {}}
    lines = []
    for caches in ("cold", "warm"):
        rounds = sorted(glob.glob(os.path.join(args.dir, f"codec-{caches}-*.json")))
        per = {}  # (name, rel) -> goal -> [ratio per round]
        memcpy = {}
        for cpath in rounds:
            # (the file name only: the directory may hold "codec-" too)
            hpath = os.path.join(os.path.dirname(cpath),
                                 os.path.basename(cpath).replace("codec-", "hom-", 1))
            codec = medians(cpath, ["compress_abs", "decompress", "memcpy"])
            hom = medians(hpath, ["hom", "memcpy"]) if os.path.exists(hpath) else {}
            for key, g in goal_ratios(codec, hom).items():
                for k, v in g.items():
                    per.setdefault(key, {}).setdefault(k, []).append(v)
            for x in json.load(open(cpath))["rows"]:
                if x["threads"] == 1:
                    memcpy.setdefault((x["dataset"], x["rel"]), []).append(x["memcpy_gbps"])
        if not per:
            continue
        title = ("Cold: the caches emptied before every call (the goals' measurement)"
                 if caches == "cold" else "Warm: the data in the caches as far as they fit")
        lines += [f"{title}; {len(rounds)} rounds, median [min, max] of the rounds' ratios:",
                  "",
                  "| field | REL | memcpy GB/s | memcpy 2t / 1t | " + " | ".join(
                      f"{k.replace('_over_', ' / ').replace('_', ' ')} (>= {v})"
                      for k, v in FAST_GOALS.items()) + " |",
                  "|---|---|---|---|" + "---|" * len(FAST_GOALS)]
        met = {k: 0 for k in FAST_GOALS}
        scaling = []  # memcpy 2t / 1t, every row and round: the memory's own scaling
        for (name, rel), g in sorted(per.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
            m = memcpy[(name, rel)]
            s2 = g["memcpy_2t_over_1t"]
            cells = [f"{statistics.median(m):.2f} [{min(m):.2f}, {max(m):.2f}]",
                     f"{statistics.median(s2):.2f} [{min(s2):.2f}, {max(s2):.2f}]"]
            row = {"dataset": name, "rel": rel, "caches": caches, "memcpy_gbps": m,
                   "memcpy_2t_over_1t": s2, "goals": {}}
            scaling += s2
            for k, v in FAST_GOALS.items():
                s = g.get(k)
                if not s:
                    cells.append("")
                    continue
                med = statistics.median(s)
                met[k] += med >= v
                row["goals"][k] = {"median": med, "min": min(s), "max": max(s), "rounds": s}
                cells.append(f"{med:.2f} [{min(s):.2f}, {max(s):.2f}]" + ("" if med >= v else " ✗"))
            result["rows"].append(row)
            lines.append(f"| {name} | {rel:g} | " + " | ".join(cells) + " |")
        result["summary"][caches] = {k: {"met": met[k], "rows": len(per)} for k in FAST_GOALS}
        result["summary"][caches]["memcpy_2t_over_1t"] = {
            "median": statistics.median(scaling), "min": min(scaling), "max": max(scaling)}
        lines += ["", "Rows meeting each goal: " + ", ".join(
            f"{k} {met[k]}/{len(per)}" for k in FAST_GOALS) + "; memcpy 2t / 1t over every "
            f"row and round: {statistics.median(scaling):.2f} [{min(scaling):.2f}, "
            f"{max(scaling):.2f}]", ""]
    lines += ceiling_table(args.dir, result)
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


def ceiling_table(d, result):
    """The --ceiling runs: each kernel's in-cache 2t / 1t per field and bound."""
    per = {}  # (name, rel) -> kernel -> [ratio per round]
    paths = sorted(glob.glob(os.path.join(d, "ceiling-*.json")))
    for path in paths:
        rows = {(x["dataset"], x["rel"], x["threads"]): x
                for x in json.load(open(path))["rows"] if x.get("ok")}
        for (name, rel, threads), x in rows.items():
            y = rows.get((name, rel, 2))
            if threads != 1 or not y:
                continue
            for k in CEILING_KERNELS:
                per.setdefault((name, rel), {}).setdefault(k, []).append(
                    y[k]["median_gbps"] / x[k]["median_gbps"])
    if not per:
        return []
    lines = [f"Ceiling: 2t / 1t with memory out of the way (each thread on its own "
             f"L2-resident slice; alu: an integer loop); {len(paths)} rounds, median "
             "[min, max] of the rounds' ratios:", "",
             "| field | REL | " + " | ".join(f"{k} 2t / 1t" for k in CEILING_KERNELS) + " |",
             "|---|---|" + "---|" * len(CEILING_KERNELS)]
    met = {k: 0 for k in CEILING_KERNELS}
    every = {k: [] for k in CEILING_KERNELS}
    for (name, rel), g in sorted(per.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        cells = []
        for k in CEILING_KERNELS:
            s = g[k]
            med = statistics.median(s)
            met[k] += med >= 1.8
            every[k] += s
            cells.append(f"{med:.2f} [{min(s):.2f}, {max(s):.2f}]")
        result["rows"].append({"dataset": name, "rel": rel, "caches": "ceiling",
                               "ratios_2t_over_1t": g})
        lines.append(f"| {name} | {rel:g} | " + " | ".join(cells) + " |")
    result["summary"]["ceiling"] = {
        k: {"rows_at_1.8": met[k], "rows": len(per), "median": statistics.median(every[k]),
            "min": min(every[k]), "max": max(every[k])} for k in CEILING_KERNELS}
    lines += ["", "Rows at >= 1.8: " + ", ".join(f"{k} {met[k]}/{len(per)}"
                                                 for k in CEILING_KERNELS) +
              "; over every row and round: " + ", ".join(
                  f"{k} {statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]"
                  for k, v in every.items()), ""]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--rounds", type=int, default=5)
    r.add_argument("--first-round", type=int, default=0,
                   help="the number of the first round (to add rounds to a directory)")
    r.add_argument("--caches", choices=["cold", "warm", "both"], default="both")
    r.add_argument("--repeat", type=int, default=7)
    r.add_argument("--bench", default=os.path.join(HERE, "..", "build", "bench",
                                                   "zcoll-codec-bench"))
    r.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data"))
    t = sub.add_parser("table")
    t.add_argument("dir")
    t.add_argument("--json")
    args = ap.parse_args()
    run(args) if args.cmd == "run" else table(args)


if __name__ == "__main__":
    main()
