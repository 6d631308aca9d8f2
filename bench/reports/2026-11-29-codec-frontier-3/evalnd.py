import json, subprocess, sys, re, glob, os
Z = sys.argv[1]; extra = sys.argv[2:]
for f in sorted(glob.glob('/work/shared/data/*.f32')):
    b = os.path.basename(f)[:-4]; dims = re.search(r'(\d+(x\d+)*)$', b).group(1)
    for r in ('1e-2', '1e-3', '1e-4'):
        d = json.loads(subprocess.check_output([Z, 'eval', '-i', f, '--type', 'f32', '--rel', r, '--codec', 'dense', '--dims', dims, '--threads', '1', '--json'] + extra))
        print(f"{b[:28]:28s} {r} ratio {d['ratio']:8.2f} err/eb {d['err_over_eb']:.3f} c {d['compress_gbps']:.2f} d {d['decompress_gbps']:.2f} raw {d['raw_chunks']} ok {d['bound_ok']}", flush=True)
