#!/usr/bin/env bash
set -u
B=$(pwd)/gpu-bundle; tar xzf $B/bin.tgz -C $B
R=$OUT/r; mkdir -p $R
cp $B/COMMIT $R/
X=$B/b/x
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" > $R/rc.txt
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis"
timeout 80 $NCU --clock-control none $SEC -k 'regex:f32_by_shape|gemm|splitK|reduce' $X/ordo_bench_forward --variant sm80.fwd.f32.fma.simt.by-shape --shapes 64,5376,5376 --reps 1 --warmup 0 > $R/ncu-fwd-64x5376x5376.log 2>&1; echo "fwd rc=$?" >> $R/rc.txt
timeout 80 $NCU --clock-control none $SEC -k 'regex:f32_by_shape|gemm|splitK|reduce' $X/ordo_bench_backward --ops dx --shapes 64,5376,5376 --reps 1 --warmup 0 > $R/ncu-dx-64x5376.log 2>&1; echo "dx rc=$?" >> $R/rc.txt
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
