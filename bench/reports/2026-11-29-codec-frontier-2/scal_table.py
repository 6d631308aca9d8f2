"""scal_table.py FILE... — from scal.sh output: per case and op, each build's best 1-thread
and 2-thread rate over the rounds (GB/s, wall-clock minimum of ITER calls) and 2 thr / 1 thr."""
import collections, sys
best = collections.defaultdict(float)
for path in sys.argv[1:]:
    for line in open(path):
        p = line.split()
        if line.startswith("#") or len(p) != 7:
            continue
        b, f, r, k, op, r1, r2 = p
        key = (f.split("_")[1], r, op, b)
        best[key + (1,)] = max(best[key + (1,)], float(r1))
        best[key + (2,)] = max(best[key + (2,)], float(r2))
ops = ["memcpy", "decompress", "decompress_acc", "hom_add"]
cases = sorted({(k[0], k[1]) for k in best}, key=lambda c: (c[0], -float(c[1])))
print("| field | REL | " + " | ".join(f"{o}: before 1t / 2t (2/1) | after 1t / 2t (2/1)" for o in ops) + " |")
print("|---|---|" + "---|---|" * len(ops))
sc = collections.defaultdict(list)
for f, r in cases:
    row = f"| {f} | {r} |"
    for o in ops:
        for b in ("build-base", "build"):
            a1, a2 = best[(f, r, o, b, 1)], best[(f, r, o, b, 2)]
            sc[(o, b)].append(a2 / a1)
            row += f" {a1:.2f} / {a2:.2f} ({a2 / a1:.2f}) |"
    print(row)
print()
for (o, b), v in sc.items():
    v = sorted(v)
    print(f"{o:15s} {b:10s} 2thr/1thr min {v[0]:.2f} median {v[len(v) // 2]:.2f} max {v[-1]:.2f}; cases >= 1.8: {sum(x >= 1.8 for x in v)}/{len(v)}")
