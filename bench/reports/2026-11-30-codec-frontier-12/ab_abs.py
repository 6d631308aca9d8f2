"""ab_abs.py OUT [BASE NEW] — an ab2.sh run (bench/reports/2026-11-29-codec-frontier-10)
as a markdown table: per field and bound, the new build's compression and decompression
GB/s (median [min, max] over the rounds), the base build's compression median, and new /
base in the same round (median [min, max]). BASE and NEW: the builds' names in OUT
(default zcoll-base, zcoll-new); "size differs" where the two streams' ratios differ."""
import collections
import statistics as st
import sys


def cell(v, fmt="{:.2f}"):
    return f"{fmt.format(st.median(v))} [{fmt.format(min(v))}, {fmt.format(max(v))}]"


def main(path, base="zcoll-base", new="zcoll-new"):
    runs = collections.defaultdict(dict)  # (field, rel) -> build -> round -> (c, d, ratio)
    for line in open(path):
        b, f, rel, r, ratio, c, d = line.split()
        runs[(f, rel)].setdefault(b, {})[int(r)] = (float(c), float(d), float(ratio))
    print("| field | REL | new compress | new decompress | base compress | compress new / base"
          " | decompress new / base |")
    print("|---|---|---|---|---|---|---|")
    for (f, rel), d in runs.items():
        rounds = sorted(set(d[new]) & set(d[base]))
        nc = [d[new][r][0] for r in rounds]
        nd = [d[new][r][1] for r in rounds]
        bc = [d[base][r][0] for r in rounds]
        rc = [d[new][r][0] / d[base][r][0] for r in rounds]
        rd = [d[new][r][1] / d[base][r][1] for r in rounds]
        size = "" if d[new][rounds[0]][2] == d[base][rounds[0]][2] else " (size differs)"
        print(f"| {f.split('_')[1]} | {rel} | {cell(nc)} | {cell(nd)} | {st.median(bc):.2f} | "
              f"{cell(rc, '{:.3f}')}{size} | {cell(rd, '{:.3f}')} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
