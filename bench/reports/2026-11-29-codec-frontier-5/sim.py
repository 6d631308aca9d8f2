"""sim.py LOG... — predictor 5's trial thresholds, simulated on logs of the encoder's
estimates (lines "FILE TRIAL NDIM LEN TRIAL_RATIO INTERP_BYTES CODE_BYTES": the trial's
interpolation bits over its code-domain bits, then both estimated on the whole chunk, in
bytes). A rule [lo, hi): interpolation where the trial's ratio < lo, the code domain where
>= hi, the better whole-chunk estimate in between. Prints, per rule, how many chunks need
the whole-chunk estimates (in all and per field) and each field's estimated bytes over the
best choice's."""
import collections
import sys

RULES = ((1.0, 1.0), (1.0, 1.25), (0.6, 1.25), (0.9, 1.1), (0.95, 1.05), (1.0, 1.1), (0.95, 1.15),
         (0.9, 1.25), (0.8, 1.25))


def sim(rows, lo, hi):
    chosen, best, whole = collections.Counter(), collections.Counter(), collections.Counter()
    for r in rows:
        field, ratio, interp, code = r[0], float(r[4]), float(r[5]), float(r[6])
        if ratio < lo:
            pick = interp
        elif ratio >= hi:
            pick = code
        else:
            pick = min(interp, code)
            whole[field] += 1
        chosen[field] += pick
        best[field] += min(interp, code)
    return whole, {f: chosen[f] / best[f] for f in best}


for path in sys.argv[1:]:
    rows = [line.split() for line in open(path) if " TRIAL " in line]
    n = collections.Counter(r[0] for r in rows)
    print(path, len(rows), "chunks")
    for lo, hi in RULES:
        whole, over = sim(rows, lo, hi)
        worst = max(over.values())
        fields = " ".join(f"{f}:{whole[f]}/{n[f]}:{v:.4f}" for f, v in over.items())
        print(f"  [{lo}, {hi}): whole-chunk {sum(whole.values())}, worst {worst:.4f}  {fields}")
