"""Tests of bench/train/summarize.py on made-up train_compare.py JSON: step-time medians
and ranges over repeats, wire bytes over the timed steps, steps and seconds to the
accuracy target, the winner sentences, and the plots.
Run: python -m pytest bench/train/test_train_summarize.py"""
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("train_summarize", os.path.join(HERE, "summarize.py"))
summ = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(summ)


def run(variant, repeat, step, steps=20, acc=None, wire=None, zcoll=None, timed_from=2):
    acc = acc or [0.5, 0.8, 0.96, 0.97]
    r = {"variant": variant, "repeat": repeat, "steps": steps, "timed_from": timed_from,
         "step_seconds": [1.0] * timed_from + [step] * (steps - timed_from),  # slow warm-up steps
         "loss": [2.0 - 0.05 * i for i in range(steps)],
         "eval_steps": [5, 10, 15, 20][:len(acc)], "test_accuracy": acc, "test_loss": [0.1] * len(acc),
         "wire_bytes": None if wire is None else [999999] * timed_from + [wire] * (steps - timed_from),
         "param_spread": 0.0}
    if zcoll:
        r["zcoll"] = zcoll
    return r


def doc(runs, steps=20, target=0.95):
    return {"args": {"steps": steps, "timing_steps": 10, "repeats": 3, "target": target, "batch": 32,
                     "mode": "hom", "eb_mode": "abs", "eb": 1e-4},
            "ranks": 2, "host_count": 2, "label": "t", "torch": "1.13", "zcoll": "x", "commit": "abc",
            "dataset": {"test": 360}, "payload_reference": {"gloo": 9e6, "fp16": 4.5e6},
            "skipped": {"bf16": "no bfloat16 in gloo"}, "runs": runs}


ZC = {"bytes_sent_per_step": 2e6, "max_error_bound": 2e-4, "modes": ["hom"]}


def test_step_time_bytes_and_target():
    runs = []
    for rep, (g, f, z) in enumerate([(0.10, 0.08, 0.09), (0.12, 0.07, 0.095), (0.11, 0.075, 0.20)]):
        runs += [run("gloo", rep, g, wire=9.5e6), run("fp16", rep, f, wire=5e6, acc=[0.5, 0.7, 0.9, 0.94]),
                 run("zcoll_overlap", rep, z, wire=2.2e6, zcoll=ZC)]
    d = doc(runs)
    s = summ.summarize(d)
    assert s["gloo"]["step_seconds"] == {"median": 0.11, "min": 0.10, "max": 0.12, "n": 3}
    assert s["zcoll_overlap"]["step_seconds"]["median"] == 0.095
    assert abs(s["fp16"]["vs_gloo"] - 0.075 / 0.11) < 1e-12
    assert s["gloo"]["wire_bytes_per_step"] == 9.5e6  # the warm-up steps' bytes left out
    assert s["gloo"]["payload_bytes_per_step"] == 9e6 and s["gloo"]["payload_source"] == "ring estimate"
    assert s["zcoll_overlap"]["payload_bytes_per_step"] == 2e6
    assert s["zcoll_overlap"]["max_error_bound"] == 2e-4
    # 95 % first reached at step 15: 2 warm-up steps of 1 s + 13 steps
    assert s["gloo"]["steps_to_target"] == 15
    assert abs(s["gloo"]["seconds_to_target"] - (2 + 13 * 0.11)) < 1e-9
    assert s["fp16"]["steps_to_target"] is None and s["fp16"]["target_reached"] == "0/3"
    out = summ.report([d])
    row = next(ln for ln in out.splitlines() if ln.startswith("| gloo |"))
    assert "| 110.0 [100.0–120.0] | 1.00 | 9.50 | 9.00* |" in row
    assert "| 1.2750 | 97.0 % | 15 | 3.43 | – |" in row  # loss: mean of the last 10 steps
    assert "| not reached | – |" in next(ln for ln in out.splitlines() if ln.startswith("| fp16 |"))
    assert "Skipped bf16: no bfloat16 in gloo." in out
    line = next(ln for ln in out.splitlines() if ln.startswith("- fp16 vs zcoll_overlap"))
    # fp16 0.07..0.08 against zcoll 0.09..0.2: ranges apart, fp16 faster
    assert "step time **fp16** (75.0 vs 95.0 ms" in line
    assert "bytes **zcoll_overlap** (5.00 vs 2.20 MB wire)" in line
    assert "final accuracy **zcoll_overlap** (94.0 vs 97.0 %)" in line
    assert "time to target only **zcoll_overlap** reaches the target" in line


def test_overlapping_ranges_are_even_and_timing_repeats():
    runs = [run("fp16", 0, 0.10, zcoll=None), run("fp16", 1, 0.13, steps=10), run("fp16", 2, 0.11, steps=10),
            run("zcoll_blocking", 0, 0.12, zcoll=ZC), run("zcoll_blocking", 1, 0.105, steps=10, zcoll=ZC),
            run("zcoll_blocking", 2, 0.125, steps=10, zcoll=ZC)]
    d = doc(runs)
    s = summ.summarize(d)
    # the curve values come from the full-length run only; step times from all three
    assert s["fp16"]["step_seconds"]["n"] == 3 and s["fp16"]["target_reached"] == "1/1"
    line = next(ln for ln in summ.compare(d, s).splitlines() if ln.startswith("- fp16 vs zcoll_blocking"))
    assert "step time even (ranges overlap" in line
    assert "bytes **zcoll_blocking** (4.50 vs 2.00 MB payload)" in line  # no wire bytes: payloads


def test_command_line_and_plots(tmp_path):
    runs = [run("gloo", 0, 0.1), run("zcoll_backend", 0, 0.09, zcoll=ZC)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc(runs)))
    out = subprocess.run([sys.executable, os.path.join(HERE, "summarize.py"), str(p), "--plots",
                          str(tmp_path / "plots")], capture_output=True, text=True, check=True).stdout
    assert "| zcoll_backend |" in out
    assert (tmp_path / "plots" / "train-2hosts.png").stat().st_size > 1000
