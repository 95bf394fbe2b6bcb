#!/usr/bin/env bash
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $B/*.diff $R/
for v in a b; do
  timeout 90 $B/b/tests-planted-$v --gtest_filter='KernelProperties.Wgmma168*' > $R/planted-$v.log 2>&1; echo "planted-$v rc=$?" >> $R/rc.txt
done
S="1024,5376,4096;1024,5376,5376;2048,5376,5376"
for round in 1 2; do
  $B/b/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes "$S" --out-dtype both --reps 20 --json $R/p2-$round.json > $R/p2-$round.log 2>&1; echo "p2-$round rc=$?" >> $R/rc.txt
  ORDO_WGMMA_PENDING=1 $B/b/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes "$S" --out-dtype both --reps 20 --json $R/p1-$round.json > $R/p1-$round.log 2>&1; echo "p1-$round rc=$?" >> $R/rc.txt
done
timeout 360 $B/b/ordo verify --level 2 --require-gpu --kernel sm90.fwd.bf16.wgmma.128x256x64 --out $R/verify-l2 > $R/verify-l2.log 2>&1; echo "verify-l2 rc=$?" >> $R/rc.txt
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
