#!/bin/bash
# fresh_machine.sh: on a fresh machine (nothing installed), clone main to /tmp/fresh/main with
# shared beside it, then: bash fresh_machine.sh (demo.sh, then test.sh, each timed)
cd /tmp/fresh/main
s=$SECONDS; bash scripts/demo.sh < /dev/null > /tmp/fresh/demo.log 2>&1; echo "demo: rc=$? in $((SECONDS - s)) s" >> /tmp/fresh/demo.log
s=$SECONDS; CI=true bash scripts/test.sh < /dev/null > /tmp/fresh/test.log 2>&1; echo "test: rc=$? in $((SECONDS - s)) s" >> /tmp/fresh/test.log
cp build/test_phases.json /tmp/fresh/test_phases.json 2>/dev/null
uptime >> /tmp/fresh/test.log
