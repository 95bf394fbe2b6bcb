#pragma once
// How closely a kernel's Y must match cuBLAS's Y in ordo_bench_forward. The check is there so that a
// broken kernel is never reported as a fast one; the bitwise verdicts belong to `ordo verify`. The
// statistic is max|y - y_cublas| / max|y_cublas|, and the inputs are uniform in [-1, 1].
#include <cmath>

#include "core/dtype.h"

namespace ordo::bench {

// FP32 operands, FP32 output: both sides are FP32 FMA chains in different orders; their difference is
// rounding noise, well below 1e-4 of max|y| at these K.
inline constexpr double kTolF32Operands = 1e-4;

// BF16 operands, FP32 output. Every product of two bf16 values is exact in FP32, so the two results
// differ only by how each accumulates: the kernel's tensor-core chain (truncating alignment, a few
// 2^-24 relative per 16-wide step) against cuBLAS's own order and split-K. That noise grows like the
// square root of the number of steps times the FP32 unit of the partial sums: a few 1e-6 of max|y| at
// K = 5376. A broken kernel is far off: one dropped or repeated k term moves an output by up to
// |x w| ~ 1 against max|y| ~ 6 sqrt(K/9) ~ 150 (about 7e-3 of it), a lost 16-wide k step by several
// 1e-2, a wrong row or column by O(1). So 1e-3 is generous for rounding noise yet catches such faults.
inline constexpr double kTolBf16F32Out = 1e-3;

// The relative tolerance of a row. BF16 output: both sides round their FP32 result once to bf16, and
// two FP32 values a little apart can round to neighbouring bf16 values, so the bound adds one bf16 ulp
// of max|y_cublas| (2^(e-7) for max|y| in [2^e, 2^(e+1)), the largest ulp any output can have) to the
// FP32-output tolerance.
inline double relative_tolerance(DType operand, DType out, double max_y) {
  if (operand == DType::f32) return kTolF32Operands;
  if (out != DType::bf16 || !(max_y > 0) || !std::isfinite(max_y)) return kTolBf16F32Out;
  return std::ldexp(1.0, std::ilogb(max_y) - 7) / max_y + kTolBf16F32Out;
}

}  // namespace ordo::bench
