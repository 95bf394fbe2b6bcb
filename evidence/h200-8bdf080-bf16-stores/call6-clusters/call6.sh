#!/usr/bin/env bash
# The general forward kernel in clusters of two blocks sharing W by TMA multicast (ORDO_WGMMA_CLUSTER=2, an
# opt-in of the variant) against single blocks, at 8bdf080, M >= 1024, both output dtypes, alternating.
set -u
B=$(pwd)/gpu-bundle; tar xf $B/bin.txz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $R/
X=$B/b/x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
S="1024,5376,4096;1024,16128,5376;1024,5376,5376;4096,5376,4096;4096,16128,5376;4096,5376,5376;16384,5376,4096;16384,16128,5376;16384,5376,5376"
F="--variant sm90.fwd.bf16.wgmma.128x256x64 --out-dtype both --reps 20 --shapes $S"
for i in 1 2; do
  timeout 60 $X/ordo_bench_forward $F --json $R/fwd-c1-$i.json > $R/fwd-c1-$i.log 2>&1; echo "c1-$i rc=$?" >> $R/rc.txt
  ORDO_WGMMA_CLUSTER=2 timeout 60 $X/ordo_bench_forward $F --json $R/fwd-c2-$i.json > $R/fwd-c2-$i.log 2>&1; echo "c2-$i rc=$?" >> $R/rc.txt
done
ORDO_WGMMA_CLUSTER=2 ORDO_TRACE_LAUNCH=1 timeout 60 $X/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --reps 1 --warmup 0 --shapes "1024,5376,4096;4096,5376,4096" > $R/trace-c2.log 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
