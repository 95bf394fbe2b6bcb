#include "oracle/exact_forward.h"

#include <cassert>
#include <cmath>
#include <stdexcept>

#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"

namespace ordo::oracle {
namespace {

bool inputs_finite(const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  for (std::int64_t k = 0; k < p.K; ++k)
    if (!std::isfinite(p.x_at(m, k)) || !std::isfinite(p.w_at(n, k))) return false;
  return !p.bias || std::isfinite((*p.bias)[static_cast<std::size_t>(n)]);
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

}  // namespace ordo::oracle
