"""ratio.py OUT.json — bytes on the wire of a 16-bit Allreduce (issue 28): each rank
takes every N-th value of a data/ file (its share), as float32, rounded to float16 and
to bfloat16 (nearest, ties to even); one hom Allreduce of each at REL 1e-3 and 1e-2;
the reports' bytes against the 16-bit bytes sent raw, and the reported bounds.
Bytes only (deterministic); times are not measured.
    mpiexec -n 2 python bench/reports/2026-11-26-half/ratio.py out.json"""
import json
import os
import sys

import numpy as np
from mpi4py import MPI

import zcoll

W = MPI.COMM_WORLD
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../data")
FILES = ["proj_egm96-geoid_721x1440.f32", "ncarg_rect3d-t_17x96x192.f32",
         "ferret_fnoc-uwnd_132x73x144.f32", "hst-acs_j8bt06nyq-sci_1024x1024.f32"]


def bf16_bits(x):
    u = x.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


rows = []
for eb in (1e-3, 1e-2):
    with zcoll.Comm(W, mode="hom", eb_mode="rel", error_bound=eb, min_bytes=0) as c:
        for f in FILES:
            x = np.fromfile(os.path.join(DATA, f), dtype="<f4")
            x = np.ascontiguousarray(x[W.rank::W.size][: x.size // W.size])
            c.allreduce(x)
            r32 = c.last_report()
            c.allreduce(x.astype(np.float16))
            r16 = c.last_report()
            c.allreduce(bf16_bits(x), dtype="bfloat16")
            rb = c.last_report()
            raw16 = r32["bytes_uncompressed"] / 2
            rows.append(dict(file=f, rel=eb, ranks=W.size,
                             f32_ratio=r32["bytes_uncompressed"] / r32["bytes_sent"],
                             f16_vs_raw16=raw16 / r16["bytes_sent"],
                             bf16_vs_raw16=raw16 / rb["bytes_sent"],
                             f32_bound=r32["error_bound"], f16_bound=r16["error_bound"],
                             bf16_bound=rb["error_bound"]))
if W.rank == 0:
    for r in rows:
        print(f"REL {r['rel']:g} {r['file'][:30]:30s} f32 x{r['f32_ratio']:5.2f}  "
              f"f16 vs raw16 x{r['f16_vs_raw16']:5.2f} (bound {r['f16_bound']:.3g})  "
              f"bf16 vs raw16 x{r['bf16_vs_raw16']:5.2f} (bound {r['bf16_bound']:.3g}; "
              f"f32 {r['f32_bound']:.3g})")
    json.dump(dict(commit=os.environ.get("COMMIT", ""), rows=rows), open(sys.argv[1], "w"), indent=1)
