#include "subjects/mutants/oracle_mutants.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/contract.h"
#include "core/float_bits.h"
#include "oracle/error_bound.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "oracle/plan_emulator.h"
#include "oracle/plan_error_bound.h"
#include "oracle/tc_fdpa_model.h"
#include "subjects/mutants/host_mutants.h"

namespace ordo::mutants {
namespace {

// The production engine with one read-out changed after the fact.
class DefectiveSuperacc final : public ExactEngine {
 public:
  enum class Defect { double_rounding, zero_sign };
  DefectiveSuperacc(Defect d, std::string id, std::string description)
      : defect_(d), id_(std::move(id)), description_(std::move(description)) {}
  const std::string& id() const override { return id_; }
  const std::string& description() const override { return description_; }
  bool is_mutant() const override { return true; }
  ExactReadouts dot(const float* a, const float* b, std::int64_t K, std::optional<float> bias,
                    mpfr_ptr exact) override {
    ExactReadouts r = engine_->dot(a, b, K, bias, exact);
    switch (defect_) {
      case Defect::double_rounding:
        if (std::isnan(r.f64)) return r;    // the NaN read-out is not a rounding: kept as it is
        r.f32 = static_cast<float>(r.f64);  // round the rounded value again
        r.bf16 = oracle::round_to_bf16(r.f32);
        break;
      case Defect::zero_sign:
        if (mpfr_zero_p(exact)) {
          mpfr_set_zero(exact, 1);
          r = {0.0f, 0.0f, 0.0};
        }
        break;
    }
    return r;
  }

 private:
  Defect defect_;
  std::string id_, description_;
  std::unique_ptr<ExactEngine> engine_ = make_superaccumulator_engine();
};

int model_exponent(float f) {  // the T-FDPA model's exponent of a finite non-zero value: subnormals at -126
  const int field = static_cast<int>((bits_of(f) >> 23) & 0xFFu);
  return field == 0 ? -126 : field - 127;
}

class TcFdpaRoundingEmulator final : public ForwardSubject {
 public:
  explicit TcFdpaRoundingEmulator(const std::string& contract_id)
      : traits_(host_twin_traits(kTcFdpaRoundsId, contract_id, kTcFdpaRoundsDefect)) {
    const ReductionPlan& plan = traits_.contract.plan;
    if (plan.step.kind != StepKind::tc_fdpa || plan.structure != KStructure::chain)
      throw std::invalid_argument(std::string(kTcFdpaRoundsId) + ": needs a tensor-core chain contract");
    traits_.kind = "emulator-mutant";
  }
  const SubjectTraits& traits() const override { return traits_; }
  BackendResult forward(const ForwardProblem& p) override {
    const ReductionPlan& plan = traits_.contract.plan;
    if (Status s = check_dot_problem(plan, p); !s.ok()) return {s, {}};
    const TcFdpaStep& tc = plan.step.tc;
    BackendResult r;
    r.y.resize(static_cast<std::size_t>(p.M * p.N));
    for (std::int64_t m = 0; m < p.M; ++m)
      for (std::int64_t n = 0; n < p.N; ++n) {
        const float* x = p.x_row(m);
        const float* w = p.w_row(n);
        float acc = plan.start_value();
        for (std::int64_t s = 0; s < plan.padded_terms(p.K); s += tc.L) {
          const int terms = static_cast<int>(std::clamp<std::int64_t>(p.K - s, 0, tc.L));
          const std::int64_t at = std::min(s, p.K);
          acc = tc_fdpa_step_rounding(tc.L, tc.F, tc.e_zero, x + at, w + at, terms, acc);
        }
        const float y = p.bias ? acc + (*p.bias)[static_cast<std::size_t>(n)] : acc;
        r.y[static_cast<std::size_t>(m * p.N + n)] = oracle::finish_output(plan, y, p.bf16_output);
      }
    return r;
  }

 private:
  SubjectTraits traits_;
};

}  // namespace

std::unique_ptr<ExactEngine> make_superacc_double_rounding() {
  return std::make_unique<DefectiveSuperacc>(DefectiveSuperacc::Defect::double_rounding, kSuperaccDoubleRoundingId,
                                             kSuperaccDoubleRoundingDefect);
}
std::unique_ptr<ExactEngine> make_superacc_zero_sign() {
  return std::make_unique<DefectiveSuperacc>(DefectiveSuperacc::Defect::zero_sign, kSuperaccZeroSignId,
                                             kSuperaccZeroSignDefect);
}

// oracle::judge_plan_element (plan_error_bound.cpp), line for line, but for the bound's K.
oracle::ElementVerdict judge_with_short_bound(const ReductionPlan& plan, const float* a, const float* b, std::int64_t K,
                                              std::optional<float> bias, float candidate, bool bf16_output) {
  using oracle::MpfrValue;
  oracle::ElementVerdict v;
  bool finite = !bias || std::isfinite(*bias);
  for (std::int64_t k = 0; k < K && finite; ++k) finite = std::isfinite(a[k]) && std::isfinite(b[k]);
  if (!finite) {
    v.klass = oracle::ElementClass::nonfinite_input;
    return v;
  }
  MpfrValue sum(oracle::kExactPrecisionBits), sum_abs(oracle::kExactPrecisionBits);
  oracle::mpfr_exact_dot(a, b, K, bias, sum.get(), sum_abs.get());
  v.exact = mpfr_get_d(sum.get(), MPFR_RNDN);
  v.correctly_rounded = mpfr_get_flt(sum.get(), MPFR_RNDN);
  if (!std::isfinite(candidate)) {
    v.klass = oracle::ElementClass::overflowed;
    return v;
  }
  MpfrValue error(oracle::kExactPrecisionBits + 64);
  mpfr_set_flt(error.get(), candidate, MPFR_RNDN);
  mpfr_sub(error.get(), error.get(), sum.get(), MPFR_RNDN);
  mpfr_abs(error.get(), error.get(), MPFR_RNDN);
  oracle::PlanBoundQuery q;
  q.K = std::max<std::int64_t>(0, K - 1);  // THE DEFECT: one term, so one rounding, too few
  q.bias = bias.has_value();
  q.bf16_output = bf16_output;
  q.sum_abs = sum_abs.get();
  MpfrValue weight(oracle::kExactPrecisionBits), y_abs(64);
  if (plan.step.kind == StepKind::tc_fdpa) {
    mpfr_set_zero(weight.get(), 1);
    for (std::int64_t k = 0; k < K; ++k)
      mpfr_add_d(weight.get(), weight.get(), oracle::tc_fdpa_alignment_weight(a[k], b[k]), MPFR_RNDU);
    if (bias) mpfr_add_d(weight.get(), weight.get(), std::fabs(static_cast<double>(*bias)), MPFR_RNDU);
    q.align_weight = weight.get();
  }
  if (bf16_output) {
    mpfr_set_flt(y_abs.get(), std::fabs(candidate), MPFR_RNDU);
    q.y_hat_abs = y_abs.get();
  }
  MpfrValue bound(oracle::kBoundPrecisionBits);
  oracle::plan_error_bound(plan, q, bound.get());
  v.within_bound = mpfr_lessequal_p(error.get(), bound.get()) != 0;
  v.error = mpfr_get_d(error.get(), MPFR_RNDU);
  v.bound = mpfr_get_d(bound.get(), MPFR_RNDU);
  return v;
}

// The T-FDPA step of oracle/tc_fdpa_model.h with its last stage changed: the terms are truncated to F bits
// below 2^E as the model says and summed exactly, but the sum is rounded to nearest even, not toward zero.
// Everything is exact in binary64 until that one rounding: a product of two binary32 significands has 48
// bits, an aligned term is an integer below 2^(F+2) <= 2^42, and at most 65 of them sum below 2^49.
float tc_fdpa_step_rounding(int L, int F, int e_zero, const float* a, const float* b, int n, float c) {
  const oracle::TcFdpaParams params{L, F, e_zero};
  bool special = !std::isfinite(c);
  for (int i = 0; i < n; ++i) special = special || !std::isfinite(a[i]) || !std::isfinite(b[i]);
  if (special) return oracle::tc_fdpa_step(params, a, b, n, c);  // the model's special-value rules
  double terms[65];
  int exps[65];
  for (int i = 0; i < n; ++i) {
    terms[i] = static_cast<double>(a[i]) * static_cast<double>(b[i]);
    exps[i] = terms[i] == 0 ? e_zero : model_exponent(a[i]) + model_exponent(b[i]);
  }
  terms[n] = c;
  exps[n] = c == 0 ? e_zero : model_exponent(c);
  const int E = *std::max_element(exps, exps + n + 1);
  double sum = 0;
  for (int i = 0; i <= n; ++i) sum += std::trunc(std::ldexp(terms[i], F - E));
  if (sum == 0) return 0.0f;
  return static_cast<float>(std::ldexp(sum, E - F));  // THE DEFECT: round to nearest even
}

std::unique_ptr<ForwardSubject> make_tc_fdpa_rounding_emulator(const std::string& contract_id) {
  return std::make_unique<TcFdpaRoundingEmulator>(contract_id);
}

}  // namespace ordo::mutants
