"""minab_table.py FILE... — from minab.sh output: per case and op, the best rate over the
rounds of each build (GB/s), the best memcpy of the same build's runs, after/before and
each build's best rate / best memcpy (memcpy's best over both builds' runs)."""
import collections, sys
best = collections.defaultdict(float)
for path in sys.argv[1:]:
    for line in open(path):
        if line.startswith("#"):
            continue
        if len(line.split()) != 6:
            continue
        b, f, r, k, op, v = line.split()
        key = (f.split("_")[1] if "_" in f else f, r, op, b)
        best[key] = max(best[key], float(v))
cases = sorted({(k[0], k[1]) for k in best}, key=lambda c: (c[0], -float(c[1])))
GOAL = {"decompress": 0.7, "decompress_accumulate": 0.6, "hom_add": 1.0}
print("| field | REL | op | before GB/s | after GB/s | after/before | memcpy GB/s | before/memcpy | after/memcpy | goal |")
print("|---|---|---|---|---|---|---|---|---|---|")
met = collections.Counter(); tot = collections.Counter(); sp = collections.defaultdict(list)
for f, r in cases:
    mc = max(best[(f, r, "memcpy", "build-base")], best[(f, r, "memcpy", "build")])
    for op in ("decompress", "decompress_accumulate", "hom_add"):
        b, a = best[(f, r, op, "build-base")], best[(f, r, op, "build")]
        # hom_add's rate is per byte of one input; memcpy in pd copies the whole field:
        # pd's hom inputs are almost the whole field (2-D) or half of it (3-D); the
        # ratio is taken against memcpy's rate, which does not depend much on size here
        g = GOAL[op]; ok = a / mc >= g
        met[op] += ok; tot[op] += 1; sp[op].append(a / b)
        print(f"| {f} | {r} | {op} | {b:.2f} | {a:.2f} | {a / b:.3f} | {mc:.2f} | {b / mc:.2f} | {a / mc:.2f} | ≥ {g} {'met' if ok else 'MISSED'} |")
print()
for op in tot:
    s = sorted(sp[op])
    print(f"{op}: goal met in {met[op]}/{tot[op]}; after/before min {s[0]:.3f} median {s[len(s) // 2]:.3f} max {s[-1]:.3f}")
