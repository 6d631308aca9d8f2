"""ab_table.py OUT — ab.sh's lines as a table: per field and bound, each build's
compression and decompression speed over the first build's in the same
round, the median and range over the rounds; "RATIO!" where a build's
ratio differs from the first's (the streams must be the same size)."""
import collections
import statistics as st
import sys


def main(path):
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    builds = []
    for line in open(path):
        b, n, rel, r, ratio, c, d = line.split()
        if b not in builds:
            builds.append(b)
        rows[(n, rel)][b].append((int(r), float(c), float(d), float(ratio)))
    base = builds[0]
    print("| field | REL | " + " | ".join(f"{b}: compress, decompress" for b in builds[1:])
          + f" | {base}: compress, decompress GB/s |")
    print("|---|---|" + "---|" * len(builds))
    meds = {b: ([], []) for b in builds[1:]}
    for (n, rel), d in rows.items():
        bc = {r: c for r, c, _, _ in d[base]}
        bd = {r: x for r, _, x, _ in d[base]}
        cells = []
        for b in builds[1:]:
            rc = [c / bc[r] for r, c, _, _ in d[b]]
            rd = [x / bd[r] for r, _, x, _ in d[b]]
            same = all(a[3] == d[base][0][3] for a in d[b])
            meds[b][0].append(st.median(rc))
            meds[b][1].append(st.median(rd))
            cells.append(f"{st.median(rc):.3f} [{min(rc):.2f}, {max(rc):.2f}], "
                         f"{st.median(rd):.3f} [{min(rd):.2f}, {max(rd):.2f}]"
                         + ("" if same else " RATIO!"))
        print(f"| {n} | {rel} | " + " | ".join(cells)
              + f" | {st.median(bc.values()):.2f}, {st.median(bd.values()):.2f} |")
    for b in builds[1:]:
        print(f"\n{b}: median of the rows' medians: compress {st.median(meds[b][0]):.3f}, "
              f"decompress {st.median(meds[b][1]):.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
