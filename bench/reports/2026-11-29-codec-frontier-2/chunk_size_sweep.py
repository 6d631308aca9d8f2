# chunk_size_sweep.py CS,...: columns = 1-D dense at the default chunk, then dense with dims at each chunk size (0 = the policy); asserts the n-D decode equals the 1-D decode at that chunk size and the bound
import sys, json, math, numpy as np
sys.path.insert(0, "/tmp/dnd-pkg")
import zcoll
m = json.load(open("/work/shared/data/manifest.json"))
css = [int(c) for c in sys.argv[1].split(",")] if len(sys.argv) > 1 else [0]
res = {}
for f in m["files"]:
    a = np.fromfile("/work/shared/data/" + f["file"], dtype=np.float32).reshape(f["shape"])
    fin = a[np.isfinite(a)]
    rng = float(fin.max()) - float(fin.min())
    for rel in (1e-2, 1e-3, 1e-4):
        eb = rel * rng
        s1 = zcoll.compress(a.ravel(), abs=eb, codec="dense")
        d1 = zcoll.decompress(s1)
        row = [a.nbytes / len(s1)]
        for cs in css:
            s = zcoll.compress(a, abs=eb, codec="dense", chunk_size=cs)
            d = zcoll.decompress(s)
            dd = zcoll.decompress(zcoll.compress(a, abs=eb, codec="dense", chunk_size=cs, dims=()))
            assert np.array_equal(d.view(np.uint32), dd.view(np.uint32)), f["file"]
            assert np.abs(d - a.ravel()).max() <= eb
            row.append(a.nbytes / len(s))
        res.setdefault(rel, []).append(row)
        print(f["file"][:28], rel, " ".join(f"{r:8.2f}" for r in row), flush=True)
for rel, rows in res.items():
    g = [math.exp(sum(math.log(r[k]) for r in rows) / len(rows)) for k in range(len(rows[0]))]
    print("geomean", rel, " ".join(f"{x:8.2f}" for x in g))
