#!/usr/bin/env bash
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $B/*.diff $R/
ORDO_WGMMA_GATHER=tma timeout 150 $B/b/ordo_gpu_tests --gtest_filter='WgmmaDw.*:*BackwardKernels*:*Backward*Wgmma*' > $R/tests-tma.log 2>&1; echo "tests-tma rc=$?" >> $R/rc.txt
S="1024,5376,5376;1024,5376,4096;4096,5376,5376;4096,5376,4096;16384,5376,5376;16384,5376,4096"
BW="--dtype bf16 --dx-variant sm90.bwd.dx.bf16.wgmma.128x256x64 --dw-variant sm90.bwd.dw.bf16.wgmma.128x256x64 --ops dw-gather --reps 10"
for round in 1 2; do
  timeout 120 $B/b/ordo_bench_backward $BW --shapes "$S" --json $R/cpasync-$round.json > $R/cpasync-$round.log 2>&1; echo "cpasync-$round rc=$?" >> $R/rc.txt
  ORDO_WGMMA_GATHER=tma timeout 120 $B/b/ordo_bench_backward $BW --shapes "$S" --json $R/tma-$round.json > $R/tma-$round.log 2>&1; echo "tma-$round rc=$?" >> $R/rc.txt
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
