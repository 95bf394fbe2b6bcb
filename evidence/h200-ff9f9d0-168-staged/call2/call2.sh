#!/usr/bin/env bash
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $B/*.py $R/ 2>/dev/null
S="1024,5376,4096;1024,5376,5376;2048,5376,5376;1000,5376,4096"
for round in 1 2; do
  for v in base old k2 s3; do
    $B/b/bench_$v --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes "$S" --out-dtype both --reps 20 --json $R/$v-$round.json > $R/$v-$round.log 2>&1; echo "$v-$round rc=$?" >> $R/rc.txt
  done
done
timeout 200 $B/b/tests_base > $R/gpu-tests-base.log 2>&1; echo "gpu-tests-base rc=$?" >> $R/rc.txt
for v in k2 s3; do
  timeout 100 $B/b/tests_$v --gtest_filter='*Wgmma*' > $R/gpu-tests-$v.log 2>&1; echo "gpu-tests-$v rc=$?" >> $R/rc.txt
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
