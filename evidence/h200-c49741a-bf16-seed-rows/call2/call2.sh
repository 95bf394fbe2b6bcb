#!/usr/bin/env bash
# A second round of the forward rows, the probe, golden vectors, and Nsight Compute on 4096 x 5376 x 4096.
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $R/
X=$B/b/x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
cd $R
S=$(date +%s)
timeout 100 $X/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --out-dtype both --reps 20 --json $R/fwd-2.json > $R/fwd-2.log 2>&1; echo "fwd2 rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt
S=$(date +%s)
timeout 60 $X/ordo probe --out $R/probe > $R/probe.log 2>&1; echo "probe rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt
S=$(date +%s)
timeout 60 $X/ordo record-golden --out $R/golden > $R/golden.log 2>&1; echo "golden rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt
python3 $B/golden_compare.py committed $B/../corpus/golden $R/golden > $R/golden-compare.log 2>&1; echo "compare rc=$?" >> $R/rc.txt
rm -rf $R/golden
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis"
S=$(date +%s)
timeout 150 $NCU --clock-control none $SEC -k 'regex:wgmma|nvjet|gemm|Kernel' -o $R/ncu-fwd-4096x5376x4096 $X/ordo_bench_forward --variant sm90.fwd.bf16.wgmma.128x256x64 --shapes 4096,5376,4096 --reps 1 --warmup 0 > $R/ncu-fwd-4096x5376x4096.log 2>&1; echo "ncu rc=$? $(( $(date +%s) - S ))s" >> $R/rc.txt
$NCU --import $R/ncu-fwd-4096x5376x4096.ncu-rep --page details --csv > $R/ncu-fwd-4096x5376x4096-details.csv 2>&1
$NCU --import $R/ncu-fwd-4096x5376x4096.ncu-rep --page details > $R/ncu-fwd-4096x5376x4096.txt 2>&1
rm -f $R/ncu-fwd-4096x5376x4096.ncu-rep
cd $B/..
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
