#pragma once
// The error bound of an output element, derived from its contract's reduction plan (never looked up by
// name), and the judgement of a candidate against the exact result. Derivations: oracle/error_bounds.md.
#include <cstdint>
#include <optional>

#include <mpfr.h>

#include "core/reduction_plan.h"
#include "oracle/exact_forward.h"

namespace ordo::oracle {

struct PlanBoundQuery {
  std::int64_t K = 0;        // real terms (padding excluded)
  bool bias = false;         // a bias is given; S and V then include |b|
  bool bf16_output = false;  // the FP32 result cast to BF16 (round to nearest even)
  mpfr_srcptr sum_abs = nullptr;       // S = sum |a_k b_k| (+ |b|), exact. Required.
  mpfr_srcptr align_weight = nullptr;  // V (tensor-core steps, tc_fdpa_alignment_weight); nullptr: V = S
  mpfr_srcptr y_hat_abs = nullptr;     // |candidate| for a BF16 output; nullptr bounds it through S
};

// Evaluated with upward rounding at kBoundPrecisionBits: never below the true bound. Throws
// std::invalid_argument for a malformed plan or a null S.
void plan_error_bound(const ReductionPlan& plan, const PlanBoundQuery& q, mpfr_ptr out);

// The number of roundings on the longest path of one term, and of all roundings that may add an
// absolute underflow error, for the FP32 (fma_rn) plans: the n and N of fp32_rounding_error_bound.
struct FmaPlanRoundings {
  std::int64_t longest_path = 0;
  std::int64_t total = 0;
};
FmaPlanRoundings fma_plan_roundings(const ReductionPlan& plan, std::int64_t K, bool bias);

// Judges `candidate` as the output of the plan over terms a[0..K), b[0..K) and the optional bias:
// nonfinite_input (NaN/Inf among the inputs), overflowed (finite inputs, non-finite candidate), else the
// exact error against the plan's bound, decided exactly.
ElementVerdict judge_plan_element(const ReductionPlan& plan, const float* a, const float* b, std::int64_t K,
                                  std::optional<float> bias, float candidate, bool bf16_output);

}  // namespace ordo::oracle
