#!/usr/bin/env python3
"""results_data.py — the raw results of bench/results/, kept packed (bench/results/README.md).

Each results directory D is one archive, bench/results/D.tar.xz, whose members are D/...
(`tar -xJf bench/results/D.tar.xz -C bench/results` restores bench/results/D/); a
results directory of one file, F.json, is bench/results/F.json.xz. Scripts name the
data by its path as it was unpacked, bench/results/D/sub/file.json, and read it here:
the loose file where it exists (unpacked, or a new run's output), the archive's member
otherwise; glob() lists both.

    sys.path.insert(0, "bench")  # or the script's own ../..
    import results_data as rd
    for p in rd.glob("bench/results/2026-11-24-quiet2/sweep/runs/*.json"):
        j = rd.load_json(p)

Command line (run from anywhere):
    python3 bench/results_data.py list D         # the members of bench/results/D.tar.xz
    python3 bench/results_data.py cat PATH       # one file, by its unpacked path
    python3 bench/results_data.py extract D...   # unpack into bench/results/ (ignored by git)
    python3 bench/results_data.py pack D...      # bench/results/D/ -> D.tar.xz (F.json -> F.json.xz)
pack is deterministic (GNU tar --sort=name --mtime=@0 --owner=0 --group=0
--numeric-owner --format=gnu, modes normalised, xz -9e single-threaded): packing what
extract unpacked gives the same bytes.
"""
import builtins
import fnmatch
import io
import json
import lzma
import os
import subprocess
import sys
import tarfile

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "bench", "results")
TAR_OPTIONS = ["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner",
               "--format=gnu", "--mode=u=rwX,go=rX"]
_members = {}  # archive path -> {member name: bytes}


def path(*parts):
    """bench/results/<parts> as an absolute path (which need not exist)."""
    return os.path.join(RESULTS, *parts)


def _where(p, loose_first=True):
    """('fs', p) for a loose file or one outside bench/results, else ('tar', archive,
    member) or ('xz', file.xz)."""
    a = os.path.abspath(p)
    rel = os.path.relpath(a, RESULTS)
    if rel in (".", "..") or rel.startswith(".." + os.sep) or (loose_first and os.path.exists(a)):
        return ("fs", a)
    parts = rel.split(os.sep)
    if len(parts) == 1 and os.path.exists(a + ".xz"):
        return ("xz", a + ".xz")
    archive = path(parts[0] + ".tar.xz")
    if len(parts) > 1 and os.path.exists(archive):
        return ("tar", archive, "/".join(parts))
    return ("fs", a)


def members(archive):
    """{name: bytes} of the files in an archive (read once, kept)."""
    if archive not in _members:
        with tarfile.open(archive, "r:xz") as t:
            _members[archive] = {m.name: t.extractfile(m).read() for m in t if m.isfile()}
    return _members[archive]


def _names(archive):
    """Every file of the archive and every directory above one."""
    names = set(members(archive))
    for n in list(names):
        while "/" in n:
            n = n.rsplit("/", 1)[0]
            names.add(n)
    return names


def read_bytes(p):
    w = _where(p)
    if w[0] == "xz":
        with lzma.open(w[1]) as f:
            return f.read()
    if w[0] == "tar":
        try:
            return members(w[1])[w[2]]
        except KeyError:
            raise FileNotFoundError(f"{p}: no member {w[2]} in {w[1]}") from None
    with builtins.open(w[1], "rb") as f:
        return f.read()


def open(p, mode="r"):  # noqa: A001 (the builtin's name on purpose: a drop-in)
    """A file object of p's contents, read-only ('r' text, 'rb' bytes)."""
    if mode not in ("r", "rb", "rt"):
        raise ValueError("results_data.open reads only")
    w = _where(p)
    if w[0] == "fs":
        return builtins.open(w[1], mode, **({} if "b" in mode else {"encoding": "utf-8"}))
    data = read_bytes(p)
    return io.BytesIO(data) if "b" in mode else io.StringIO(data.decode("utf-8"))


def load_json(p):
    return json.loads(read_bytes(p))


def exists(p):
    return isfile(p) or isdir(p)


def isfile(p):
    w = _where(p)
    if w[0] == "tar":
        return w[2] in members(w[1])
    return w[0] == "xz" or os.path.isfile(w[1])


def isdir(p):
    if os.path.isdir(p):
        return True
    w = _where(p)
    return w[0] == "tar" and any(n.startswith(w[2] + "/") for n in members(w[1]))


def glob(pattern):
    """glob.glob(pattern) over the loose files and the archive's members together,
    sorted (no '**'; the results directory itself must be named without wildcards)."""
    import glob as _glob
    loose = _glob.glob(pattern)
    w = _where(pattern, loose_first=False)
    if w[0] != "tar":
        return sorted(loose)
    want = w[2].split("/")
    if _glob.has_magic(want[0]):
        raise ValueError(f"{pattern}: name the results directory without wildcards")
    norm = os.path.normpath(pattern)
    prefix = norm[:len(norm) - len(w[2])]  # the caller's spelling of bench/results/
    out = []
    for n in _names(w[1]):
        got = n.split("/")
        if len(got) == len(want) and all(
                fnmatch.fnmatchcase(g, p) and (p.startswith(".") or not g.startswith("."))
                for g, p in zip(got, want)):
            out.append(prefix + n)
    return sorted(set(out) | set(os.path.normpath(x) for x in loose))


def _pack(name):
    src = path(name)
    if os.path.isfile(src) and name.endswith(".json"):
        with builtins.open(src + ".xz", "wb") as out:
            subprocess.run(["xz", "-9e", "-T1", "-c", src], stdout=out, check=True)
        return src + ".xz"
    if not os.path.isdir(src):
        raise SystemExit(f"results_data: {src} is not a results directory")
    dst = src + ".tar.xz"
    with builtins.open(dst, "wb") as out:
        tar = subprocess.Popen(["tar", *TAR_OPTIONS, "-C", RESULTS, "-cf", "-", name],
                               stdout=subprocess.PIPE)
        subprocess.run(["xz", "-9e", "-T1", "-c"], stdin=tar.stdout, stdout=out, check=True)
        tar.stdout.close()
        if tar.wait():
            raise SystemExit(f"results_data: tar failed on {src}")
    return dst


def _extract(name):
    name = name.removesuffix(".tar.xz").removesuffix(".json.xz")
    if os.path.exists(path(name + ".json.xz")):
        with lzma.open(path(name + ".json.xz")) as f, builtins.open(path(name + ".json"), "wb") as out:
            out.write(f.read())
        return path(name + ".json")
    with tarfile.open(path(name + ".tar.xz"), "r:xz") as t:
        if any(m.name != name and not m.name.startswith(name + "/") for m in t):
            raise SystemExit(f"results_data: {name}.tar.xz has members outside {name}/")
        kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        t.extractall(RESULTS, **kw)
    return path(name)


def main(argv):
    if len(argv) < 2 or argv[0] not in ("list", "cat", "extract", "pack"):
        print(__doc__[__doc__.index("Command line"):].split("\n\n")[0], file=sys.stderr)
        return 2
    cmd, args = argv[0], argv[1:]
    for a in args:
        name = os.path.basename(os.path.normpath(a))
        if cmd == "list":
            name = name.removesuffix(".tar.xz")
            for n in sorted(members(path(name + ".tar.xz"))):
                print(n)
        elif cmd == "cat":
            sys.stdout.buffer.write(read_bytes(a))
        elif cmd == "extract":
            print(_extract(name))
        else:
            print(_pack(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
