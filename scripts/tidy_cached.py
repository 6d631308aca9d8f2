#!/usr/bin/env python3
"""clang-tidy with a result cache: a file whose check passed before is not checked again.

usage: tidy_cached.py BUILD_DIR FILE...
       tidy_cached.py BUILD_DIR --list     the files scripts/lint.sh checks (see below)

For each FILE the compile commands come from BUILD_DIR/compile_commands.json. The key of
a result is the SHA-256 of: clang-tidy's version, the .clang-tidy files that apply to
FILE (its directory's and every parent's up to the source tree), each compile command of
FILE and the preprocessed text it gives (so a change in any header it includes is a new
key), with the source and build directories written as placeholders, so that a fresh
clone elsewhere (CI after a rehearsal) finds what the rehearsal checked. Only clean results
are kept: a file with a finding is checked, and its findings printed, every time. Files
run in parallel, one per core. The cache lives in $ZCOLL_TIDY_CACHE (default
~/.cache/zcoll-tidy); set ZCOLL_TIDY_CACHE=off to check everything.

Preprocessing every file for its key costs a second or so of a core per file, the most of
a run in which nothing changed. So, as ccache's direct mode does, a clean result also
records a manifest: the files that preprocessing read (the compiler's -MD list) with the
SHA-256 of each. The manifest's name hashes everything of the key except the preprocessed
text; when every file it lists still has its recorded hash, the preprocessed text is the
same, and so is the key: the result is found without preprocessing (as with
ccache, a new header that would shadow one the manifest lists goes unnoticed until the
file or a header it reads changes).

--list prints every C/C++ source of the source tree that BUILD_DIR compiles: the files of
compile_commands.json with a C or C++ suffix (and CUDA .cu files that a command compiles as
C++, `-x c++`: the CPU emulation's), outside BUILD_DIR, outside any other build directory
in the tree (one with a CMakeCache.txt) and outside bench/reports (the reports' measurement
programs: records, kept as they ran).
Exit status: 0 when every file is clean, 1 otherwise.
"""

import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# suffixes of the C and C++ sources clang-tidy reads as they are
C_CXX = (".c", ".cc", ".cpp", ".cxx")


def compile_commands(build):
    """Every compile command of each file: {path: [(directory, args), ...]} (a source
    built into two targets, e.g. the library and the PMPI shim's copy, has two)."""
    entries = json.loads((build / "compile_commands.json").read_text())
    by_file = {}
    for e in entries:
        args = e.get("arguments") or shlex.split(e["command"])
        by_file.setdefault(str(Path(e["directory"], e["file"]).resolve()), []).append((e["directory"], args))
    return by_file


def compiled_as_cxx(args):
    return any(a == "-x" and b == "c++" for a, b in zip(args, args[1:])) or "-xc++" in args


def tidy_sources(build, commands):
    """The sources of the tree that clang-tidy can check with BUILD_DIR's commands (--list)."""
    out = []
    for path, entries in commands.items():
        p = Path(path)
        if ROOT not in p.parents or build == p or build in p.parents:
            continue
        rel = p.relative_to(ROOT)
        if rel.parts[:2] == ("bench", "reports"):
            continue
        if any((d / "CMakeCache.txt").exists() for d in p.parents if ROOT in d.parents):
            continue  # another build directory inside the tree (generated sources)
        # a .cu file only where every command compiles it as C++ (the CUDA emulation);
        # nvcc's commands are not clang's
        if p.suffix in C_CXX or (p.suffix == ".cu" and all(compiled_as_cxx(a) for _, a in entries)):
            out.append(str(rel))
    return sorted(out)


def tidy_configs(path):
    """The .clang-tidy files that apply to path: the tree's and any below it on the way
    (InheritParentConfig), as bytes for the cache key."""
    out = b""
    for d in reversed(Path(path).parents):
        if d == ROOT or ROOT in d.parents:
            f = d / ".clang-tidy"
            if f.exists():
                out += str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes()
    return out


def strip_launcher(args):
    """The compiler and its flags, without a launcher (env ... ccache) before them."""
    i = 0
    while i < len(args) and (args[i].endswith("env") or "=" in args[i] or args[i].endswith("ccache")):
        i += 1
    return args[i:]


def preprocess_args(args, depfile):
    """The compile command turned into `-E -P` to stdout (no -o, no -c, no dependency files
    but `depfile`, the list of files it reads)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith(("-o", "-MF")):
            continue
        out.append(a)
    return out + ["-E", "-P", "-o", "-", "-MD", "-MF", depfile, "-MT", "x"]


def depfile_paths(text, directory):
    """The files of a make-style dependency list (`x: a b \\` lines; `\\ ` escapes a space)."""
    text = text.split(":", 1)[1] if ":" in text else ""
    words = text.replace("\\\n", " ").replace("\\ ", "\0").split()
    return sorted({str(Path(directory, w.replace("\0", " ")).resolve()) for w in words})


def file_hash(path, memo):
    if path not in memo:
        try:
            memo[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            memo[path] = None
    return memo[path]


class Keys:
    """The cache key of a file (see the module's text), from its manifest when that holds."""

    def __init__(self, build, salt, cache):
        self.build, self.salt, self.cache = build, salt, cache
        self.memo = {}  # path -> SHA-256 of its content (headers are read by many files)

    def norm(self, b):
        return b.replace(str(self.build).encode(), b"@BUILD@").replace(str(ROOT).encode(), b"@SRC@")

    def place(self, path):  # a path with the placeholders, and back
        return self.norm(path.encode()).decode()

    def unplace(self, path):
        return path.replace("@BUILD@", str(self.build)).replace("@SRC@", str(ROOT))

    def key(self, path, entries):
        """(key, manifest): the manifest to write once the result is clean ((path, {file:
        SHA-256}); None when the key came from it). key None: preprocessing failed."""
        h = hashlib.sha256(self.salt)
        h.update(tidy_configs(path))
        h.update(str(Path(path).relative_to(ROOT)).encode())
        commands = [strip_launcher(args) for _, args in entries]
        for args in commands:
            h.update(self.norm(" ".join(args).encode()))
        manifest = self.cache / ("manifest-" + h.hexdigest()) if self.cache else None
        if manifest and manifest.exists():
            try:
                m = json.loads(manifest.read_text())
                if all(file_hash(self.unplace(f), self.memo) == d for f, d in m["files"].items()):
                    return m["key"], None
            except (ValueError, KeyError, AttributeError):
                pass  # an unreadable manifest: preprocess, and write it again
        read = set()
        with tempfile.TemporaryDirectory() as tmp:
            for (directory, _), args in zip(entries, commands):
                dep = os.path.join(tmp, "deps")
                pre = subprocess.run(preprocess_args(args, dep), cwd=directory, capture_output=True)
                if pre.returncode != 0:
                    return None, None  # clang-tidy will say what is wrong
                h.update(self.norm(pre.stdout))
                read.update(depfile_paths(Path(dep).read_text(), directory))
        return h.hexdigest(), (manifest, {self.place(f): file_hash(f, self.memo) for f in read})

    def remember(self, key, manifest):
        """After a clean check: the result, and the manifest that finds it next time."""
        (self.cache / key).touch()
        if manifest and all(manifest[1].values()):
            manifest[0].write_text(json.dumps({"key": key, "files": manifest[1]}))


def check(path, entries, keys):
    key, manifest = keys.key(path, entries) if keys.cache else (None, None)
    if key and (keys.cache / key).exists():
        keys.remember(key, manifest)  # a new manifest: the result came from preprocessing
        return path, True, "", True
    # clang-tidy checks the file once per compile command it has
    r = subprocess.run(["clang-tidy", "-p", str(keys.build), "--quiet",
                        "--extra-arg=-Wno-unknown-warning-option", "--extra-arg=-Wno-error", path],
                       capture_output=True, text=True)
    text = (r.stdout + r.stderr).strip()
    # clang-tidy prints "N warnings generated" for warnings it suppressed (other headers)
    findings = [ln for ln in text.splitlines() if "warning:" in ln or "error:" in ln]
    ok = r.returncode == 0 and not findings
    if ok and key:
        keys.remember(key, manifest)
    return path, ok, text if not ok else "", False


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    build = Path(sys.argv[1]).resolve()
    commands = compile_commands(build)
    if sys.argv[2:] == ["--list"]:
        print("\n".join(tidy_sources(build, commands)))
        return 0
    files = [str(Path(f).resolve()) for f in sys.argv[2:]]
    missing = [f for f in files if f not in commands]
    if missing:
        print("tidy_cached: no compile command for: " + " ".join(missing), file=sys.stderr)
        return 1
    setting = os.environ.get("ZCOLL_TIDY_CACHE", str(Path.home() / ".cache" / "zcoll-tidy"))
    cache = None if setting == "off" else Path(setting)
    if cache:
        cache.mkdir(parents=True, exist_ok=True)
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True).stdout
    salt = version
    keys = Keys(build, salt, cache)
    failed = hits = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        jobs = [pool.submit(check, f, commands[f], keys) for f in files]
        for job in concurrent.futures.as_completed(jobs):
            path, ok, text, hit = job.result()
            hits += hit
            if not ok:
                failed += 1
                print(f"tidy_cached: {os.path.relpath(path, ROOT)}:\n{text}", file=sys.stderr)
    print(f"tidy_cached: {len(files)} files, {hits} clean in the cache, {failed} with findings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
