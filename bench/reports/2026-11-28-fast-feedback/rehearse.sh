#!/bin/bash
# rehearse.sh TAG: clean clone of main into /tmp/ci-TAG/main with shared beside, run .ci/run
set -u
T=/tmp/ci-$1
rm -rf $T && mkdir -p $T && ln -s /work/shared $T/shared
git clone -q /work/main $T/main
cd $T/main && git log --oneline -1
s=$SECONDS
CI=true bash .ci/run < /dev/null
rc=$?
echo "rehearse: rc=$rc in $((SECONDS - s)) s"
