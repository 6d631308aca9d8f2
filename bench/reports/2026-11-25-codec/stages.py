#!/usr/bin/env python3
"""stages.py CALLGRIND_OUT LIBZCOLL_SO [--n N] — instructions of one codec call, split by
stage. Reads a callgrind file recorded with --dump-instr=yes (instruction addresses),
maps every address of libzcoll.so to its chain of inlined functions (addr2line -i,
the library built with -g) and charges it to the first stage whose pattern matches a
function of that chain (innermost first). Prints Ir per stage and per value when --n
is given. Addresses in other objects (libc, libgomp) are charged to their object:
libc's memmove/memcpy there is the chunk compaction and raw-chunk copies."""
import argparse
import collections
import re
import subprocess

# (stage, regex on a function name of the inline chain). Order matters: the first
# pattern that matches any function of the chain, scanning innermost first, wins.
STAGES = [
    ("range pass", r"range_of|range_typed|range_scalar|range_avx2\w*|range_step|range_finish"),
    ("quantize", r"quant8|quant4|round8|quantize_block|block_passes_checks|make_qv"),
    ("scalar fallback block", r"block_deltas_scalar|encode_block|quantize_value|scalar_block"),
    ("block width", r"hor_or|hmax_epu32|code_length|bit_width"),
    ("predict (deltas, qmax)", r"block_deltas|block_deltas_avx2"),
    ("bit-plane pack", r"write_planes|byte_plane|pack_planes|pack_byte_planes|store_bit_planes"),
    ("hom plane adder", r"add_planes|copy_words|copy_planes|add_blocks|add8|planes8|sign_plane|"
     r"store32|up"),
    ("hom block loop", r"combine_blocks\w*"),
    ("hom chunk (float path, framing)", r"hom_add_chunk|float_path_chunk|hom_binary"),
    ("bit-plane unpack", r"read_planes|decode_block|unpack_planes\w*|bytes_of_planes|"
     r"transpose8x8|swap_bits|load_plane_words"),
    ("dequantize+store", r"emit8|emit4|emit_const|dequant4|emit"),
    ("prefix sum (with carry, widening)", r"prefix8|prefix_halves16|last_word_of_halves|"
     r"deltas_to_codes|codes16_emit|codes32_emit"),
    ("chunk validation", r"validate_quantized_chunk|validate_chunks|parse_stream|validate_all_chunks"),
    ("raw chunk", r"write_raw_chunk|decompress_raw_chunk"),
    ("chunk framing (block loop, lengths, padding)",
     r"compress_chunk\w*|decompress_chunk\w*|decode_block_avx2|vector_block|begin_quant_chunk|"
     r"finish_quant_chunk|avx2_\w+|scalar_\w+|value_order"),
    ("stream (chunk index, compaction, threads)", r"produce_chunks|compact_runs|compress_range|"
     r"compress_typed|decompress_range|decompress_impl|decode_chunk|zcoll_\w+"),
]


def bare(fn):
    """zcoll::(anonymous namespace)::f<float, float __vector(8)>(float const*, ...) -> f"""
    fn = re.sub(r" \[clone [^]]*\]", "", fn).strip()

    def strip_group(s, close, open_):  # drop a trailing balanced (...) or <...>
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += s[i] == close
            depth -= s[i] == open_
            if depth == 0:
                return s[:i]
        return s

    if fn.endswith(")"):  # the argument list
        fn = strip_group(fn, ")", "(")
    while fn.endswith(">"):  # template arguments (which may hold parentheses)
        fn = strip_group(fn, ">", "<")
    return fn.split("::")[-1].split(" ")[-1]


def parse(path):
    """{(object, address): Ir} of exclusive costs."""
    cost = collections.Counter()
    names = {}
    ob = None
    pos = 0
    skip_next = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            m = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line)
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                if line.startswith("ob="):
                    ob = names.get(m.group(1), m.group(1))
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if c.isdigit() or c in "+-*" or line.startswith("0x"):
                parts = line.split()
                p = parts[0]
                if p == "*":
                    pass
                elif p.startswith("0x"):
                    pos = int(p, 16)
                elif p[0] in "+-":
                    pos += int(p)
                else:
                    pos = int(p)
                if skip_next:
                    skip_next = False
                    continue
                cost[(ob, pos)] += int(parts[-1])
    return cost


def inline_chains(lib, addrs):
    out = subprocess.run(["addr2line", "-i", "-f", "-C", "-a", "-e", lib],
                         input="\n".join(hex(a) for a in addrs), capture_output=True,
                         text=True, check=True).stdout.splitlines()
    chains, cur, i = {}, None, 0
    while i < len(out):
        if out[i].startswith("0x") and (i + 1 < len(out)):
            cur = int(out[i], 16)
            chains[cur] = []
            i += 1
            continue
        chains[cur].append(out[i])  # function name; the next line is file:line
        i += 2
    return chains


def stage_of(chain):
    names = [bare(fn) for fn in chain]
    for pat_stage, pat in STAGES:
        for fn in names:
            if re.fullmatch(pat, fn):
                return pat_stage
    return "other (" + (chain[-1][:40] if chain else "?") + ")"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cg")
    ap.add_argument("lib")
    ap.add_argument("--n", type=float, default=0, help="values of the call (Ir per value)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cost = parse(a.cg)
    lib_cost = {addr: ir for (ob, addr), ir in cost.items() if ob and "libzcoll" in ob}
    chains = inline_chains(a.lib, sorted(lib_cost))
    split = collections.Counter()
    for addr, ir in lib_cost.items():
        split[stage_of(chains.get(addr, []))] += ir
    for (ob, addr), ir in cost.items():
        if not (ob and "libzcoll" in ob):
            split["outside libzcoll: " + (ob or "?").split("/")[-1]] += ir
    total = sum(split.values())
    if a.json:
        import json
        print(json.dumps({"values": a.n, "total": total, "stages": dict(split)}))
        return
    for st, ir in split.most_common():
        per = f"  {ir / a.n:6.2f}/value" if a.n else ""
        print(f"{ir:12,d} {100 * ir / total:5.1f}%{per}  {st}")
    print(f"{total:12,d} total" + (f"  {total / a.n:.2f}/value" if a.n else ""))


if __name__ == "__main__":
    main()
