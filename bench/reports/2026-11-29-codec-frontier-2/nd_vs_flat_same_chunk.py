import sys, json, math, numpy as np
sys.path.insert(0, "/tmp/dnd-pkg")
import zcoll
m = json.load(open("/work/shared/data/manifest.json"))
cs = int(sys.argv[1])
res = {}
for f in m["files"]:
    a = np.fromfile("/work/shared/data/" + f["file"], dtype=np.float32).reshape(f["shape"])
    fin = a[np.isfinite(a)]
    rng = float(fin.max()) - float(fin.min())
    for rel in (1e-2, 1e-3, 1e-4):
        eb = rel * rng
        r0 = a.nbytes / len(zcoll.compress(a, abs=eb, codec="dense", dims=()))
        r1 = a.nbytes / len(zcoll.compress(a, abs=eb, codec="dense", chunk_size=cs, dims=()))
        r2 = a.nbytes / len(zcoll.compress(a, abs=eb, codec="dense", chunk_size=cs))
        res.setdefault(rel, []).append((r0, r1, r2))
        print(f["file"][:28], rel, "%8.2f %8.2f %8.2f" % (r0, r1, r2), flush=True)
for rel, rows in res.items():
    g = [math.exp(sum(math.log(r[k]) for r in rows) / len(rows)) for k in range(3)]
    print("geomean", rel, " ".join(f"{x:8.2f}" for x in g))
