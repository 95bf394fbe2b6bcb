#include "oracle/exact_forward.h"

#include <cassert>
#include <cmath>
#include <stdexcept>

#include "oracle/error_bound.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"

namespace ordo::oracle {
namespace {

bool inputs_finite(const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  for (std::int64_t k = 0; k < p.K; ++k)
    if (!std::isfinite(p.x_at(m, k)) || !std::isfinite(p.w_at(n, k))) return false;
  return !p.bias || std::isfinite((*p.bias)[static_cast<std::size_t>(n)]);
}

void require_exact(int ternary, const char* what) {
  if (ternary != 0) throw std::logic_error(std::string("exact oracle rounded in ") + what);
}

void exact_sums(const ForwardProblem& p, std::int64_t m, std::int64_t n, MpfrValue& sum, MpfrValue& sum_abs) {
  mpfr_exact_dot(p.x_row(m), p.w_row(n), p.K, p.bias_at(n), sum.get(), sum_abs.get());
}

}  // namespace

float correctly_rounded_forward_element(const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  if (!inputs_finite(p, m, n)) return NAN;
  MpfrValue sum(kExactPrecisionBits), sum_abs(kExactPrecisionBits);
  exact_sums(p, m, n, sum, sum_abs);
  // mpfr_get_flt rounds once, directly to binary32, subnormals and overflow included.
  return mpfr_get_flt(sum.get(), MPFR_RNDN);
}

ElementVerdict judge_fma_chain_element(const ForwardProblem& p, std::int64_t m, std::int64_t n, float candidate) {
  ElementVerdict v;
  if (!inputs_finite(p, m, n)) {
    v.klass = ElementClass::nonfinite_input;
    return v;
  }
  MpfrValue sum(kExactPrecisionBits), sum_abs(kExactPrecisionBits);
  exact_sums(p, m, n, sum, sum_abs);
  v.exact = mpfr_get_d(sum.get(), MPFR_RNDN);
  v.correctly_rounded = mpfr_get_flt(sum.get(), MPFR_RNDN);
  if (!std::isfinite(candidate)) {
    v.klass = ElementClass::overflowed;
    return v;
  }
  // |candidate - exact|: the candidate is a binary32, the sum has <= 640 significant bits spanning
  // at most 2^-298..2^289; their difference fits in kExactPrecisionBits + 64 bits exactly.
  MpfrValue error(kExactPrecisionBits + 64);
  require_exact(mpfr_set_flt(error.get(), candidate, MPFR_RNDN), "candidate");
  require_exact(mpfr_sub(error.get(), error.get(), sum.get(), MPFR_RNDN), "error");
  mpfr_abs(error.get(), error.get(), MPFR_RNDN);

  const std::int64_t roundings = fma_chain_roundings(p.K, p.bias.has_value());
  MpfrValue bound(kBoundPrecisionBits);
  fma_chain_error_bound(roundings, sum_abs.get(), bound.get());
  v.within_bound = mpfr_lessequal_p(error.get(), bound.get()) != 0;
  v.error = mpfr_get_d(error.get(), MPFR_RNDU);
  v.bound = mpfr_get_d(bound.get(), MPFR_RNDU);
  return v;
}

}  // namespace ordo::oracle
