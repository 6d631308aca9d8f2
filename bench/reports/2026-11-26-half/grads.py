"""grads.py OUT_DIR CLI — the codec on real bfloat16 data: ResNet-18's gradient and
weights after 10 SGD steps (bench/ddp/ddp_overlap.py's model and generated data, batch
32, one process), each written as float32 and as bfloat16 (round to nearest even),
then `zcoll eval --json --repeat 5` (1 thread, best of 5) of every file at the bounds
below, each followed by a memcpy of the same file (numpy, best of 5) as the reference.
Writes OUT_DIR/grads.json (every eval) and prints the table: ratio against the raw
bytes of the same type, ratio against raw bfloat16, compress and decompress GB/s and
their ratio to the memcpy.

  python bench/reports/2026-11-26-half/grads.py bench/results/2026-11-26-half build/tools/cli/zcoll
  python bench/reports/2026-11-26-half/grads.py --table bench/results/2026-11-26-half/grads.json
(--table reads a JSON under bench/results/ from its archive unless unpacked)
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "ddp"))
import ddp_overlap as d  # noqa: E402  (the model and the data of the DDP measurement)

def memcpy_gbps(path, repeat=5):
    """The same file's bytes copied in memory (numpy), best of `repeat`: the reference."""
    a = np.fromfile(path, dtype=np.uint8)
    b = np.empty_like(a)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - t0)
    return a.size / best / 1e9


BOUNDS = {"gradient": [1e-5, 1e-4], "weights": [1e-4, 1e-3]}  # ABS


def vectors():
    torch.set_num_threads(1)
    model = d.make_model("resnet18")
    data = d.Data("resnet18", 32)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for s in range(10):
        x, y = data.step(0, s)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        if s < 9:
            opt.step()
    grad = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
    weights = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    return {"gradient": grad, "weights": weights}


def table(rows):
    print("| vector | values | ABS | type | ratio vs its raw bytes | ratio vs raw bfloat16 | "
          "compress GB/s (/ memcpy) | decompress GB/s (/ memcpy) | max error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        e = r["eval"]
        raw_bf16 = 2 * r["values"]
        print(f"| {r['vector']} | {r['values']} | {r['abs']:g} | {r['type']} | {e['ratio']:.2f} | "
              f"{raw_bf16 / e['compressed_bytes']:.2f} | {e['compress_gbps']:.2f} "
              f"({e['compress_gbps'] / r['memcpy_gbps']:.2f}) | {e['decompress_gbps']:.2f} "
              f"({e['decompress_gbps'] / r['memcpy_gbps']:.2f}) | {e['max_abs_error']:.3g} |")



def main():
    if sys.argv[1] == "--table":  # grads.py --table grads.json: the table of a stored run
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        import results_data as rd  # bench/results_data.py: the packed raw results
        table(rd.load_json(sys.argv[2])["rows"])
        return
    out, cli = sys.argv[1], sys.argv[2]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, v in vectors().items():
            files = {"f32": os.path.join(tmp, name + ".f32"), "bf16": os.path.join(tmp, name + ".bf16")}
            v.numpy().astype("<f4").tofile(files["f32"])
            v.to(torch.bfloat16).view(torch.int16).numpy().astype("<i2").tofile(files["bf16"])
            for eb in BOUNDS[name]:
                for t, f in files.items():
                    r = subprocess.run([cli, "eval", "-i", f, "--type", t, "--abs", str(eb),
                                        "--threads", "1", "--repeat", "5", "--json"],
                                       check=True, capture_output=True, text=True)
                    j = json.loads(r.stdout)
                    rows.append({"vector": name, "values": v.numel(), "type": t, "abs": eb,
                                 "absmax": float(v.abs().max()), "memcpy_gbps": memcpy_gbps(f),
                                 "eval": j})
    with open(os.path.join(out, "grads.json"), "w") as fh:
        json.dump({"tool": "grads.py", "torch": torch.__version__, "rows": rows}, fh, indent=1)
    table(rows)

if __name__ == "__main__":
    main()
