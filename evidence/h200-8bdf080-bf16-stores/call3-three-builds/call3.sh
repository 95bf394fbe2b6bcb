#!/usr/bin/env bash
# Three builds in one machine: old (c49741a), x (staged-store addresses without per-store division), reb (x and
# setmaxnreg: producer warpgroup 40/56 registers, consumers 232/224). GPU tests of the wgmma variants on x and
# reb, every BF16 seed row on each build (alternating, two rounds of the forward), verify on reb (level 1 on
# the three wgmma variants, and the forward's batch and shard properties at 1,000 cases), golden vectors.
set -u
B=$(pwd)/gpu-bundle; tar xf $B/bin.txz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $R/
O=$B/b/old
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
t() { local name=$1; shift; local S=$(date +%s); "$@"; echo "$name rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt; }
cd $R
for b in reb x; do t tests-$b timeout 150 $B/b/$b/ordo_gpu_tests --gtest_filter='*Wgmma*:*wgmma*' > $R/gpu-tests-wgmma-$b.log 2>&1; done
F="--variant sm90.fwd.bf16.wgmma.128x256x64 --out-dtype both --reps 20"
BW="--dtype bf16 --dx-variant sm90.bwd.dx.bf16.wgmma.128x256x64 --dw-variant sm90.bwd.dw.bf16.wgmma.128x256x64 --reps 10"
for i in 1 2; do
  for b in old x reb; do t fwd-$b-$i timeout 60 $B/b/$b/ordo_bench_forward $F --json $R/fwd-$b-$i.json > $R/fwd-$b-$i.log 2>&1; done
done
for b in old x reb; do t bwd-$b timeout 90 $B/b/$b/ordo_bench_backward $BW --json $R/bwd-$b.json > $R/bwd-$b.log 2>&1; done
X=$B/b/reb
K="--kernel sm90.fwd.bf16.wgmma.128x256x64 --kernel sm90.bwd.dx.bf16.wgmma.128x256x64 --kernel sm90.bwd.dw.bf16.wgmma.128x256x64"
t verify-l1 timeout 150 $X/ordo verify --require-gpu $K --out $R/verify-l1 > $R/verify-l1.log 2>&1
t verify-fwd-1000 timeout 80 $X/ordo verify --require-gpu --kernel sm90.fwd.bf16.wgmma.128x256x64 --cases 1000 --property forward.kernel_batch_invariance --property forward.kernel_column_shard_equals_slice --out $R/verify-fwd-1000 > $R/verify-fwd-1000.log 2>&1
t golden timeout 60 $X/ordo record-golden --out $R/golden-all > $R/golden.log 2>&1
mkdir -p $R/golden && cp $R/golden-all/sm90.*wgmma* $R/golden/ && rm -rf $R/golden-all
cd $B/..
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
