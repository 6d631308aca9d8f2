"""Tests of bench/netcluster/summarize.py and bench/plot_bench.py on made-up zcoll-bench JSON:
the medians and ranges of repeated rows, the "noise: ranges overlap" marks, and the fallback
for JSON without repeats.  Run: python -m pytest bench/netcluster/test_summarize.py"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))


def row(mode, reps, mpi_reps=None, algo="x", ratio=1.0):
    r = {"bytes": 1 << 20, "threads": 1, "mode": mode, "algorithm": algo, "pass": True, "ratio": ratio,
         "time_model_us": 0, "time_us": {"min": min(reps), "avg": sum(reps) / len(reps), "max": max(reps)},
         "speedup_vs_mpi": 1.0}
    if reps is not None and mpi_reps is not None:
        r["time_coll_us"] = {"repeats": reps}
        r["speedup_repeats"] = {"values": [m / t for m, t in zip(mpi_reps, reps)]}
    return r


def results(tmp_path, coll, rows, repeats=5):
    d = tmp_path / "res"
    (d / "runs").mkdir(parents=True)
    (d / "runs" / f"h2_1gbit_{coll}.json").write_text(json.dumps(
        {"collective": coll, "ranks": 2, "data": "f.f32", "error_bound": 1e-4, "repeats": repeats, "rows": rows}))
    (d / "manifest.json").write_text(json.dumps({"clusters": [{"hosts": 2, "rate": "1gbit", "rate_bps": 1e9, "runs": [
        {"collective": coll, "json": f"runs/h2_1gbit_{coll}.json"}]}]}))
    out = subprocess.run([sys.executable, os.path.join(HERE, "summarize.py"), str(d)], capture_output=True,
                         text=True, check=True).stdout
    return out


def auto_line(out):
    return next(ln for ln in out.splitlines() if ln.startswith("| 2 | 1gbit |"))


def test_slower_than_mpi_beyond_the_ranges(tmp_path):
    mpi = [10, 11, 10.5, 10.2, 10.8]
    auto = [13, 13.5, 12.9, 13.2, 14]  # 1.25x, ranges apart
    out = results(tmp_path, "bcast", [row("mpi", mpi, mpi), row("hom", [8, 8.5, 8.2, 8.1, 8.3], mpi, ratio=3.5),
                                       row("auto", auto, mpi, algo="doc/binomial")])
    ln = auto_line(out)
    assert "**slower than MPI**" in ln and "noise" not in ln.split("**slower than MPI**")[0]
    assert "| 1.26 |" in ln  # auto/MPI: 13.2 / 10.5
    assert "slower than MPI's at 1 (+0 within overlapping ranges)" in out
    # the speedup table: hom's median speedup and its range, no overlap mark
    doc_cell = next(ln for ln in out.splitlines() if ln.startswith("| bcast | 1M |")).split("|")[4]
    assert "1.28 [" in doc_cell and "~" not in doc_cell
    # the wire-limit table: speedup / ratio (1.28 / 3.5)
    assert "| 0.37 [" in out.split("The wire limit")[1]


def test_overlapping_ranges_read_as_noise(tmp_path):
    mpi = [10, 14, 9, 12, 11]
    auto = [12, 9.5, 13, 12.5, 11.8]  # median 12 vs 11: 1.09x, but the ranges overlap
    out = results(tmp_path, "scatter", [row("mpi", mpi, mpi), row("auto", auto, mpi, algo="mpi")])
    ln = auto_line(out)
    assert "slower than MPI (noise: ranges overlap)" in ln and "**" not in ln
    assert next(ln for ln in out.splitlines() if ln.startswith("| scatter | 1M |")).rstrip(" |").endswith("mpi")
    assert " ~" in next(ln for ln in out.splitlines() if ln.startswith("| scatter | 1M |"))
    assert "at 0 (+1 within overlapping ranges)" in out


def test_json_without_repeats_falls_back_to_the_mean(tmp_path):
    out = results(tmp_path, "allreduce", [row("mpi", [10, 10], None), row("auto", [30, 30], None)], repeats=1)
    assert "| 3.00 |" in auto_line(out)


def test_plot_speedup_of_uses_the_repeats():
    import plot_bench
    r = row("doc", [5, 4, 10], [10, 10, 10])
    assert plot_bench.speedup_of(r) == (2.0, 1.0, 2.5)
    old = {"speedup_vs_mpi": 1.7}
    assert plot_bench.speedup_of(old) == (1.7, 1.7, 1.7)
