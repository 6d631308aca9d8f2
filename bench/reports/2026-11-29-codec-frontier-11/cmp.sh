#!/usr/bin/env bash
# cmp.sh A B: the lines of two sizes.sh / sizes_cs.sh outputs whose byte counts differ, with the change.
paste -d'|' "$1" "$2" | awk -F'|' '{n=split($1,a," "); split($2,b," "); x=a[n]; y=b[n];
  if (x!=y) printf "%-40s %s %s %d -> %d  %+.4f%%\n",a[1],a[2],(n>4||a[3]=="dims"?"dims":"1-D"),x,y,100*(y-x)/x}'
