import sys, json, numpy as np
m = {f["file"]: f for f in json.load(open("/work/shared/data/manifest.json"))["files"]}
def H(r):
    r = r.astype(np.int64).ravel()
    _, c = np.unique(r, return_counts=True)
    p = c / c.sum()
    return float(-(c * np.log2(p)).sum())  # total bits
def interp_res(q, cubic):
    # q: 2-D int64 codes. residuals of level-by-level linear/cubic interpolation (code domain)
    ny, nx = q.shape
    res = []
    s = 1
    while s * 2 < max(ny, nx): s *= 2
    # anchor grid at stride 2s: order-1 Lorenzo on anchors
    a = q[::2*s, ::2*s]
    res.append(np.diff(a.ravel(), prepend=0))
    while s >= 1:
        # along x: rows multiple of 2s, cols odd multiples of s
        rows = q[::2*s]
        xs = np.arange(s, nx, 2*s)
        left = rows[:, xs - s]
        right = np.where(xs + s < nx, 1, 0)
        rv = rows[:, np.minimum(xs + s, nx - 1)]
        pred = np.where(xs + s < nx, np.floor((left + rv) / 2 + 0.5), left)
        if cubic:
            ok = (xs - 3*s >= 0) & (xs + 3*s < nx)
            l2 = rows[:, np.maximum(xs - 3*s, 0)]; r2 = rows[:, np.minimum(xs + 3*s, nx - 1)]
            pc = np.floor((-l2 + 9*left + 9*rv - r2) / 16 + 0.5)
            pred = np.where(ok, pc, pred)
        res.append((rows[:, xs] - pred).ravel())
        # along y: all cols multiple of s, rows odd multiples of s
        cols = q[:, ::s]
        ys = np.arange(s, ny, 2*s)
        up = cols[ys - s]
        dn = cols[np.minimum(ys + s, ny - 1)]
        pred = np.where((ys + s < ny)[:, None], np.floor((up + dn) / 2 + 0.5), up)
        if cubic:
            ok = ((ys - 3*s >= 0) & (ys + 3*s < ny))[:, None]
            u2 = cols[np.maximum(ys - 3*s, 0)]; d2 = cols[np.minimum(ys + 3*s, ny - 1)]
            pc = np.floor((-u2 + 9*up + 9*dn - d2) / 16 + 0.5)
            pred = np.where(ok, pc, pred)
        res.append((cols[ys] - pred).ravel())
        s //= 2
    return np.concatenate(res)
for name in sys.argv[1:]:
    f = m[name]
    a = np.fromfile("/work/shared/data/" + name, dtype=np.float32).reshape(f["shape"]).astype(np.float64)
    if a.ndim == 3: a = a.reshape(-1, a.shape[-1])
    for rel in (1e-2, 1e-3):
        eb = rel * (a.max() - a.min())
        q = np.rint(a / (2 * eb * (1 - 1/64))).astype(np.int64)
        n = q.size
        o1 = np.diff(q.ravel(), prepend=0)
        l2 = q.copy(); l2[1:, 1:] = q[1:, 1:] - q[1:, :-1] - q[:-1, 1:] + q[:-1, :-1]
        l2[0, 1:] = np.diff(q[0]); l2[1:, 0] = np.diff(q[:, 0])
        out = [H(o1), H(l2), H(interp_res(q, False)), H(interp_res(q, True))]
        print(name[:30], rel, " ".join("%7.1f" % (32 * n / b) for b in out), "(ratio bound: order1, lorenzo2d, interp-lin, interp-cubic)")
