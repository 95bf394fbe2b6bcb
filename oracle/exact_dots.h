#pragma once
#include <cstdint>
#include <optional>

#include "oracle/exact_sum.h"

namespace ordo::oracle {

// The batched exact engine: many dot products of binary32 vectors at once, each exact and rounded once,
// bit for bit what Superaccumulator gives (same special-value and signed-zero policy, superaccumulator.h).
// Made for the M x N outputs of a generated suite, where K is often 32..128: every row is decoded once
// (not once per output), a bias enters as one more term (1 * bias), products are accumulated in SIMD
// lanes into as many 64-bit windows as the two rows' exponent spans need (one for most real data,
// dot_kernel.h), and for short K eight outputs share the lanes, the carrying and the rounding
// (dot_lanes.h). No per-output clearing or normalising of a 640-bit accumulator remains.

// Where exact_dots writes; each pointer is [M * N] row-major or null (not wanted).
struct ExactDotsOutput {
  float* f32 = nullptr;       // round to nearest even, binary32
  float* bf16 = nullptr;      // round to nearest even, bfloat16 (as the float of equal value)
  double* f64 = nullptr;      // round to nearest even, binary64
  ExactSum* exact = nullptr;  // the exact values
};

// out[m * N + n] = sum_k x[m * K + k] * w[n * K + k] (+ bias[n] if bias), exactly. K >= 0; threads as in
// parallel_for (0 = every core); the results do not depend on it.
void exact_dots(const float* x, const float* w, const float* bias, std::int64_t M, std::int64_t N, std::int64_t K,
                const ExactDotsOutput& out, unsigned threads = 1);

// One dot product through the same engine.
ExactSum exact_dot(const float* a, const float* b, std::int64_t K, std::optional<float> bias = std::nullopt);

}  // namespace ordo::oracle
