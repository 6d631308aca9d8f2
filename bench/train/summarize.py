"""Tables and plots of bench/train/train_compare.py's JSON (one file per cluster size).

    python bench/train/summarize.py OUT/train-2x1gbit.json OUT/train-4x1gbit.json --plots OUT/plots

Per cluster size and variant (markdown): the step time, the median over the runs of
each run's median step (steps from the run's "timed_from": --warmup, PowerSGD: its
start step) with the range of those medians over the repeats; "x gloo", that median
over gloo's; bytes per step on the wire (every host's zc0 tx_bytes over the same
steps, L2 bytes: headers and TCP acknowledgements included; median over the runs) and
the payload per step (zcoll: the bytes its reports say all ranks sent; the others: the
bytes a ring would send for what the hook hands to gloo, payload_reference of the
JSON); the final loss (mean over ranks and the last 10 steps of the full-length runs,
median over them) and held-out accuracy at the last step; steps and seconds of
training time (the sum of the slowest rank's step times, no evaluation) until the
held-out accuracy first reaches the target; zcoll's largest reported bound. Under
each table, in plain words, where PyTorch's compressing hooks beat zcoll's variants and
where zcoll wins (step times whose ranges over the repeats overlap are called even).

--plots DIR: one figure per cluster size (train-<hosts>hosts.png): the loss (moving
average over --smooth steps) against the step and against training time, and the
held-out accuracy against the step, of each variant's first full-length run.
"""

import argparse
import json
import os
import statistics
import sys

BASELINES = ("fp16", "bf16", "powersgd1", "powersgd4")
ZCOLL = ("zcoll_blocking", "zcoll_overlap", "zcoll_backend")
ORDER = ("gloo", "fp16", "bf16", "powersgd1", "powersgd4", "zcoll_blocking", "zcoll_overlap",
         "zcoll_backend", "fsdp_gloo", "fsdp_zcoll")


def median_range(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def to_target(run, target):
    """(steps, seconds of training time) until the held-out accuracy first reaches target."""
    for s, acc in zip(run["eval_steps"], run["test_accuracy"]):
        if acc >= target:
            return s, sum(run["step_seconds"][:s])
    return None


def variant_order(doc):
    seen = []
    for r in doc["runs"]:
        if r["variant"] not in seen:
            seen.append(r["variant"])
    return sorted(seen, key=lambda v: ORDER.index(v) if v in ORDER else len(ORDER))


def summarize(doc):
    """Per variant: step time, bytes, final loss and accuracy, time to target, bound."""
    full_steps = doc["args"]["steps"]
    target = doc["args"]["target"]
    ref = doc.get("payload_reference", {})
    out = {}
    for v in variant_order(doc):
        rs = [r for r in doc["runs"] if r["variant"] == v]
        med = [statistics.median(r["step_seconds"][r["timed_from"]:]) for r in rs]
        s = {"runs": len(rs), "step_seconds": median_range(med)}
        wire = [sum(r["wire_bytes"][r["timed_from"]:]) / (r["steps"] - r["timed_from"])
                for r in rs if r.get("wire_bytes")]
        s["wire_bytes_per_step"] = statistics.median(wire) if wire else None
        if all("zcoll" in r for r in rs):
            s["payload_bytes_per_step"] = statistics.median(r["zcoll"]["bytes_sent_per_step"] for r in rs)
            s["payload_source"] = "zcoll reports"
            s["max_error_bound"] = max(r["zcoll"]["max_error_bound"] for r in rs)
            s["zcoll_modes"] = sorted({m for r in rs for m in r["zcoll"]["modes"]})
        else:
            s["payload_bytes_per_step"] = ref.get(v)
            s["payload_source"] = "ring estimate"
            s["max_error_bound"] = None
        full = [r for r in rs if r["steps"] == full_steps] or rs
        k = min(10, len(full[0]["loss"]))
        s["final_loss"] = statistics.median(statistics.fmean(r["loss"][-k:]) for r in full)
        s["final_accuracy"] = statistics.median(r["test_accuracy"][-1] for r in full)
        hits = [to_target(r, target) for r in full]
        reached = [h for h in hits if h is not None]
        s["target_reached"] = f"{len(reached)}/{len(full)}"
        s["steps_to_target"] = statistics.median(h[0] for h in reached) if reached else None
        s["seconds_to_target"] = statistics.median(h[1] for h in reached) if reached else None
        s["param_spread"] = max(r.get("param_spread", 0.0) for r in rs)
        out[v] = s
    gloo = out.get("gloo")
    for s in out.values():
        s["vs_gloo"] = (s["step_seconds"]["median"] / gloo["step_seconds"]["median"]
                        if gloo and gloo["step_seconds"]["median"] > 0 else None)
    return out


def mb(x):
    return "–" if x is None else f"{x / 1e6:.2f}"


def title(doc):
    a = doc["args"]
    hosts = doc.get("host_count", doc["ranks"])
    return (f"{hosts} hosts, {doc['ranks']} ranks ({doc.get('label') or 'no label'}): "
            f"{doc.get('model', 'MLP')}, digits, batch {a['batch']}/rank, {a['steps']} steps "
            f"(later repeats {a['timing_steps']}), {a['repeats']} repeats, target {a['target']:.0%}; "
            f"zcoll {a['mode']} {a['eb_mode']} {a['eb']:g}; torch {doc.get('torch')}, zcoll "
            f"{doc.get('zcoll')}, commit {doc.get('commit', '')[:10]}")


def table(doc, summ):
    tgt = f"{doc['args']['target']:.0%}"
    lines = [f"### {title(doc)}", "",
             f"| variant | step ms, median [range] | x gloo | wire MB/step | payload MB/step | final loss "
             f"| final acc | steps to {tgt} | s to {tgt} | zcoll bound |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for v, s in summ.items():
        st = s["step_seconds"]
        steps = "not reached" if s["steps_to_target"] is None else f"{s['steps_to_target']:.0f}"
        secs = "–" if s["seconds_to_target"] is None else f"{s['seconds_to_target']:.2f}"
        got, of = s["target_reached"].split("/")
        if s["steps_to_target"] is not None and got != of:
            steps += f" ({s['target_reached']} runs)"
        vs = "–" if s["vs_gloo"] is None else f"{s['vs_gloo']:.2f}"
        bound = "–" if s["max_error_bound"] is None else f"{s['max_error_bound']:.2g}"
        pay = mb(s["payload_bytes_per_step"]) + ("" if s["payload_source"] == "zcoll reports" else "*")
        lines.append(f"| {v} | {1e3 * st['median']:.1f} [{1e3 * st['min']:.1f}–{1e3 * st['max']:.1f}] "
                     f"| {vs} "
                     f"| {mb(s['wire_bytes_per_step'])} | {pay} | {s['final_loss']:.4f} "
                     f"| {100 * s['final_accuracy']:.1f} % | {steps} | {secs} | {bound} |")
    lines.append("")
    lines.append("payload*: what a ring would send for the hook's tensors (uncompressed reference); "
                 "zcoll: its reports. Step time: median over the runs of each run's median, "
                 "[range of the runs' medians].")
    for v, why in doc.get("skipped", {}).items():
        lines.append(f"Skipped {v}: {why}.")
    if doc.get("fsdp_note"):
        lines.append(f"Sharded variants: {doc.get('sharded', '')} ({doc['fsdp_note']}).")
    return "\n".join(lines)


def compare(doc, summ):
    """Plain sentences: each PyTorch compression hook against each zcoll variant."""
    n_test = doc.get("dataset", {}).get("test", 360)
    lines = []
    for b in BASELINES:
        if b not in summ:
            continue
        for z in ZCOLL:
            if z not in summ:
                continue
            sb, sz = summ[b], summ[z]
            tb, tz = sb["step_seconds"], sz["step_seconds"]
            if tb["max"] >= tz["min"] and tz["max"] >= tb["min"]:
                time_w = f"even (ranges overlap: {1e3 * tb['median']:.1f} vs {1e3 * tz['median']:.1f} ms)"
            else:
                w = b if tb["median"] < tz["median"] else z
                time_w = (f"**{w}** ({1e3 * tb['median']:.1f} vs {1e3 * tz['median']:.1f} ms, "
                          f"x{max(tb['median'], tz['median']) / min(tb['median'], tz['median']):.2f})")
            wb, wz = sb["wire_bytes_per_step"], sz["wire_bytes_per_step"]
            src = "wire"
            if wb is None or wz is None:
                wb, wz, src = sb["payload_bytes_per_step"], sz["payload_bytes_per_step"], "payload"
            if wb is None or wz is None:
                bytes_w = "unknown"
            elif abs(wb - wz) <= 0.05 * max(wb, wz):
                bytes_w = f"even ({mb(wb)} vs {mb(wz)} MB {src})"
            else:
                bytes_w = f"**{b if wb < wz else z}** ({mb(wb)} vs {mb(wz)} MB {src})"
            da = sb["final_accuracy"] - sz["final_accuracy"]
            if abs(da) * n_test < 1.5:  # within one test image
                acc_w = f"even ({100 * sb['final_accuracy']:.1f} vs {100 * sz['final_accuracy']:.1f} %)"
            else:
                acc_w = (f"**{b if da > 0 else z}** ({100 * sb['final_accuracy']:.1f} vs "
                         f"{100 * sz['final_accuracy']:.1f} %)")
            xb, xz = sb["seconds_to_target"], sz["seconds_to_target"]
            if xb is None and xz is None:
                tt = "neither reaches the target"
            elif xb is None or xz is None:
                tt = f"only **{b if xz is None else z}** reaches the target"
            else:
                tt = f"**{b if xb < xz else z}** ({xb:.2f} vs {xz:.2f} s)"
            lines.append(f"- {b} vs {z}: step time {time_w}; bytes {bytes_w}; final accuracy {acc_w}; "
                         f"time to target {tt}")
    return "\n".join(lines)


def report(docs):
    parts = []
    for doc in sorted(docs, key=lambda d: d.get("host_count", d["ranks"])):
        summ = summarize(doc)
        parts.append(table(doc, summ))
        c = compare(doc, summ)
        if c:
            parts.append("\nPyTorch's compression against zcoll (winner in bold):\n\n" + c)
        parts.append("")
    return "\n".join(parts)


def smooth(xs, k):
    out, acc = [], 0.0
    for i, x in enumerate(xs):
        acc += x
        if i >= k:
            acc -= xs[i - k]
        out.append(acc / min(i + 1, k))
    return out


def plot(docs, outdir, k=10):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    files = []
    for doc in docs:
        full_steps = doc["args"]["steps"]
        fig, ax = plt.subplots(1, 3, figsize=(17, 5))
        for v in variant_order(doc):
            rs = [r for r in doc["runs"] if r["variant"] == v and r["steps"] == full_steps]
            if not rs:
                continue
            r = min(rs, key=lambda r: r["repeat"])
            loss = smooth(r["loss"], k)
            wall, t = [], 0.0
            for x in r["step_seconds"]:
                t += x
                wall.append(t)
            style = "--" if v.startswith(("zcoll", "fsdp_zcoll")) else "-"
            ax[0].plot(range(1, len(loss) + 1), loss, style, label=v, lw=1.2)
            ax[1].plot(wall, loss, style, label=v, lw=1.2)
            ax[2].plot(r["eval_steps"], [100 * a for a in r["test_accuracy"]], style, label=v, lw=1.2)
        hosts = doc.get("host_count", doc["ranks"])
        ax[0].set(xlabel="step", ylabel=f"training loss (mean of ranks, moving average of {k})",
                  yscale="log", title=f"{hosts} hosts: loss vs step")
        ax[1].set(xlabel="training time, s (sum of the slowest rank's step times)", ylabel="training loss",
                  yscale="log", title=f"{hosts} hosts: loss vs wall time")
        ax[2].axhline(100 * doc["args"]["target"], color="gray", lw=0.8, ls=":")
        ax[2].set(xlabel="step", ylabel="held-out accuracy, %", ylim=(50, 100),
                  title=f"{hosts} hosts: held-out accuracy")
        for x in ax:
            x.grid(alpha=0.3)
        ax[2].legend(fontsize=8, loc="lower right")
        fig.suptitle(title(doc), fontsize=8)
        fig.tight_layout()
        path = os.path.join(outdir, f"train-{hosts}hosts.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", nargs="+", help="train_compare.py --json files")
    ap.add_argument("--plots", default="", help="directory for the figures")
    ap.add_argument("--smooth", type=int, default=10, help="moving average of the loss curves, steps")
    a = ap.parse_args()
    docs = []
    for p in a.json:
        with open(p) as f:
            docs.append(json.load(f))
    print(report(docs))
    if a.plots:
        for p in plot(docs, a.plots, a.smooth):
            print(f"plot: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
