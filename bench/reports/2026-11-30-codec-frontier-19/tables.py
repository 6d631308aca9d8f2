#!/usr/bin/env python3
"""tables.py — part 19's tables.

  tables.py ab ROWS.jsonl...          ab_cold's rows: per field and bound, B / A for the
                                      cold 1-thread hom add and decompression (median of
                                      the rounds' ratios [p10, p90]); then over the rows
  tables.py strict GOALS_DIR          fast_goals.py's hom-mode runs: the 1-thread hom add
                                      against the fastest round's memcpy (memcpy has two
                                      modes from round to round on this VM)
  tables.py cut GOALS_DIR OUT_DIR     fast_goals.py's JSON files cut to what its table and
                                      `strict` read, times and rates to 6 significant
                                      digits (the archived form)
"""
import glob
import json
import os
import statistics as st
import sys


def short(path):
    return os.path.basename(path)[:-4].split("_")[1]


def ab(paths):
    for path in paths:
        rows = [json.loads(line) for line in open(path)]
        print(f"\n{os.path.basename(path)}\n")
        print("| field | REL | memcpy µs | hom add A µs | B µs | B / A [p10, p90] | "
              "decompress A µs | B µs | B / A [p10, p90] |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            h, d = r["hom_1t_cold"], r["dec_1t_cold"]
            print(f"| {short(r['file'])} | {r['rel']:g} | {r['memcpy_us']:.1f} | {h['a_us']:.1f} | "
                  f"{h['b_us']:.1f} | {h['b_over_a']:.3f} [{h['p10']:.3f}, {h['p90']:.3f}] | "
                  f"{d['a_us']:.1f} | {d['b_us']:.1f} | "
                  f"{d['b_over_a']:.3f} [{d['p10']:.3f}, {d['p90']:.3f}] |")
        for case in ("hom_1t_cold", "dec_1t_cold"):
            m = [r[case]["b_over_a"] for r in rows]
            below = sum(r[case]["p90"] < 1 for r in rows)
            above = sum(r[case]["p10"] > 1 for r in rows)
            print(f"\n{case}: median of the rows' B / A {st.median(m):.3f}, range "
                  f"{min(m):.3f}-{max(m):.3f}; p90 < 1 on {below}/{len(rows)} rows, "
                  f"p10 > 1 on {above}/{len(rows)}")


def strict(d):
    rows = {}
    for path in sorted(glob.glob(os.path.join(d, "hom-cold-*.json"))):
        for x in json.load(open(path))["rows"]:
            if x["threads"] == 1:
                rows.setdefault((x["dataset"], x["rel"]), []).append(
                    (x["hom"]["median_s"], x["memcpy"]["median_s"]))
    print("| field | REL | hom add µs median [min, max] | memcpy µs [min, max] | "
          "hom add / memcpy, fastest round |")
    print("|---|---|---|---|---|")
    below = 0
    for (name, rel), v in sorted(rows.items()):
        hom, mc = [a * 1e6 for a, _ in v], [b * 1e6 for _, b in v]
        ratio = min(mc) / st.median(hom)  # rates: time of memcpy over time of the hom add
        below += ratio < 1
        print(f"| {name.split('_')[1]} | {rel:g} | {st.median(hom):.1f} [{min(hom):.1f}, "
              f"{max(hom):.1f}] | [{min(mc):.1f}, {max(mc):.1f}] | {ratio:.2f}"
              f"{' ✗' if ratio < 1 else ''} |")
    print(f"\nRows below 1.0 against memcpy's fastest round: {below}/{len(rows)}")


TIMINGS = ["compress_abs", "decompress", "memcpy", "hom", "compress", "alu"]


def cut(d, out):
    os.makedirs(out, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        j = json.load(open(path))
        if "rows" not in j:
            continue
        rows = [{**{k: x[k] for k in ("dataset", "rel", "threads", "ok", "memcpy_gbps") if k in x},
                 **{k: {m: float(f"{x[k][m]:.6g}") for m in ("median_s", "median_gbps")}
                    for k in TIMINGS if isinstance(x.get(k), dict)}} for x in j["rows"]]
        keep = {k: j[k] for k in ("tool", "mode", "label", "build", "settings") if k in j}
        with open(os.path.join(out, os.path.basename(path)), "w") as f:
            json.dump({**keep, "rows": rows}, f, separators=(",", ":"))


if __name__ == "__main__":
    {"ab": lambda: ab(sys.argv[2:]), "strict": lambda: strict(sys.argv[2]),
     "cut": lambda: cut(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
