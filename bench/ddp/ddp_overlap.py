"""DDP training with three gradient allreduces, timed per step, with the loss curve:

  default        DDP's own allreduce over its process group (gloo)
  zcoll_blocking zcoll.torch.allreduce_hook: the whole compressed Allreduce inside
                 the hook (a completed future: no overlap with the backward pass)
  zcoll_overlap  zcoll.torch.nonblocking_allreduce_hook: the bucket's nonblocking
                 Allreduce, a future completed when it has run (overlap)

on a model built in code (no download): a CIFAR-style ResNet-18 (11.2 M
parameters, 45 MB of float32 gradients) or a small transformer encoder (4
layers, d=512: 13.1 M parameters), on generated data that a model can learn
(class templates plus noise; token sequences whose class is a function of their
tokens). Every rank draws its own batches from fixed seeds, so that every run of
a variant sees the same data and starts from the same parameters.

For each repeat the variants run in a rotated order; per run: the slowest
rank's time of every step (measured with a clock on each rank, gathered at the
end: no extra communication inside the loop), the mean loss over ranks per
step, the held-out loss and accuracy at the end, and (zcoll) each bucket's
report: values, bytes sent / uncompressed, the error bound of its result.
The summary per variant: the median step time (steps after --warmup) of each
run, the median over the runs with the range of the runs' medians and of all
their steps; the final loss and held-out accuracy and their gap to the
default's; the largest bound per bucket. --json FILE writes everything.

    mpiexec -n 2 python bench/ddp/ddp_overlap.py --model resnet18 --steps 8 \\
        --repeats 1 --json out.json          # a smoke run (bench/ddp/run.sh smoke)
    bash bench/ddp/run.sh cluster OUT        # 4 emulated hosts at 1 Gbit/s

The last line is "# OK: ..." (or "# FAILED: ..." when a run's loss did not fall
or a hom bucket reports a bound above N x eb), which tools/netcluster's
watchdog looks for. The bound itself is checked against the exact allreduce by
python/tests/test_torch_ddp.py, not here.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from mpi4py import MPI

import zcoll
import zcoll.torch as zt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_rendezvous import init_gloo  # noqa: E402  (bench/torch_rendezvous.py)

W = MPI.COMM_WORLD

# ---- models ------------------------------------------------------------------------------


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                       nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + self.short(x))


class ResNet18(nn.Module):
    """ResNet-18 for 32x32 inputs (3x3 stem, no max-pool), as for CIFAR-10."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU())
        layers, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.head = nn.Linear(512, classes)

    def forward(self, x):
        y = self.layers(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(y, 1).flatten(1))


class SmallTransformer(nn.Module):
    """A 4-layer encoder (d=512, 8 heads, ff 2048) classifying token sequences."""

    def __init__(self, vocab=1000, classes=10, d=512, layers=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(64, d))
        layer = nn.TransformerEncoderLayer(d, 8, 4 * d, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        y = self.enc(self.emb(x) + self.pos[: x.shape[1]])
        return self.head(y.mean(dim=1))


# ---- data ----------------------------------------------------------------------------------


class Data:
    """Generated, learnable: images = the class's smooth template + noise; token
    sequences whose class is their first token mod 10."""

    def __init__(self, model, batch, seq=64, vocab=1000):
        self.model, self.batch, self.seq, self.vocab = model, batch, seq, vocab
        g = torch.Generator().manual_seed(12345)
        t = torch.randn(10, 3, 8, 8, generator=g)
        self.templates = F.interpolate(t, size=(32, 32), mode="bilinear", align_corners=False)

    def draw(self, g):
        y = torch.randint(0, 10, (self.batch,), generator=g)
        if self.model == "resnet18":
            x = self.templates[y] + 1.0 * torch.randn(self.batch, 3, 32, 32, generator=g)
            return x, y
        x = torch.randint(0, self.vocab, (self.batch, self.seq), generator=g)
        y = x[:, 0] % 10
        return x, y

    def step(self, rank, step):  # the same on every run of every variant
        return self.draw(torch.Generator().manual_seed(1000003 * (rank + 1) + step))

    def held_out(self, rank, k=4):
        return [self.draw(torch.Generator().manual_seed(7919 * (rank + 1) + 10 ** 6 + i))
                for i in range(k)]


def make_model(name):
    torch.manual_seed(0)  # the same initial parameters on every rank and every run
    return ResNet18() if name == "resnet18" else SmallTransformer()


# ---- one training run ------------------------------------------------------------------------


def train(a, variant, data):
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = make_model(a.model)
    ddp = DDP(model, bucket_cap_mb=a.bucket_mb)
    state = None
    if variant != "default":
        state = zt.AllreduceState(W, mode=a.mode, eb_mode="abs", error_bound=a.eb,
                                  threads=a.zcoll_threads, record=True)
        hook = zt.allreduce_hook if variant == "zcoll_blocking" else zt.nonblocking_allreduce_hook
        ddp.register_comm_hook(state, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=0.9)
    times, losses = [], []
    dist.barrier()
    for s in range(a.steps):
        x, y = data.step(W.rank, s)
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(ddp(x), y)
        loss.backward()  # DDP waits for every bucket's future before it returns
        opt.step()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    # held-out loss and accuracy (no gradients, no communication)
    ddp.eval()
    with torch.no_grad():
        n = correct = 0
        hl = 0.0
        for x, y in data.held_out(W.rank):
            out = ddp.module(x)
            hl += F.cross_entropy(out, y, reduction="sum").item()
            correct += int((out.argmax(1) == y).sum())
            n += y.numel()
    step_max = np.max(np.array(W.allgather(times)), axis=0)  # the slowest rank per step
    loss_mean = np.mean(np.array(W.allgather(losses)), axis=0)
    tot = np.array(W.allreduce(np.array([hl, correct, n], dtype=np.float64)))
    run = {"variant": variant, "step_seconds": [float(t) for t in step_max],
           "loss": [float(v) for v in loss_mean],
           "held_out_loss": float(tot[0] / tot[2]), "held_out_accuracy": float(tot[1] / tot[2])}
    if state is not None:
        reps = state.reports
        run["buckets_per_step"] = len(reps) / a.steps
        run["bucket_reports"] = [{k: r[k] for k in ("count", "mode", "algorithm", "bytes_sent",
                                                     "bytes_uncompressed", "error_bound",
                                                     "time_total")} for r in reps]
        run["progress_thread"] = bool(state.comm.progress_thread)
        state.free()
    del ddp, model, opt
    return run


def median_range(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def summarize(a, runs):
    out = {}
    default_final = None
    for v in a.variants:
        rs = [r for r in runs if r["variant"] == v]
        if not rs:
            continue
        per_run = [statistics.median(r["step_seconds"][a.warmup:]) for r in rs]
        steps = [t for r in rs for t in r["step_seconds"][a.warmup:]]
        s = {"step_seconds_median_of_runs": median_range(per_run),
             "step_seconds_all_steps": median_range(steps),
             "final_loss": statistics.median(r["loss"][-1] for r in rs),
             "held_out_loss": statistics.median(r["held_out_loss"] for r in rs),
             "held_out_accuracy": statistics.median(r["held_out_accuracy"] for r in rs),
             "loss_curve": rs[0]["loss"]}
        if "bucket_reports" in rs[0]:
            buckets = {}
            for r in rs:
                for b in r["bucket_reports"]:
                    key = b["count"]
                    cur = buckets.setdefault(key, {"values": key, "max_error_bound": 0.0,
                                                   "bytes_sent": 0, "bytes_uncompressed": 0,
                                                   "calls": 0, "modes": set()})
                    cur["max_error_bound"] = max(cur["max_error_bound"], b["error_bound"])
                    cur["bytes_sent"] += b["bytes_sent"]
                    cur["bytes_uncompressed"] += b["bytes_uncompressed"]
                    cur["calls"] += 1
                    cur["modes"].add(b["mode"])
            for b in buckets.values():
                b["ratio"] = b["bytes_uncompressed"] / b["bytes_sent"] if b["bytes_sent"] else None
                b["modes"] = sorted(b["modes"])
            s["buckets"] = sorted(buckets.values(), key=lambda b: -b["values"])
            s["progress_thread"] = rs[0]["progress_thread"]
        if v == "default":
            default_final = s
        out[v] = s
    if default_final is not None:
        for s in out.values():
            s["final_loss_gap"] = s["final_loss"] - default_final["final_loss"]
            s["held_out_accuracy_gap"] = s["held_out_accuracy"] - default_final["held_out_accuracy"]
            s["step_time_vs_default"] = (s["step_seconds_median_of_runs"]["median"]
                                         / default_final["step_seconds_median_of_runs"]["median"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=["resnet18", "transformer"], default="resnet18")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3, help="steps left out of the step time")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--variants", default="default,zcoll_blocking,zcoll_overlap")
    ap.add_argument("--mode", default="hom", help="zcoll mode of the hooks")
    ap.add_argument("--eb", type=float, default=1e-4, help="absolute bound per compression")
    ap.add_argument("--bucket-mb", type=float, default=25.0, help="DDP bucket_cap_mb")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--torch-threads", type=int, default=1)
    ap.add_argument("--zcoll-threads", type=int, default=1)
    ap.add_argument("--label", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    a.variants = [v for v in a.variants.split(",") if v]
    for v in a.variants:
        if v not in ("default", "zcoll_blocking", "zcoll_overlap"):
            ap.error(f"unknown variant {v}")
    torch.set_num_threads(a.torch_threads)

    init_gloo(W)

    data = Data(a.model, a.batch)
    nparams = sum(p.numel() for p in make_model(a.model).parameters())
    runs = []
    t_start = time.time()
    for rep in range(a.repeats):
        order = a.variants[rep % len(a.variants):] + a.variants[:rep % len(a.variants)]
        for v in order:
            r = train(a, v, data)
            r["repeat"] = rep
            runs.append(r)
            if W.rank == 0:
                med = statistics.median(r["step_seconds"][a.warmup:] or r["step_seconds"])
                print(f"repeat {rep} {v:15s}: step {med:.3f} s (median), loss "
                      f"{r['loss'][0]:.4f} -> {r['loss'][-1]:.4f}, held-out accuracy "
                      f"{r['held_out_accuracy']:.3f}", flush=True)
    summary = summarize(a, runs)
    # sanity: the loss falls in every run; a compressed bucket reports a bound
    # within what the hom ring promises for it (N compressions of eb each)
    problems = []
    for r in runs:
        if not r["loss"][-1] < r["loss"][0]:
            problems.append(f"{r['variant']} repeat {r['repeat']}: the loss did not fall")
        for b in r.get("bucket_reports", []):
            if b["mode"] == "hom" and not 0 < b["error_bound"] <= W.size * a.eb * (1 + 1e-9):
                problems.append(f"{r['variant']}: a bucket reports bound {b['error_bound']}")
    ok = not problems
    if W.rank == 0:
        print(f"\n{a.model} ({nparams / 1e6:.1f} M parameters, {4 * nparams / 1e6:.0f} MB of "
              f"float32 gradients), {W.size} ranks, batch {a.batch}/rank, {a.steps} steps "
              f"({a.warmup} warm-up), {a.repeats} repeats; zcoll {a.mode} abs {a.eb}")
        for v, s in summary.items():
            m = s["step_seconds_median_of_runs"]
            al = s["step_seconds_all_steps"]
            line = (f"{v:15s} step {m['median']:.3f} s (runs {m['min']:.3f}..{m['max']:.3f}; "
                    f"steps {al['min']:.3f}..{al['max']:.3f}) x{s.get('step_time_vs_default', 1):.2f}"
                    f"  final loss {s['final_loss']:.4f} (gap {s.get('final_loss_gap', 0):+.2e})"
                    f"  held-out acc {s['held_out_accuracy']:.3f}")
            if "buckets" in s:
                bounds = ", ".join(f"{b['values']}: {b['max_error_bound']:.2g}"
                                   f" (x{b['ratio']:.1f})" if b["ratio"] else
                                   f"{b['values']}: {b['max_error_bound']:.2g}"
                                   for b in s["buckets"])
                line += f"\n{'':15s} bound per bucket (values: bound (ratio)): {bounds}"
            print(line)
        doc = {"label": a.label, "args": vars(a), "ranks": W.size, "parameters": nparams,
               "host": platform.node(), "cores": os.cpu_count(),
               "mpi": MPI.Get_library_version().splitlines()[0].strip(),
               "mpi_thread_level": MPI.Query_thread(), "torch": torch.__version__,
               "zcoll": zcoll.__version__, "seconds": time.time() - t_start,
               "summary": summary, "runs": runs}
        if a.json:
            with open(a.json, "w") as f:
                json.dump(doc, f, indent=1, default=list)
        print(f"# {'OK' if ok else 'FAILED'}: {a.model} {W.size} ranks"
              + ("" if ok else ": " + "; ".join(problems)), flush=True)
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
