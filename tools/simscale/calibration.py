"""calibration.py — merging rounds of zcoll-calibrate JSON (used by study.py and crossover.py)."""
import json


def best_of_rounds(runs):
    """The best throughput of each entry over several calibration rounds (parsed JSON):
    other work on the machine only ever slows a run down. `rounds` is set to len(runs)."""
    best = json.loads(json.dumps(runs[0]))
    for r in runs[1:]:
        for t, kinds in r["gbps"].items():
            for kind, curve in kinds.items():
                for k, g in curve.items():
                    best["gbps"][t][kind][k] = max(best["gbps"][t][kind][k], g)
    best["rounds"] = len(runs)
    return best
