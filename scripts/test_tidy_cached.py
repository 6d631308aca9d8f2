"""tidy_cached.py's keys and manifests (scripts/test.sh runs this with pytest): a manifest
finds the key without preprocessing only while every file it lists is unchanged."""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tidy_cached  # noqa: E402


def test_depfile_paths_reads_continuations_and_escaped_spaces(tmp_path):
    text = "x: a.cc \\\n  inc/b.h my\\ dir/c.h\n"
    got = tidy_cached.depfile_paths(text, tmp_path)
    assert got == sorted(str((tmp_path / p).resolve()) for p in ("a.cc", "inc/b.h", "my dir/c.h"))


def test_manifest_finds_the_key_until_a_file_it_read_changes():
    # the source must lie inside the tree (keys name it relative to the tree)
    with tempfile.TemporaryDirectory(dir=tidy_cached.ROOT) as src, tempfile.TemporaryDirectory() as cache:
        src = Path(src)
        (src / "b.h").write_text("inline int b() { return 1; }\n")
        (src / "a.cc").write_text('#include "b.h"\nint a() { return b(); }\n')
        entries = [(str(src), ["g++", "-std=c++17", "-c", "a.cc", "-o", "a.o"])]
        keys = tidy_cached.Keys(src / "build", b"salt", Path(cache))
        key, manifest = keys.key(str(src / "a.cc"), entries)
        assert key and manifest
        keys.remember(key, manifest)
        assert keys.key(str(src / "a.cc"), entries) == (key, None)  # through the manifest

        # a comment: the manifest no longer holds, the preprocessed text (and key) is the same
        (src / "b.h").write_text("// a comment\ninline int b() { return 1; }\n")
        keys = tidy_cached.Keys(src / "build", b"salt", Path(cache))
        again, manifest = keys.key(str(src / "a.cc"), entries)
        assert again == key and manifest
        keys.remember(key, manifest)
        assert keys.key(str(src / "a.cc"), entries) == (key, None)

        # code in the header: a new key, found by preprocessing
        (src / "b.h").write_text("inline int b() { return 2; }\n")
        keys = tidy_cached.Keys(src / "build", b"salt", Path(cache))
        other, manifest = keys.key(str(src / "a.cc"), entries)
        assert other != key and manifest

        # another command line: another manifest
        flags = [(str(src), ["g++", "-std=c++17", "-O2", "-c", "a.cc", "-o", "a.o"])]
        assert keys.key(str(src / "a.cc"), flags)[1] is not None
