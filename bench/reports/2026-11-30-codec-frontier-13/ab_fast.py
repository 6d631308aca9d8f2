#!/usr/bin/env python3
"""ab_fast.py DIR [--json OUT] — new / base of an ab_fast.sh run (DIR/{base,new}).

Per row (field, REL) at 1 and 2 threads, cold: the ratio new / base of the decompression
and the hom add GB/s in each round (both builds ran in the same round, one after the other),
as median [min, max] over the rounds, and the rows where new is faster in every round. The
goals' table of each build is `bench/fast_goals.py table DIR/BUILD`."""
import argparse
import glob
import json
import os
import statistics

KEYS = {"codec": ("decompress", "compress_abs"), "hom": ("hom",)}


def rounds(d, build, mode):
    """[{(dataset, rel, threads): {key: median seconds}} per round], by round number."""
    out = []
    paths = glob.glob(os.path.join(d, build, f"{mode}-cold-*.json"))
    for p in sorted(paths, key=lambda p: int(p.rsplit("-", 1)[1][:-5])):
        rows = json.load(open(p))["rows"]
        bad = [x["dataset"] for x in rows if not x.get("ok", True)]
        if bad:
            raise SystemExit(f"{p}: rows not ok: {bad}")
        out.append({(x["dataset"], x["rel"], x["threads"]): {k: x[k]["median_s"] for k in KEYS[mode]}
                    for x in rows})
    return out


def fmt(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--json")
    a = ap.parse_args()
    result = {"rows": [], "summary": {}}
    lines = []
    for mode, key in (("codec", "decompress"), ("codec", "compress_abs"), ("hom", "hom")):
        base, new = rounds(a.dir, "base", mode), rounds(a.dir, "new", mode)
        n = min(len(base), len(new))
        for threads in (1, 2):
            ratios = {}
            for r in range(n):
                for k, v in new[r].items():
                    if k[2] == threads and k in base[r]:
                        ratios.setdefault(k[:2], []).append(base[r][k][key] / v[key])
            meds = [statistics.median(v) for v in ratios.values()]
            faster = sum(min(v) > 1 for v in ratios.values())
            result["summary"][f"{key}-{threads}t"] = {
                "median": statistics.median(meds), "min": min(meds), "max": max(meds),
                "faster_every_round": faster, "rows": len(ratios), "rounds": n}
            lines.append(f"| {key} | {threads} | {n} | {fmt(meds)} | {faster}/{len(ratios)} |")
            for (name, rel), v in sorted(ratios.items()):
                result["rows"].append({"op": key, "threads": threads, "dataset": name, "rel": rel,
                                       "new_over_base": v})
    print("| operation | threads | rounds | new / base GB/s: median of the rows' medians "
          "[min, max] | rows faster in every round |")
    print("|---|---|---|---|---|")
    print("\n".join(lines))
    print()
    print("Per row, 1 thread: new / base, median [min, max] over the rounds")
    print()
    print("| field | REL | decompress | hom add |")
    print("|---|---|---|---|")
    per = {}
    for x in result["rows"]:
        if x["threads"] == 1 and x["op"] in ("decompress", "hom"):
            per.setdefault((x["dataset"], x["rel"]), {})[x["op"]] = x["new_over_base"]
    for (name, rel), v in sorted(per.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        print(f"| {name} | {rel:g} | {fmt(v['decompress'])} | {fmt(v['hom'])} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
