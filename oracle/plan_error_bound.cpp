#include "oracle/plan_error_bound.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "oracle/error_bound.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"

namespace ordo::oracle {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Depth of the combination of m partials: the roundings on the longest path through it.
std::int64_t combine_depth(const ReductionPlan& plan, std::int64_t m) {
  if (m <= 1) return 0;
  if (plan.combine == SegmentCombine::ascending_add_rn) return m - 1;
  std::int64_t depth = 0;
  for (std::int64_t level = m; level > 1; level = (level + 1) / 2) ++depth;
  return depth;
}

std::int64_t segments_of(const ReductionPlan& plan, std::int64_t K) {
  if (plan.structure == KStructure::chain) return 1;
  return std::max<std::int64_t>(1, ceil_div(plan.padded_terms(K), plan.segment_length));
}

// FP32 round to nearest, n = longest path, N = all: ((1+u)^n - 1) S + N eta (1+u)^(n-1).
void rn_combination(std::int64_t n, std::int64_t N, mpfr_srcptr S, mpfr_ptr out) {
  fp32_rounding_error_bound(n, N, S, out);
}

// The tensor-core plans made of m segments, each a T-FDPA chain from the start value of at most
// `steps` steps, combined in FP32 with round to nearest (error_bounds.md, "Segments of tensor-core
// chains"): sum_j B_j <= geo(steps) (u S + (1+u) a V + m kappa), then the combination.
void tc_segments_bound(const ReductionPlan& plan, const PlanBoundQuery& q, mpfr_ptr out) {
  const TcFdpaStep& t = plan.step.tc;
  const mpfr_prec_t prec = kBoundPrecisionBits;
  const std::int64_t m = segments_of(plan, q.K);
  const std::int64_t steps = ceil_div(std::min(q.K, plan.segment_length), t.L);
  mpfr_srcptr S = q.sum_abs;
  MpfrValue sum_b(prec), comb(prec);
  tc_fdpa_steps_error_bound({t.L, t.F, t.e_zero}, steps, m, S, q.align_weight != nullptr ? q.align_weight : S,
                            sum_b.get());
  if (m == 1) {
    mpfr_set(out, sum_b.get(), MPFR_RNDU);
    return;
  }
  // The combination adds roundings to sum |p_j| <= S + sum B_j:
  //   (1 + gamma_d) sum B_j + gamma_d S + (m - 1) eta' (1+u')^(d-1)
  const std::int64_t d = combine_depth(plan, m);
  MpfrValue s_plus(prec);
  mpfr_add(s_plus.get(), S, sum_b.get(), MPFR_RNDU);
  rn_combination(d, m - 1, s_plus.get(), comb.get());  // gamma_d (S + sum B) + (m-1) eta' (1+u')^(d-1)
  mpfr_add(out, comb.get(), sum_b.get(), MPFR_RNDU);
}

}  // namespace

FmaPlanRoundings fma_plan_roundings(const ReductionPlan& plan, std::int64_t K, bool bias) {
  const std::int64_t after = bias && plan.bias == BiasPlacement::after_chain_add_rn ? 1 : 0;
  if (K <= 0) return {after, after};
  if (plan.structure == KStructure::chain) return {K + after, K + after};
  // Zero products are exact (they can change only the sign of a zero): only the K real FMAs and the
  // combination's adds round. A bias as the initial accumulator rides the first segment's chain.
  const std::int64_t m = segments_of(plan, K);
  const std::int64_t d = combine_depth(plan, m);
  return {std::min(K, plan.segment_length) + d + after, K + (m - 1) + after};
}

void plan_error_bound(const ReductionPlan& plan, const PlanBoundQuery& q, mpfr_ptr out) {
  if (q.sum_abs == nullptr) throw std::invalid_argument("plan_error_bound: sum_abs is required");
  const mpfr_prec_t prec = kBoundPrecisionBits;
  MpfrValue bound(prec);
  if (plan.step.kind == StepKind::fma_rn) {
    const FmaPlanRoundings r = fma_plan_roundings(plan, q.K, q.bias);
    rn_combination(r.longest_path, r.total, q.sum_abs, bound.get());
  } else if (plan.structure == KStructure::chain) {
    // One T-FDPA chain (error_bounds.md): the bias after it, or, as the initial accumulator, a term
    // already in S and V (C_0 = b is exact and the recurrence holds with T_0 = |b|).
    TcFdpaBoundQuery t;
    t.params = {plan.step.tc.L, plan.step.tc.F, plan.step.tc.e_zero};
    t.K = q.K;
    t.bias = q.bias && plan.bias == BiasPlacement::after_chain_add_rn;
    t.sum_abs = q.sum_abs;
    t.align_weight = q.align_weight;
    tc_fdpa_chain_error_bound(t, bound.get());
  } else {
    tc_segments_bound(plan, q, bound.get());
    if (q.bias && plan.bias == BiasPlacement::after_chain_add_rn) add_bias_rounding_bound(bound.get(), q.sum_abs);
  }
  if (q.bf16_output) add_bf16_output_rounding_bound(bound.get(), q.sum_abs, q.y_hat_abs);
  mpfr_set(out, bound.get(), MPFR_RNDU);
}

ElementVerdict judge_plan_element(const ReductionPlan& plan, const float* a, const float* b, std::int64_t K,
                                  std::optional<float> bias, float candidate, bool bf16_output) {
  ElementVerdict v;
  bool finite = !bias || std::isfinite(*bias);
  for (std::int64_t k = 0; k < K && finite; ++k) finite = std::isfinite(a[k]) && std::isfinite(b[k]);
  if (!finite) {
    v.klass = ElementClass::nonfinite_input;
    return v;
  }
  MpfrValue sum(kExactPrecisionBits), sum_abs(kExactPrecisionBits);
  mpfr_exact_dot(a, b, K, bias, sum.get(), sum_abs.get());
  v.exact = mpfr_get_d(sum.get(), MPFR_RNDN);
  v.correctly_rounded = mpfr_get_flt(sum.get(), MPFR_RNDN);
  if (!std::isfinite(candidate)) {
    v.klass = ElementClass::overflowed;
    return v;
  }
  // |candidate - exact| is exact at this precision (a binary32 against <= 640 bits in 2^-298..2^289).
  MpfrValue error(kExactPrecisionBits + 64);
  if (mpfr_set_flt(error.get(), candidate, MPFR_RNDN) != 0 || mpfr_sub(error.get(), error.get(), sum.get(), MPFR_RNDN) != 0)
    throw std::logic_error("judge_plan_element: the error was rounded");
  mpfr_abs(error.get(), error.get(), MPFR_RNDN);

  PlanBoundQuery q;
  q.K = K;
  q.bias = bias.has_value();
  q.bf16_output = bf16_output;
  q.sum_abs = sum_abs.get();
  MpfrValue weight(kExactPrecisionBits), y_abs(64);
  if (plan.step.kind == StepKind::tc_fdpa) {
    // V: the alignment weights (differ from |products| only for subnormal inputs); exact at 640 bits.
    mpfr_set_zero(weight.get(), 1);
    for (std::int64_t k = 0; k < K; ++k) mpfr_add_d(weight.get(), weight.get(), tc_fdpa_alignment_weight(a[k], b[k]), MPFR_RNDU);
    if (bias) mpfr_add_d(weight.get(), weight.get(), std::fabs(static_cast<double>(*bias)), MPFR_RNDU);
    q.align_weight = weight.get();
  }
  if (bf16_output) {
    mpfr_set_flt(y_abs.get(), std::fabs(candidate), MPFR_RNDU);
    q.y_hat_abs = y_abs.get();
  }
  MpfrValue bound(kBoundPrecisionBits);
  plan_error_bound(plan, q, bound.get());
  v.within_bound = mpfr_lessequal_p(error.get(), bound.get()) != 0;
  v.error = mpfr_get_d(error.get(), MPFR_RNDU);
  v.bound = mpfr_get_d(bound.get(), MPFR_RNDU);
  return v;
}

}  // namespace ordo::oracle
