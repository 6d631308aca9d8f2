#!/usr/bin/env python3
"""Write a real field from data/ to a Zarr v3 store with zcoll as the serializer,
read it back, and report the compression ratio and the maximum error.

    python python/examples/zarr_field.py [--abs 0.01] [--store /tmp/field.zarr]
"""

import argparse
import os
import pathlib
import tempfile

import numpy as np
import zarr

import zcoll
import zcoll.zarr

ROOT = pathlib.Path(__file__).resolve().parents[2]


def store_bytes(path):
    return sum(f.stat().st_size for f in pathlib.Path(path).rglob("*") if f.is_file()
               and f.name != "zarr.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--field", default=str(ROOT / "data/ferret_fnoc-uwnd_132x73x144.f32"))
    ap.add_argument("--shape", default="132,73,144")
    ap.add_argument("--abs", type=float, default=0.01, help="absolute error bound")
    ap.add_argument("--store", default=None, help="store directory (default: a temporary one)")
    args = ap.parse_args()

    shape = tuple(int(s) for s in args.shape.split(","))
    a = np.fromfile(args.field, dtype="<f4").reshape(shape)
    store = args.store or os.path.join(tempfile.mkdtemp(), "field.zarr")
    chunks = (max(1, shape[0] // 4),) + shape[1:]  # a few Zarr chunks along the first axis

    z = zarr.create_array(store, shape=shape, chunks=chunks, dtype="float32",
                          serializer=zcoll.zarr.ZcollCodec(mode="abs", error_bound=args.abs),
                          compressors=None, overwrite=True)
    z[...] = a
    back = zarr.open_array(store, mode="r")[...]

    err = float(np.max(np.abs(back.astype(np.float64) - a.astype(np.float64))))
    stored = store_bytes(store)
    print(f"field      {args.field} {shape} float32 ({a.nbytes} bytes)")
    print(f"store      {store} (chunks {chunks}, codec zcoll abs {args.abs})")
    print(f"stored     {stored} bytes of chunks, ratio {a.nbytes / stored:.3f}")
    print(f"max error  {err:.6g} (bound {args.abs}) -> {'ok' if err <= args.abs else 'BROKEN'}")
    return 0 if err <= args.abs else 1


if __name__ == "__main__":
    raise SystemExit(main())
