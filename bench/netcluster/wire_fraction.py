#!/usr/bin/env python3
"""wire_fraction.py SWEEP_DIR... — the fraction of the wire limit of every hom row of
sweep.py results, with the one definition of docs/performance.md:

    fraction = median over the repeats of (t_MPI / t_hom in the same repeat)
               / hom's compression ratio of what it sent

t is zcoll-bench's collective time of a repeat (per iteration the last rank to
finish, averaged over the iterations: time_coll_us), the speedups are its
speedup_repeats, the ratio its `ratio` (uncompressed bytes / bytes hom sent, over
all ranks). Also printed, for comparison only: the quotient with one input's
compression ratio (ratio_one_input: higher than what an Allreduce sends, whose
partial sums compress worse) and with the mean times over ranks and iterations
(time_us.avg: zcoll-bench's `speedup` column). Directories named <side>-<...> (as
wire_limit.sh writes them) are paired by the rest of their name."""
import glob
import json
import os
import statistics
import sys


def rows(d):
    for f in sorted(glob.glob(os.path.join(d, "runs", "*.json"))):
        j = json.load(open(f))
        m = {r["mode"]: r for r in j["rows"]}
        if "hom" in m and "mpi" in m:
            yield f, j, m["hom"], m["mpi"]


def main():
    print("| run | hosts, rate | collective | REL | speedup over MPI, median [min–max] | ratio sent | "
          "**fraction** median [min–max] | with one input's ratio | with mean times |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in sys.argv[1:]:
        for f, j, hom, mpi in rows(d):
            s = hom["speedup_repeats"]["values"]
            r, r1 = hom["ratio"], hom.get("ratio_one_input") or float("nan")
            fr = [x / r for x in s]
            avg = mpi["time_us"]["avg"] / hom["time_us"]["avg"]
            hosts, rate = os.path.basename(f).split("_")[:2]
            print(f"| {os.path.basename(os.path.normpath(d))} | {hosts[1:]}, {rate} | {j['collective']} | "
                  f"{j.get('error_bound', 0):g} | {statistics.median(s):.2f} [{min(s):.2f}–{max(s):.2f}] | "
                  f"{r:.2f} | **{statistics.median(fr):.2f}** [{min(fr):.2f}–{max(fr):.2f}] | "
                  f"{statistics.median(s) / r1:.2f} | {avg / r:.2f} |")


if __name__ == "__main__":
    main()
