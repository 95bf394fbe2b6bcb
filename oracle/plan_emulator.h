#pragma once
// The one generic emulator of every contract: it interprets a ReductionPlan (core/reduction_plan.h),
// written from the plan's definition, never from a kernel. Every operation is brought to one form, a
// "dot problem": rows of A [R, K] against rows of B [C, K], out[r, c] = reduce_k A[r,k] B[c,k] (+ b[c]).
//   forward: A = X, B = W;   dX: A = G, B = W^T;   dW: A = (G in row order)^T, B = (X in row order)^T.
// ForwardProblem is that form (M = R, N = C); here K may be 0 (a dW over no active token).
#include <cstdint>
#include <optional>
#include <vector>

#include "core/problem.h"
#include "core/problem_checks.h"
#include "core/reduction_plan.h"
#include "core/status.h"

namespace ordo::oracle {


// Fast path: vectorised across output columns (lanes never mix: each lane is its own chain, so every
// element keeps its order) and threaded over row blocks. `threads` = 0 uses all cores. The problem must
// pass check_dot_problem (std::invalid_argument otherwise). Y is FP32 values; a BF16 output is the float
// of equal value (bits << 16).
std::vector<float> emulate_dot(const ReductionPlan& plan, const ForwardProblem& p, unsigned threads = 0);

// The deliberately plain scalar interpreter of the same plan: one element at a time, the terms padded
// literally with zero products, segments and the pairwise tree built as written in the plan's
// definition. The fast path is checked against it.
float reference_dot_element(const ReductionPlan& plan, const float* a, const float* b, std::int64_t K,
                            std::optional<float> bias, bool bf16_output);
std::vector<float> reference_dot(const ReductionPlan& plan, const ForwardProblem& p);

// The plan's last two stages on an FP32 result: NaN to the plan's NaN bits, then the output cast.
float finish_output(const ReductionPlan& plan, float v, bool bf16_output);

// The epilogue of one tile row, count <= kFinishLanesMax outputs: dst[j] = finish_output(plan, v[j] +
// bias[j]) (the bias only where the plan adds it after the chain; null otherwise), with nan_bits =
// plan.nan_bits or the canonical NaN. Integer operations on whole lanes, so that the loops vectorise.
inline constexpr int kFinishLanesMax = 16;
void finish_lanes(const float* v, const float* bias, std::uint32_t nan_bits, bool bf16_output, int count, float* dst);

}  // namespace ordo::oracle
