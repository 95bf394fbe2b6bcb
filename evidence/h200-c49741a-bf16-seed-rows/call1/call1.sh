#!/usr/bin/env bash
# BF16 wgmma at one commit: qualification suite (level 2) on the three wgmma variants, then every seed row
# of the forward (FP32 and BF16 Y) and the backward against cuBLAS.
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $R/
X=$B/b/x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
cd $R
S=$(date +%s)
timeout 330 $X/ordo verify --level 2 --require-gpu --kernel sm90.fwd.bf16.wgmma.128x256x64 --kernel sm90.bwd.dx.bf16.wgmma.128x256x64 --kernel sm90.bwd.dw.bf16.wgmma.128x256x64 --out $R/verify-l2 > $R/verify-l2.log 2>&1; echo "verify rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt
S=$(date +%s)
timeout 110 $X/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --out-dtype both --reps 20 --json $R/fwd-1.json > $R/fwd-1.log 2>&1; echo "fwd rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt
S=$(date +%s)
timeout 140 $X/ordo_bench_backward --dtype bf16 --dx-variant sm90.bwd.dx.bf16.wgmma.128x256x64 --dw-variant sm90.bwd.dw.bf16.wgmma.128x256x64 --reps 10 --json $R/bwd-1.json > $R/bwd-1.log 2>&1; echo "bwd rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt
cd $B/..
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
