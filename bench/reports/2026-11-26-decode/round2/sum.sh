#!/usr/bin/env bash
# sum.sh FILES...: B/A per case and kernel over runs: min..max
awk '/^==/{c=$2" "$3} /B\/A/{k=c" "$1; v=$8; if(!(k in mn)||v<mn[k])mn[k]=v; if(!(k in mx)||v>mx[k])mx[k]=v; if(!(k in o)){o[k]=++n; key[n]=k}} END{for(i=1;i<=n;i++)printf "%-38s %.3f..%.3f\n", key[i], mn[key[i]], mx[key[i]]}' "$@"
