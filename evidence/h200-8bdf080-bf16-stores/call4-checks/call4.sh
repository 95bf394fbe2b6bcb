#!/usr/bin/env bash
# 8bdf080 (the staged-store fix, no setmaxnreg): verify on the three wgmma variants at level 1, the forward's
# batch and shard properties at 1,000 cases, the backward at level 2, golden vectors.
set -u
B=$(pwd)/gpu-bundle; tar xf $B/bin.txz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $R/
X=$B/b/x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
t() { local name=$1; shift; local S=$(date +%s); "$@"; echo "$name rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt; }
cd $R
K="--kernel sm90.fwd.bf16.wgmma.128x256x64 --kernel sm90.bwd.dx.bf16.wgmma.128x256x64 --kernel sm90.bwd.dw.bf16.wgmma.128x256x64"
t verify-l1 timeout 100 $X/ordo verify --require-gpu $K --out $R/verify-l1 > $R/verify-l1.log 2>&1
t verify-fwd-1000 timeout 60 $X/ordo verify --require-gpu --kernel sm90.fwd.bf16.wgmma.128x256x64 --cases 1000 --property forward.kernel_batch_invariance --property forward.kernel_column_shard_equals_slice --out $R/verify-fwd-1000 > $R/verify-fwd-1000.log 2>&1
t golden timeout 60 $X/ordo record-golden --out $R/golden-all > $R/golden.log 2>&1
mkdir -p $R/golden && cp $R/golden-all/sm90.*wgmma* $R/golden/ && rm -rf $R/golden-all
t verify-l2-bwd timeout 330 $X/ordo verify --level 2 --require-gpu --kernel sm90.bwd.dx.bf16.wgmma.128x256x64 --kernel sm90.bwd.dw.bf16.wgmma.128x256x64 --out $R/verify-l2-bwd > $R/verify-l2-bwd.log 2>&1
cd $B/..
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
