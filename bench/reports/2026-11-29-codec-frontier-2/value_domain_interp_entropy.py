import sys, json, numpy as np
m = {f["file"]: f for f in json.load(open("/work/shared/data/manifest.json"))["files"]}
def H(r):
    _, c = np.unique(r.astype(np.int64).ravel(), return_counts=True)
    return float(-(c * np.log2(c / c.sum())).sum())
def vinterp(a, eb, cubic):
    """SZ3-style: predict from reconstructed values level by level, quantize x - pred."""
    ny, nx = a.shape
    rec = np.zeros_like(a)
    Q = 2 * eb
    res = []
    def q(x, pred):
        r = np.rint((x - pred) / Q)
        return r, pred + r * Q
    s = 1
    while s * 2 < max(ny, nx): s *= 2
    anc = a[::2*s, ::2*s]
    r, v = q(anc, 0.0 * anc); res.append(r); rec[::2*s, ::2*s] = v  # anchors (crude)
    while s >= 1:
        rows = slice(0, ny, 2*s)
        xs = np.arange(s, nx, 2*s)
        R = rec[rows]; X = a[rows]
        l = R[:, xs - s]; rr = R[:, np.minimum(xs + s, nx - 1)]
        pred = np.where(xs + s < nx, (l + rr) / 2, l)
        if cubic:
            ok = (xs - 3*s >= 0) & (xs + 3*s < nx)
            pc = (-R[:, np.maximum(xs-3*s,0)] + 9*l + 9*rr - R[:, np.minimum(xs+3*s,nx-1)]) / 16
            pred = np.where(ok, pc, pred)
        r, v = q(X[:, xs], pred); res.append(r); rec[0:ny:2*s, xs] = v
        ys = np.arange(s, ny, 2*s)
        C = rec[:, ::s]; X = a[:, ::s]
        u = C[ys - s]; d = C[np.minimum(ys + s, ny - 1)]
        pred = np.where((ys + s < ny)[:, None], (u + d) / 2, u)
        if cubic:
            ok = ((ys - 3*s >= 0) & (ys + 3*s < ny))[:, None]
            pc = (-C[np.maximum(ys-3*s,0)] + 9*u + 9*d - C[np.minimum(ys+3*s,ny-1)]) / 16
            pred = np.where(ok, pc, pred)
        r, v = q(X[ys], pred); res.append(r); rec[ys, ::s] = v
        s //= 2
    assert np.abs(rec - a).max() <= eb * 1.0000001
    return np.concatenate([x.ravel() for x in res])
for name in sys.argv[1:]:
    f = m[name]
    a = np.fromfile("/work/shared/data/" + name, dtype=np.float32).reshape(f["shape"]).astype(np.float64)
    if a.ndim == 3: a = a.reshape(-1, a.shape[-1])
    for rel in (1e-2,):
        eb = rel * (a.max() - a.min())
        print(name[:30], rel, " ".join("%7.1f" % (32 * a.size / H(vinterp(a, eb, c))) for c in (False, True)), "(order-0 bound: value-domain interp lin, cubic)")
