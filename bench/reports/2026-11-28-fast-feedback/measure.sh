#!/bin/bash
# measure.sh: fresh clone + test.sh (run A), touch one source + test.sh (run B); twice
set -u
for i in 1 2; do
  bash /work/main/bench/reports/2026-11-28-fast-feedback/rehearse.sh m$i > /tmp/m$i-fresh.log 2>&1
  cd /tmp/ci-m$i/main && touch src/codec/stream.cc && s=$SECONDS && CI=true bash .ci/run < /dev/null > /tmp/m$i-second.log 2>&1; echo "second: rc=$? in $((SECONDS - s)) s" >> /tmp/m$i-second.log
  cp /tmp/ci-m$i/main/build/test_phases.json /tmp/m$i-second.json
done
