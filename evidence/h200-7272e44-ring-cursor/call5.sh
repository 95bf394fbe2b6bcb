#!/usr/bin/env bash
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $B/*.diff $R/
timeout 200 $B/b/new/ordo_gpu_tests > $R/gpu-tests-new.log 2>&1; echo "gpu-tests-new rc=$?" >> $R/rc.txt
F="--variant sm90.fwd.bf16.wgmma.128x256x64 --reps 20"
for round in 1; do
  timeout 90 $B/b/new/ordo_bench_forward $F --json $R/fwd-new-$round.json > $R/fwd-new-$round.log 2>&1; echo "fwd-new-$round rc=$?" >> $R/rc.txt
  timeout 90 $B/b/ordo_bench_forward $F --json $R/fwd-old-$round.json > $R/fwd-old-$round.log 2>&1; echo "fwd-old-$round rc=$?" >> $R/rc.txt
done
S="1024,5376,5376;1024,5376,4096;1024,16128,5376;4096,5376,5376;16384,5376,5376"
BW="--dtype bf16 --dx-variant sm90.bwd.dx.bf16.wgmma.128x256x64 --dw-variant sm90.bwd.dw.bf16.wgmma.128x256x64 --reps 10 --shapes $S"
timeout 100 $B/b/new/ordo_bench_backward $BW --json $R/bwd-new.json > $R/bwd-new.log 2>&1; echo "bwd-new rc=$?" >> $R/rc.txt
timeout 100 $B/b/ordo_bench_backward $BW --json $R/bwd-old.json > $R/bwd-old.log 2>&1; echo "bwd-old rc=$?" >> $R/rc.txt
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
