"""Training on a real dataset with zcoll against PyTorch's own gradient compression
(issue 37, item 2). Every variant trains the same model from the same parameters on
the same batches, on CPU:

  gloo            DDP over gloo, no hook (PyTorch's default)
  fp16            DDP over gloo, default_hooks.fp16_compress_hook (buckets cast to float16)
  bf16            DDP over gloo, default_hooks.bf16_compress_hook (skipped, with the
                  reason in the output, where the hook is missing or gloo cannot
                  allreduce bfloat16, as gloo in torch 1.13)
  powersgd1/4     DDP over gloo, powerSGD_hook with matrix_approximation_rank 1 / 4,
                  error feedback and warm start on, plain allreduce before
                  start_powerSGD_iter (--powersgd-start, default 10 % of --steps: the
                  start PowerSGDState's documentation suggests); all gradients in one
                  DDP bucket (with two, the hook's chained allreduces can hang on gloo:
                  setup_variant)
  zcoll_blocking  DDP over gloo, zcoll.torch.allreduce_hook (the bucket's compressed
                  Allreduce inside the hook, no overlap)
  zcoll_overlap   DDP over gloo, zcoll.torch.nonblocking_allreduce_hook (overlap)
  zcoll_backend   DDP with no hook on a process group of backend "zcoll"
                  (zcoll.torch_backend; parameters broadcast exactly, mode "mpi", at
                  DDP's construction, the gradient buckets compressed)
  fsdp_gloo       sharded data parallel over gloo (see below)
  fsdp_zcoll      the same through the "zcoll" backend: reduce_scatter_tensor of the
                  gradients, all_gather_into_tensor of the parameters, both compressed

Sharded runs: torch 1.13's torch.distributed.fsdp does not import on Python 3.11
(a dataclass of torch.distributed._shard has a mutable default: ValueError), and its
FullyShardedDataParallel does not run without CUDA anyway (the first forward raises
"FSDP does not support CPU only execution"; the JSON's "fsdp_note"), so the sharded variants are a small
ZeRO-2-style loop written here, not FSDP: the parameters live in one flat float32 buffer
padded to a multiple of the world size, each rank owns one contiguous shard and its
optimizer state (torch.optim.SGD on that shard); per step the flat gradient (divided
by the world size) is reduce-scattered, the rank steps its shard and the shards are
all-gathered into the flat parameters. No prefetch or overlap. gloo 1.13 has no
reduce_scatter: fsdp_gloo uses all_reduce of the flat gradient and keeps its shard
(2x the reduce_scatter's bytes), then all_gather.

Data: scikit-learn's digits (1797 8x8 images of handwritten digits, 10 classes), the
file Debian's python3-sklearn (and the PyPI wheel) ships, read without importing
sklearn; pixels / 16. A fixed split (--test images held out, seed 0); the training
set is shuffled each epoch (seed 1 + epoch) and every step's global batch is cut
into one batch per rank, the same for every variant. Model: an MLP 64-H-H-10 (ReLU;
H = --hidden, 1024: 1.13 M parameters, 4.5 MB of float32 gradients). SGD with
momentum (--lr, --momentum), the same seeds for every variant.

Per run (all on each rank's clock, gathered at the end: no extra communication
inside the loop): the slowest rank's time of every step (zero_grad, forward,
backward with DDP's bucket communication, optimizer step; sharded: also the
reduce-scatter and all-gather), the mean over ranks of the batch loss, every
--eval-every steps the held-out loss and accuracy (each rank evaluates its share
of the test set, outside the step time), the bytes every host sent on the wire
after every step (tx_bytes of the host's zc0 interface on tools/netcluster, read
by the first rank of each host; none elsewhere), zcoll's reports (bytes sent,
largest error bound) and the spread of the parameters across ranks at the end.

Repeats: the variants run in a rotated order per repeat; repeat 0 runs --steps
steps (the curves), later repeats --timing-steps (default --steps). The summary
(bench/train/summarize.py, also printed at the end) gives per variant the median
step time over the runs' medians with their range, wire and payload bytes per
step, final loss and accuracy, and steps and seconds (training time) until the
held-out accuracy first reaches --target.

    mpiexec -n 2 python bench/train/train_compare.py --steps 6 --repeats 1 --json s.json
    bash bench/train/run.sh smoke                  # the same, every variant
    sudo bash bench/train/run.sh cluster OUT       # 2 and 4 emulated hosts at 1 Gbit/s

The last line is "# OK: ..." (or "# FAILED: ..." when a run's loss did not fall),
which tools/netcluster's watchdog looks for.
"""

import argparse
import importlib.util
import json
import os
import platform
import socket
import statistics
import subprocess
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
HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("gloo", "fp16", "bf16", "powersgd1", "powersgd4", "zcoll_blocking", "zcoll_overlap",
            "zcoll_backend", "fsdp_gloo", "fsdp_zcoll")
ZCOLL_VARIANTS = ("zcoll_blocking", "zcoll_overlap", "zcoll_backend", "fsdp_zcoll")

# ---- data and model ------------------------------------------------------------------------


def digits_file():
    """The digits data file of the installed scikit-learn (what load_digits reads)."""
    spec = importlib.util.find_spec("sklearn")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("train_compare.py: scikit-learn is not installed "
                         "(apt-get install -y python3-sklearn, or pip install scikit-learn)")
    for d in spec.submodule_search_locations:
        p = os.path.join(d, "datasets", "data", "digits.csv.gz")
        if os.path.exists(p):
            return p
    raise SystemExit("train_compare.py: sklearn/datasets/data/digits.csv.gz not found")


class Digits:
    """The digits split into a fixed training and test set; batches per step and rank."""

    def __init__(self, test, batch, ranks):
        path = digits_file()
        raw = np.loadtxt(path, delimiter=",", dtype=np.float32)
        x, y = raw[:, :-1] / 16.0, raw[:, -1].astype(np.int64)
        perm = np.random.default_rng(0).permutation(len(y))
        te, tr = perm[:test], perm[test:]
        self.path, self.n = path, len(y)
        self.x_train, self.y_train = torch.from_numpy(x[tr]), torch.from_numpy(y[tr])
        self.x_test, self.y_test = torch.from_numpy(x[te]), torch.from_numpy(y[te])
        self.batch, self.ranks = batch, ranks
        self.per_epoch = len(tr) // (batch * ranks)  # steps per epoch (the rest dropped)
        if self.per_epoch < 1:
            raise SystemExit(f"train_compare.py: batch {batch} x {ranks} ranks > {len(tr)} images")
        self._perm_epoch, self._perm = -1, None

    def step(self, rank, step):
        e, i = divmod(step, self.per_epoch)
        if e != self._perm_epoch:
            self._perm = np.random.default_rng(1 + e).permutation(len(self.y_train))
            self._perm_epoch = e
        g = self._perm[i * self.batch * self.ranks:(i + 1) * self.batch * self.ranks]
        idx = torch.from_numpy(g[rank * self.batch:(rank + 1) * self.batch])
        return self.x_train[idx], self.y_train[idx]

    def test_share(self, rank):
        return self.x_test[rank::self.ranks], self.y_test[rank::self.ranks]


def make_model(hidden):
    torch.manual_seed(0)  # the same initial parameters on every rank and every run
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 10))


# ---- what a step sends (a reference next to the wire bytes) ------------------------------------


def powersgd_floats(model, rank, min_rate=2.0):
    """Values PowerSGD allreduces per step (after its start): P and Q of each matrix it
    compresses, the other tensors whole (its rule: 1-D tensors and matrices whose
    (rows + cols) x rank x min_compression_rate is not below rows x cols stay whole)."""
    n = 0
    for p in model.parameters():
        if p.dim() <= 1:
            n += p.numel()
            continue
        rows, cols = p.shape[0], p.numel() // p.shape[0]
        n += (rows + cols) * rank if (rows + cols) * rank * min_rate < rows * cols else rows * cols
    return n


def payload_reference(model, k):
    """Bytes all hosts send per step if every collective were a ring (allreduce of B
    bytes: 2(k-1) B in all; reduce_scatter or allgather: (k-1) B), uncompressed."""
    p = sum(q.numel() for q in model.parameters())
    padded = -(-p // k) * k
    ar = 2 * (k - 1)
    return {"parameters": p,
            "gloo": ar * 4 * p, "fp16": ar * 2 * p, "bf16": ar * 2 * p,
            "powersgd1": ar * 4 * powersgd_floats(model, 1),
            "powersgd4": ar * 4 * powersgd_floats(model, 4),
            "zcoll_uncompressed": ar * 4 * p,
            "fsdp_gloo": (ar + (k - 1)) * 4 * padded,  # allreduce + allgather
            "fsdp_zcoll_uncompressed": 2 * (k - 1) * 4 * padded}  # reduce_scatter + allgather


def tx_bytes():
    """This host's bytes sent so far (tools/netcluster's zc0), or None."""
    try:
        with open("/sys/class/net/zc0/statistics/tx_bytes") as f:
            return int(f.read())
    except OSError:
        return None


# ---- the sharded step --------------------------------------------------------------------------


class Zero:
    """ZeRO-2-style sharded data parallel over `group`: flat parameters, a shard and its
    SGD state per rank; reduce-scatter of the gradients, all-gather of the parameters."""

    def __init__(self, model, group, args, exact_rs):
        self.group = group
        self.params = list(model.parameters())
        k, r = dist.get_world_size(group), dist.get_rank(group)
        n = sum(p.numel() for p in self.params)
        self.shard_len = -(-n // k)
        self.k, self.rank, self.exact_rs = k, r, exact_rs
        self.flat = torch.zeros(self.shard_len * k)
        off = 0
        with torch.no_grad():
            for p in self.params:  # the parameters become views of the flat buffer
                self.flat[off:off + p.numel()].copy_(p.reshape(-1))
                p.data = self.flat[off:off + p.numel()].view_as(p)
                off += p.numel()
        self.grad = torch.zeros_like(self.flat)
        lo = r * self.shard_len
        self.shard = nn.Parameter(self.flat[lo:lo + self.shard_len].clone())
        self.shard.grad = torch.zeros(self.shard_len)
        self.opt = torch.optim.SGD([self.shard], lr=args.lr, momentum=args.momentum)
        self.pieces = list(self.flat.split(self.shard_len))

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        off = 0
        for p in self.params:
            self.grad[off:off + p.numel()].copy_(p.grad.reshape(-1))
            off += p.numel()
        self.grad.div_(self.k)  # as DDP: divide first, then sum
        if self.exact_rs:  # gloo 1.13: no reduce_scatter
            dist.all_reduce(self.grad, group=self.group)
            lo = self.rank * self.shard_len
            self.shard.grad.copy_(self.grad[lo:lo + self.shard_len])
        else:
            rs = getattr(dist, "reduce_scatter_tensor", None) or dist._reduce_scatter_base
            rs(self.shard.grad, self.grad, group=self.group)
        self.opt.step()
        if self.exact_rs:
            dist.all_gather(self.pieces, self.shard.detach(), group=self.group)
        else:
            ag = getattr(dist, "all_gather_into_tensor", None) or dist._all_gather_base
            ag(self.flat, self.shard.detach(), group=self.group)


# ---- one training run --------------------------------------------------------------------------


def zcoll_options(a):
    return {"mode": a.mode, "eb_mode": a.eb_mode, "error_bound": a.eb, "threads": a.zcoll_threads,
            "record": True}


def setup_variant(a, variant, model, zpg):
    """The model wrapped for the variant: (module to call, optimizer or Zero, state)."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
    from torch.nn.parallel import DistributedDataParallel as DDP

    if variant.startswith("fsdp"):
        z = Zero(model, zpg if variant == "fsdp_zcoll" else None, a, exact_rs=variant == "fsdp_gloo")
        return model, z, None
    state = None
    if variant == "zcoll_backend":
        zt.set_options(zpg, mode="mpi")  # DDP's broadcast of the parameters: exact
        ddp = DDP(model, process_group=zpg, bucket_cap_mb=a.bucket_mb)
        zt.set_options(zpg, mode=a.mode)
    elif variant.startswith("powersgd"):
        # One bucket: PowerSGD's hook starts the allreduce of Q from the callback of P's,
        # on gloo's thread; with two buckets (DDP's 1 MB first bucket after its rebuild)
        # the ranks can start the buckets' allreduces in different orders and gloo pairs
        # them wrongly: a hang in Reducer::finalize_backward (seen on 2 emulated hosts)
        first = dist._DEFAULT_FIRST_BUCKET_BYTES
        dist._DEFAULT_FIRST_BUCKET_BYTES = int(a.bucket_mb * 1024 * 1024)
        try:
            ddp = DDP(model, bucket_cap_mb=a.bucket_mb)
        finally:
            dist._DEFAULT_FIRST_BUCKET_BYTES = first
    else:
        ddp = DDP(model, bucket_cap_mb=a.bucket_mb)
    if variant == "fp16":
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    elif variant == "bf16":
        ddp.register_comm_hook(None, default_hooks.bf16_compress_hook)
    elif variant.startswith("powersgd"):
        state = powerSGD_hook.PowerSGDState(process_group=None,
                                            matrix_approximation_rank=int(variant[-1]),
                                            start_powerSGD_iter=a.powersgd_start,
                                            use_error_feedback=True, warm_start=True)
        ddp.register_comm_hook(state, powerSGD_hook.powerSGD_hook)
    elif variant in ("zcoll_blocking", "zcoll_overlap"):
        state = zt.AllreduceState(W, mode=a.mode, eb_mode=a.eb_mode, error_bound=a.eb,
                                  threads=a.zcoll_threads, record=True)
        hook = zt.allreduce_hook if variant == "zcoll_blocking" else zt.nonblocking_allreduce_hook
        ddp.register_comm_hook(state, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=a.momentum)
    return ddp, opt, state


def evaluate(model, x, y):
    with torch.no_grad():
        out = model(x)
        return (float(F.cross_entropy(out, y, reduction="sum")), int((out.argmax(1) == y).sum()),
                int(y.numel()))


def train(a, variant, data, steps, zpg, leader):
    model = make_model(a.hidden)
    net, opt, state = setup_variant(a, variant, model, zpg)
    zrep0 = len(zpg.reports) if zpg is not None else 0
    xt, yt = data.test_share(W.rank)
    times, losses, evals = [], [], []
    counters = [tx_bytes() if leader else None]
    dist.barrier()
    for s in range(steps):
        x, y = data.step(W.rank, s)
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()  # DDP: waits for every bucket's future before it returns
        opt.step()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
        counters.append(tx_bytes() if leader else None)
        if (s + 1) % a.eval_every == 0 or s + 1 == steps:
            evals.append((s + 1,) + evaluate(model, xt, yt))
    # gathered at the end (every rank the same number of steps and evaluations)
    step_max = np.max(np.array(W.allgather(times)), axis=0)
    loss_mean = np.mean(np.array(W.allgather(losses)), axis=0)
    ev = np.sum(np.array(W.allgather([e[1:] for e in evals]), dtype=np.float64), axis=0)
    all_counters = W.allgather(counters if leader else None)
    wire = None
    host_counters = [c for c in all_counters if c is not None]
    if host_counters and all(v is not None for c in host_counters for v in c):
        wire = np.sum(np.diff(np.array(host_counters, dtype=np.int64), axis=1), axis=0).tolist()
    # the parameters on every rank after the run: their largest spread
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).numpy().astype(np.float64)
    hi, lo = np.empty_like(flat), np.empty_like(flat)
    W.Allreduce(flat, hi, op=MPI.MAX)
    W.Allreduce(flat, lo, op=MPI.MIN)
    run = {"variant": variant, "steps": steps, "step_seconds": [float(t) for t in step_max],
           "loss": [float(v) for v in loss_mean],
           "eval_steps": [e[0] for e in evals],
           "test_loss": [float(v) for v in ev[:, 0] / ev[:, 2]],
           "test_accuracy": [float(v) for v in ev[:, 1] / ev[:, 2]],
           "wire_bytes": wire, "param_spread": float(np.max(hi - lo)) if flat.size else 0.0,
           "timed_from": min(steps - 1, max(a.warmup, a.powersgd_start if variant.startswith("powersgd")
                                            else 0))}
    reps = None
    if variant in ("zcoll_blocking", "zcoll_overlap"):
        reps = state.reports
    elif variant in ("zcoll_backend", "fsdp_zcoll"):
        reps = zpg.reports[zrep0:]
    if reps is not None:
        sent = sum(r["bytes_sent"] for r in reps)
        unc = sum(r["bytes_uncompressed"] for r in reps)
        tot = W.allreduce(np.array([sent, unc], dtype=np.float64))
        bounds = W.allgather(max((r["error_bound"] for r in reps), default=0.0))
        run["zcoll"] = {"calls": len(reps), "calls_per_step": len(reps) / steps,
                        "bytes_sent_per_step": float(tot[0] / steps),
                        "bytes_uncompressed_per_step": float(tot[1] / steps),
                        "max_error_bound": float(max(bounds)),
                        "modes": sorted({r["mode"] for r in reps}),
                        "algorithms": sorted({r["algorithm"] for r in reps})}
    if isinstance(state, zt.AllreduceState):
        state.free()
    del net, opt, model
    return run


# ---- set-up ------------------------------------------------------------------------------------


def init_groups(need_zcoll, a):
    init_gloo(W)
    if not need_zcoll:
        return None
    return dist.new_group(backend="zcoll", pg_options=zcoll_options(a))


def skip_reason(variant):
    """Why a variant cannot run with this torch (the same answer on every rank), or None."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    if variant != "bf16":
        return None
    if not hasattr(default_hooks, "bf16_compress_hook"):
        return f"torch {torch.__version__} has no default_hooks.bf16_compress_hook"
    err = None
    try:  # gloo checks the dtype before it sends anything: it fails alike on every rank
        dist.all_reduce(torch.zeros(4, dtype=torch.bfloat16))
    except (RuntimeError, TypeError) as e:
        err = str(e).splitlines()[0][:160]
    errs = [e for e in W.allgather(err) if e]
    if errs:
        return (f"bf16_compress_hook exists in torch {torch.__version__}, but gloo cannot "
                f"allreduce bfloat16 ({errs[0]})")
    return None


def fsdp_probe():
    """Whether torch's FullyShardedDataParallel can wrap a CPU module here (no collective)."""
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel  # noqa: F401
    except Exception as e:  # noqa: BLE001 - 1.13 on Python 3.11: ValueError from a dataclass
        return False, (f"torch {torch.__version__}'s torch.distributed.fsdp does not import here "
                       f"({type(e).__name__}: {str(e)[:120]})")
    major_minor = tuple(int(x) for x in torch.__version__.split(".")[:2])
    if not torch.cuda.is_available() and major_minor <= (1, 13):
        # 1.13: the constructor takes torch.cuda.current_device() as the compute device,
        # the first forward raises "FSDP does not support CPU only execution"
        return False, (f"torch {torch.__version__}'s FullyShardedDataParallel does not run "
                       "without CUDA (\"FSDP does not support CPU only execution\")")
    return True, "torch's FSDP may run here; not used (the sharded runs are the loop here)"


def git_commit():
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--steps", type=int, default=300, help="steps of repeat 0 (the curves)")
    ap.add_argument("--timing-steps", type=int, default=0,
                    help="steps of the later repeats (default: --steps)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5, help="steps left out of step time and bytes")
    ap.add_argument("--batch", type=int, default=32, help="images per rank and step")
    ap.add_argument("--hidden", type=int, default=1024, help="width of the MLP's two hidden layers")
    ap.add_argument("--test", type=int, default=360, help="images held out (of 1797)")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--target", type=float, default=0.97, help="held-out accuracy target")
    ap.add_argument("--powersgd-start", type=int, default=-1,
                    help="start_powerSGD_iter (default: 10 %% of --steps, at least 2)")
    ap.add_argument("--bucket-mb", type=float, default=25.0, help="DDP bucket_cap_mb (torch's default)")
    ap.add_argument("--mode", default="hom", help="zcoll mode (hooks, backend)")
    ap.add_argument("--eb-mode", default="abs", help="zcoll error-bound mode")
    ap.add_argument("--eb", type=float, default=1e-4, help="zcoll error bound per compression")
    ap.add_argument("--zcoll-threads", type=int, default=1)
    ap.add_argument("--torch-threads", type=int, default=1)
    ap.add_argument("--label", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    a.variants = [v for v in a.variants.split(",") if v]
    for v in a.variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v} (known: {', '.join(VARIANTS)})")
    if a.timing_steps <= 0:
        a.timing_steps = a.steps
    if a.powersgd_start < 0:
        a.powersgd_start = max(2, a.steps // 10)  # > 1: PowerSGDState asserts it with error feedback
    fsdp_note = fsdp_probe()[1]
    torch.set_num_threads(a.torch_threads)
    zpg = init_groups(any(v in ("zcoll_backend", "fsdp_zcoll") for v in a.variants), a)

    hosts = W.allgather(socket.gethostname())
    leader = hosts.index(hosts[W.rank]) == W.rank  # the first rank of each host reads its counter
    data = Digits(a.test, a.batch, W.size)
    ref = payload_reference(make_model(a.hidden), W.size)
    skipped = {}
    for v in a.variants:
        why = skip_reason(v)
        if why:
            skipped[v] = why
            if W.rank == 0:
                print(f"skipping {v}: {why}", flush=True)
    variants = [v for v in a.variants if v not in skipped]
    if W.rank == 0:
        print(f"digits {data.n} images ({len(data.y_train)} train, {len(data.y_test)} test), "
              f"MLP 64-{a.hidden}-{a.hidden}-10 ({ref['parameters'] / 1e6:.2f} M parameters, "
              f"{4 * ref['parameters'] / 1e6:.1f} MB of float32 gradients), {W.size} ranks on "
              f"{len(set(hosts))} hosts, batch {a.batch}/rank, {a.steps} steps "
              f"(later repeats {a.timing_steps}), {a.repeats} repeats; zcoll {a.mode} "
              f"{a.eb_mode} {a.eb}; PowerSGD from step {a.powersgd_start}; sharded: {fsdp_note}, "
              "ZeRO-2-style loop", flush=True)
    runs = []
    t_start = time.time()
    for rep in range(a.repeats):
        order = variants[rep % len(variants):] + variants[:rep % len(variants)] if variants else []
        for v in order:
            t_run = time.time()
            r = train(a, v, data, a.steps if rep == 0 else a.timing_steps, zpg, leader)
            r["repeat"] = rep
            r["seconds"] = time.time() - t_run
            runs.append(r)
            if W.rank == 0:
                ts = r["step_seconds"][r["timed_from"]:]
                wire = (f", wire {sum(r['wire_bytes'][r['timed_from']:]) / len(ts) / 1e6:.2f} MB/step"
                        if r["wire_bytes"] else "")
                zc = (f", zcoll bound {r['zcoll']['max_error_bound']:.2g}" if "zcoll" in r else "")
                print(f"repeat {rep} {v:15s}: step {1e3 * statistics.median(ts):7.1f} ms (median of "
                      f"{len(ts)}), loss {r['loss'][0]:.3f} -> {r['loss'][-1]:.3f}, test accuracy "
                      f"{r['test_accuracy'][-1]:.3f}{wire}{zc} ({r['seconds']:.0f} s)", flush=True)
    problems = []
    for r in runs:
        k = max(1, min(10, len(r["loss"]) // 3))
        if not np.mean(r["loss"][-k:]) < np.mean(r["loss"][:k]):
            problems.append(f"{r['variant']} repeat {r['repeat']}: the loss did not fall")
    ok = not problems
    if W.rank == 0:
        doc = {"label": a.label, "args": vars(a), "ranks": W.size, "hosts": hosts,
               "host_count": len(set(hosts)), "machine": platform.node(), "cores": os.cpu_count(),
               "mpi": MPI.Get_library_version().splitlines()[0].strip(),
               "torch": torch.__version__, "zcoll": zcoll.__version__, "numpy": np.__version__,
               "python": platform.python_version(), "commit": git_commit(),
               "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "dataset": {"name": "sklearn digits", "file": data.path, "images": data.n,
                           "train": len(data.y_train), "test": len(data.y_test)},
               "model": f"MLP 64-{a.hidden}-{a.hidden}-10 (ReLU)", "payload_reference": ref,
               "skipped": skipped, "fsdp_note": fsdp_note,
               "sharded": "ZeRO-2-style loop of train_compare.py (Zero), not torch FSDP",
               "seconds": time.time() - t_start, "runs": runs}
        if a.json:
            with open(a.json, "w") as f:
                json.dump(doc, f, indent=1)
        spec = importlib.util.spec_from_file_location("train_summarize", os.path.join(HERE, "summarize.py"))
        summ = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(summ)
        print()
        print(summ.report([doc]))
        print(f"# {'OK' if ok else 'FAILED'}: train_compare {W.size} ranks, {len(runs)} runs"
              + ("" if ok else ": " + "; ".join(problems)), flush=True)
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
