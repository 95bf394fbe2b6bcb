#!/usr/bin/env bash
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $R/; nvidia-smi -q | head -40 > $R/gpu.txt
S="1024,5376,4096;1024,5376,5376;2048,5376,5376;1000,5376,4096;512,5376,5376"
for round in 1 2; do
  $B/b/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes "$S" --out-dtype both --reps 20 --json $R/new-$round.json > $R/new-$round.log 2>&1; echo "new-$round rc=$?" >> $R/rc.txt
  $B/b/ordo_bench_forward_old --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes "$S" --out-dtype both --reps 20 --json $R/old-$round.json > $R/old-$round.log 2>&1; echo "old-$round rc=$?" >> $R/rc.txt
  ORDO_WGMMA_STORES=direct $B/b/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes "$S" --out-dtype both --reps 20 --json $R/direct5-$round.json > $R/direct5-$round.log 2>&1; echo "direct5-$round rc=$?" >> $R/rc.txt
done
ORDO_TRACE_LAUNCH=1 $B/b/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes "1024,5376,4096" --out-dtype both --reps 1 --warmup 0 > $R/trace.log 2>&1
timeout 300 $B/b/ordo_gpu_tests > $R/gpu-tests.log 2>&1; echo "gpu-tests rc=$?" >> $R/rc.txt
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
