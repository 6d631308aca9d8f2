"""tick_share.py DIR - share of single-repeat collective times (>= 8 ms) that lie within
0.25 ms of a multiple of 4 ms (the kernel tick at CONFIG_HZ=250), per host count and size
band, over a sweep directory's runs/*.json (under bench/results/: read from its archive unless
unpacked). Residues spread evenly would give 12.5 %."""
import os,sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)
# share of single-repeat times within 0.25 ms of a multiple of 4 ms (uniform residues: 12.5 %)
D=sys.argv[1]
for h in ('h2','h4'):
  for lo,hi in ((1,4),(16,64)):
    n=k=0
    for f in rd.glob(D+'/runs/%s_*.json'%h):
      for x in rd.load_json(f)['rows']:
        if lo<= x['bytes']>>20 <=hi:
          for t in x['time_coll_us']['repeats']:
            if t<8000: continue
            r=(t/1000.0)%4.0; n+=1; k+= (r<0.25 or r>3.75)
    print(h,'%d-%d MiB'%(lo,hi),'times >= 8 ms:',n,'near a 4 ms multiple: %.0f %%'%(100.0*k/max(n,1)))
