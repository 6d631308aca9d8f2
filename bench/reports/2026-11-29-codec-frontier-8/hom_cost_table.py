#!/usr/bin/env python3
"""hom_cost_table.py RUNS.jsonl SHARES.txt — the dense codec's homomorphic-add question
as a table: per field and bound the medians [min, max] of the rounds (GB/s of one input),
doc_combine against the sum of its parts (two decodes and an encode, as time), and the
most an integer add could gain (the value conversions and the quantization it would
skip, from the instruction counts in SHARES.txt)."""
import json
import statistics as st
import sys


def med(v):
    return st.median(v)


rows = [json.loads(line) for line in open(sys.argv[1])]
conv, quant = [], []
base = {}
for line in open(sys.argv[2]):
    w = line.split()
    key = (w[0], w[1])
    if w[2] == "base":
        base[key] = (int(w[4]), int(w[6]), int(w[8]))
    else:
        c, q, d = base[key]
        conv.append((d - int(w[8])) / d)
        quant.append(q / c)
print("| file | REL | ratio | compress E | decompress D | doc_combine C | C / (2D+E), time | ")
print("|---|---|---:|---|---|---|---:|")
model = []
for r in rows:
    f = r["file"].split("/")[-1].split("_")[0] + "_" + r["file"].split("/")[-1].split("_")[1]
    e, d, c = med(r["compress"]), med(r["decompress"]), med(r["doc_combine"])
    parts = 2 / d + 1 / e  # seconds per GB of one input
    model.append((1 / c) / parts)

    def rng(k):
        return f"{med(r[k]):.2f} [{min(r[k]):.2f}, {max(r[k]):.2f}]"
    print(f"| {f} | {r['rel']:g} | {r['ratio']:.2f} | {rng('compress')} | {rng('decompress')} "
          f"| {rng('doc_combine')} | {(1 / c) / parts:.2f} |")
print()
print(f"doc_combine time / (2 decodes + 1 encode), median over {len(model)} rows: "
      f"{med(model):.3f} [{min(model):.3f}, {max(model):.3f}]")
print(f"value conversion / decompress instructions: {min(conv):.3f}-{max(conv):.3f} "
      f"(median {med(conv):.3f}, {len(conv)} cases)")
print(f"quantization / compress instructions: {min(quant):.3f}-{max(quant):.3f} "
      f"(median {med(quant):.3f}, {len(quant)} cases)")

# An integer add's time, from each row's medians and the median shares above (it
# skips the conversions and the quantization, nothing else), relative to:
c, q = med(conv), med(quant)
step_own, step_kept, stream = [], [], []
for r in rows:
    d, e, cc = 1 / med(r["decompress"]), 1 / med(r["compress"]), 1 / med(r["doc_combine"])
    step_own.append((2 * d * (1 - c) + e * (1 - q)) / (d + e))
    step_kept.append((d * (1 - c) + e * (1 - q)) / (d + e))
    stream.append((2 * d * (1 - c) + e * (1 - q)) / cc)
for name, v in (("zcoll_doc_combine (two streams in, one out)", stream),
                ("a collective's doc step (decode + encode), own stream decoded too", step_own),
                ("a collective's doc step, own codes kept in memory", step_kept)):
    print(f"integer add / {name}: {med(v):.3f} [{min(v):.3f}, {max(v):.3f}]")
