#!/usr/bin/env python3
"""zcoll against the lossy float codecs Zarr users have today, on the fields of
data/, through Zarr v3 arrays in memory: ratio (chunk bytes in the store), write
and read throughput (MB/s of uncompressed data, median of --repeat runs, rounds
interleaved) and max error, at absolute bounds of REL 1e-3 and 1e-4 of each
field's range.

  zcoll      serializer zcoll.zarr.ZcollCodec(abs=eb)
  bitround   numcodecs BitRound filter + Zstd(3); keepbits: the fewest with max error <= eb
  quantize   numcodecs Quantize filter + Zstd(3); digits: the fewest with max error <= eb
  zfpy       zfp fixed accuracy (tolerance=eb) called directly (not through Zarr: numcodecs
             0.16.6 cannot be imported with zfpy 1.0.1.post0 installed, see docs/python.md);
             needs --zfpy-path DIR holding `pip install --target DIR zfpy`
  zstd       lossless baseline: bytes + Zstd(3)

    python bench/python/zarr_compare.py --repeat 5 --json out.json --markdown out.md
"""

import argparse
import json
import pathlib
import platform
import statistics
import sys
import time
import warnings

import numpy as np
import zarr
import zarr.codecs
import zarr.codecs.numcodecs as zn
from numcodecs import BitRound, Quantize

import zcoll
import zcoll.zarr

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIELDS = [
    ("ncarg_rect3d-t_17x96x192.f32", (17, 96, 192)),
    ("proj_egm96-geoid_721x1440.f32", (721, 1440)),
    ("ferret_fnoc-uwnd_132x73x144.f32", (132, 73, 144)),
]


def max_err(a, b):
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def fewest(param_range, make, a, eb):
    """The first parameter whose filter keeps max error <= eb (an oracle choice)."""
    for p in param_range:
        f = make(p)
        if max_err(a, f.decode(f.encode(a)).reshape(a.shape)) <= eb:
            return p
    raise RuntimeError("no parameter meets the bound")


def zarr_run(a, chunks, kw):
    store = zarr.storage.MemoryStore()
    t0 = time.perf_counter()
    z = zarr.create_array(store, shape=a.shape, chunks=chunks, dtype=a.dtype, **kw)
    z[...] = a
    t1 = time.perf_counter()
    back = zarr.open_array(store, mode="r")[...]
    t2 = time.perf_counter()
    nbytes = sum(len(v.to_bytes()) for k, v in store._store_dict.items()
                 if not k.endswith("zarr.json"))
    return nbytes, t1 - t0, t2 - t1, back


def zfpy_run(zfpy, a, chunks, eb):
    # the same chunking as the Zarr arrays, one zfp stream per chunk
    parts = [a[i:i + chunks[0]] for i in range(0, a.shape[0], chunks[0])]
    t0 = time.perf_counter()
    enc = [zfpy.compress_numpy(np.ascontiguousarray(p), tolerance=eb) for p in parts]
    t1 = time.perf_counter()
    back = np.concatenate([zfpy.decompress_numpy(e) for e in enc])
    t2 = time.perf_counter()
    return sum(len(e) for e in enc), t1 - t0, t2 - t1, back


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rel", default="1e-3,1e-4")
    ap.add_argument("--zfpy-path", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="Numcodecs codecs are not in the Zarr version 3")
    zfpy = None
    if args.zfpy_path:
        sys.path.insert(0, args.zfpy_path)  # after numcodecs was imported (see docstring)
        import zfpy as _z

        zfpy = _z

    rows = []
    for name, shape in FIELDS:
        a = np.fromfile(ROOT / "data" / name, dtype="<f4").reshape(shape)
        chunks = (max(1, -(-shape[0] // 4)),) + shape[1:]
        rng = float(a.max()) - float(a.min())
        for rel in (float(r) for r in args.rel.split(",")):
            eb = rel * rng
            keep = fewest(range(1, 24), lambda k: BitRound(keepbits=k), a, eb)
            digits = fewest(range(-10, 12), lambda d: Quantize(digits=d, dtype="<f4"), a, eb)
            zstd = zarr.codecs.ZstdCodec(level=3)
            configs = {
                "zcoll": dict(serializer=zcoll.zarr.ZcollCodec(mode="abs", error_bound=eb),
                              compressors=None),
                f"bitround(keepbits={keep})+zstd": dict(filters=[zn.BitRound(keepbits=keep)],
                                                        compressors=zstd),
                f"quantize(digits={digits})+zstd": dict(
                    filters=[zn.Quantize(digits=digits, dtype="<f4")], compressors=zstd),
                "zstd (lossless)": dict(compressors=zstd),
            }
            names = list(configs) + (["zfpy(tolerance=eb)"] if zfpy else [])
            times = {n: ([], []) for n in names}
            result = {}
            for _ in range(args.repeat):  # rounds interleave the codecs
                for n in names:
                    if n.startswith("zfpy"):
                        size, tw, tr, back = zfpy_run(zfpy, a, chunks, eb)
                    else:
                        size, tw, tr, back = zarr_run(a, chunks, configs[n])
                    times[n][0].append(tw)
                    times[n][1].append(tr)
                    result[n] = (size, max_err(a, back))
            for n in names:
                size, err = result[n]
                tw, tr = times[n]
                rows.append(dict(
                    field=name, shape=list(shape), chunks=list(chunks), rel=rel, eb=eb, codec=n,
                    through_zarr=not n.startswith("zfpy"), bytes=size, ratio=a.nbytes / size,
                    max_error=err, within_bound=err <= eb,
                    write_s=tw, read_s=tr,
                    write_mbs_median=a.nbytes / statistics.median(tw) / 1e6,
                    read_mbs_median=a.nbytes / statistics.median(tr) / 1e6,
                    write_mbs_range=[a.nbytes / max(tw) / 1e6, a.nbytes / min(tw) / 1e6],
                    read_mbs_range=[a.nbytes / max(tr) / 1e6, a.nbytes / min(tr) / 1e6]))
                r = rows[-1]
                print(f"{name[:22]:22s} rel {rel:g} {n:28s} ratio {r['ratio']:7.2f} "
                      f"err/eb {err / eb:6.3f} write {r['write_mbs_median']:7.1f} MB/s "
                      f"read {r['read_mbs_median']:7.1f} MB/s", flush=True)

    meta = dict(python=sys.version.split()[0], numpy=np.__version__, zarr=zarr.__version__,
                zcoll=zcoll.__version__, machine=platform.machine(),
                zfpy=(zfpy.__file__ if zfpy else None), repeat=args.repeat)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    if args.markdown:
        lines = ["| field | bound | codec | ratio | max error / bound | write MB/s | read MB/s |",
                 "|---|---|---|---:|---:|---:|---:|"]
        for r in rows:
            lines.append(
                f"| {r['field'].split('_')[1]} | REL {r['rel']:g} | {r['codec']} | "
                f"{r['ratio']:.2f} | {r['max_error'] / r['eb']:.3f} | "
                f"{r['write_mbs_median']:.0f} ({r['write_mbs_range'][0]:.0f}-{r['write_mbs_range'][1]:.0f}) | "
                f"{r['read_mbs_median']:.0f} ({r['read_mbs_range'][0]:.0f}-{r['read_mbs_range'][1]:.0f}) |")
        pathlib.Path(args.markdown).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
