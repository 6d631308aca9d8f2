"""nd_rows.py BASE.json... -- NEW.json... — the zcoll-dense-nd rows of
frontier runs of two builds on the same machine: per row (file, REL) the
compression and decompression speed (median of a run's repeats, CPU time),
the median over each build's runs, and new / base; then the rows meeting
the goals (compress >= 1.0, decompress >= 1.5 GB/s) per run."""
import json
import statistics as st
import sys


def rows(path):
    d = json.load(open(path))
    return {(r["file"], r["rel"]): (r["compress_gbps_cpu"]["median"],
                                    r["decompress_gbps_cpu"]["median"])
            for r in d["rows"] if r["method"] == "zcoll-dense-nd"}


def main(argv):
    cut = argv.index("--")
    base = [rows(p) for p in argv[:cut]]
    new = [rows(p) for p in argv[cut + 1:]]
    print("| file | REL | base compress | new compress | new / base | base decompress | "
          "new decompress | new / base |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    rc, rd = [], []
    for key in sorted(base[0], key=lambda k: (k[1], k[0]), reverse=False):
        bc = st.median(r[key][0] for r in base)
        nc = st.median(r[key][0] for r in new)
        bd = st.median(r[key][1] for r in base)
        nd = st.median(r[key][1] for r in new)
        rc.append(nc / bc)
        rd.append(nd / bd)
        print(f"| {key[0]} | {key[1]} | {bc:.2f} | {nc:.2f} | {nc / bc:.3f} | {bd:.2f} | "
              f"{nd:.2f} | {nd / bd:.3f} |")
    print(f"\nnew / base over the {len(rc)} rows: compress median {st.median(rc):.3f} "
          f"[{min(rc):.3f}, {max(rc):.3f}], decompress median {st.median(rd):.3f} "
          f"[{min(rd):.3f}, {max(rd):.3f}]")
    for name, runs in (("base", base), ("new", new)):
        for i, r in enumerate(runs):
            met = []
            for rel in (0.01, 0.001, 0.0001):
                ks = [k for k in r if k[1] == rel]
                met.append(f"REL {rel}: compress {sum(r[k][0] >= 1.0 for k in ks)}/{len(ks)}, "
                           f"decompress {sum(r[k][1] >= 1.5 for k in ks)}/{len(ks)}")
            print(f"{name} run {i + 1}: " + "; ".join(met))


if __name__ == "__main__":
    main(sys.argv[1:])
