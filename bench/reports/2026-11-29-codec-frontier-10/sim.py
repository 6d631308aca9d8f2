"""sim.py LOG — predictor 5's decision rules replayed on a log of trial_log.patch
(docs/reports/2026-11-29-codec-frontier-10.md): per 2-D/3-D chunk the first
trial's ratio t (interpolation bits / code-domain bits), two other trials, a
middle window of at least 8 planes (rows in 2-D) and the whole chunk's ratio and
estimated bytes. For each rule: the worst and second-worst field-bound excess of
the estimated bytes over the better choice of every chunk, the chunks that would
take the whole-chunk estimates, and the values interpolated per value of the
fields (trials and whole chunks; a cost proxy). The log's columns 7-10 are
t, the cross window of 2^15 and of 2^14 values (the columns log: a column
window in 3-D too, 2^15 and 2^16), and a middle window of at least 8 planes;
the rules named "t4/t6/t8units" read them by those old names, and the
combos read the two cross windows."""
import sys, collections
rows=[]
for l in open(sys.argv[1]):
    p=l.split()
    f,b=p[0],p[1]; nd,ln,unit=int(p[3]),int(p[4]),int(p[5])
    t,t4,t6,t8,w=map(float,p[6:11]); ib,cb=float(p[12]),float(p[13])
    rows.append(dict(f=f,b=b,nd=nd,ln=ln,unit=unit,t=t,t4=t4,t6=t6,t8=t8,w=w,ib=ib,cb=cb))
def size(m,unit,ln): return min(ln,max(32768,m*unit))
def run(name, decide):
    fields=collections.defaultdict(lambda:[0,0]); cost=0; whole=0
    for r in rows:
        d,c,wh=decide(r)
        cost+=c; whole+=wh
        ch = r['ib'] if d=='i' else r['cb']
        fields[(r['f'],r['b'])][0]+=ch; fields[(r['f'],r['b'])][1]+=min(r['ib'],r['cb'])
    ex=sorted(((v[0]/v[1]-1)*100,k) for k,v in fields.items())
    tot=sum(r['ln'] for r in rows)
    print(f"{name:28s} worst {ex[-1][0]:6.2f}% {ex[-1][1]}  2nd {ex[-2][0]:5.2f}% {ex[-2][1][0][:20]} {ex[-2][1][1]}  whole {whole:3d}  interp-values/total {cost/tot:.3f}")
def trial_rule(key, m, lo=1.0, hi=1.0):
    def d(r):
        n=size(m,r['unit'],r['ln']) if m else min(32768,r['ln'])
        c=2*n
        x=r[key]
        if x<lo: return 'i',c+r['ln'],0
        if x>=hi: return 'c',c,0
        return ('i' if r['w']<1 else 'c'), c+r['ln'], 1
    return d
run("current [1,1.25) t32k", trial_rule('t',0,1,1.25))
run("t32k alone", trial_rule('t',0))
for m,k in ((4,'t4'),(6,'t6'),(8,'t8')):
    run(f"t{m}units alone", trial_rule(k,m))
    run(f"t{m}units [1,1.1)", trial_rule(k,m,1,1.1))
    run(f"t{m}units [1,1.25)", trial_rule(k,m,1,1.25))
    run(f"t{m}units [0.95,1.05)", trial_rule(k,m,.95,1.05))
print("--- combos (t = middle trial, b = column block 32K)")
def combo(lo_t, hi_t, bk='t4', margin=1.0):
    def d(r):
        n=min(32768,r['ln']); c=2*n + (2*min(32768,r['ln']))
        t=r['t']; b=r[bk]
        if t<lo_t: return 'i', 2*n+r['ln'], 0   # interp as now
        if t>=hi_t: return 'c', 2*n, 0
        # band: consult the block
        if b>=margin: return 'c', c, 0
        return ('i' if r['w']<1 else 'c'), c+r['ln'], 1
    return d
for bk in ('t4','t6'):
  for m in (1.0, 1.02, 1.05, 1.1):
    run(f"band->block {bk} >= {m}", combo(1,1.25,bk,m))
