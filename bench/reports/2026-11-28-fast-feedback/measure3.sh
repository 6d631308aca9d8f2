#!/bin/bash
# fresh clone + test.sh (run A), touch one source + test.sh (run B)
set -u
bash /work/main/bench/reports/2026-11-28-fast-feedback/rehearse.sh m3 > /tmp/m3-fresh.log 2>&1
cp /tmp/ci-m3/main/build/test_phases.json /tmp/m3-fresh.json
cd /tmp/ci-m3/main && touch src/codec/stream.cc && s=$SECONDS && CI=true bash .ci/run < /dev/null > /tmp/m3-second.log 2>&1; echo "second: rc=$? in $((SECONDS - s)) s" >> /tmp/m3-second.log
cp /tmp/ci-m3/main/build/test_phases.json /tmp/m3-second.json
