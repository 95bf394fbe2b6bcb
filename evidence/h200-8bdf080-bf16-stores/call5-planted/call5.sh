#!/usr/bin/env bash
# A planted defect: the staged stores' swizzle key of row r taken as (r + 1) % 8. The wgmma GPU tests must fail.
set -u
B=$(pwd)/gpu-bundle; tar xf $B/bin.txz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $B/planted.diff $R/
timeout 150 $B/b/planted/ordo_gpu_tests --gtest_filter='*Wgmma*:*wgmma*' > $R/gpu-tests-wgmma-planted.log 2>&1; echo "tests rc=$?" >> $R/rc.txt
cd $B/..
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
