#include "oracle/exact_dot_mpfr.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/float_bits.h"

namespace ordo::oracle {
namespace {

void require_exact(int ternary, const char* what) {
  // A non-zero ternary value means MPFR rounded: the precision argument of docs/numerics.md §3 failed.
  if (ternary != 0) throw std::logic_error(std::string("exact oracle rounded in ") + what);
}

// Compares |v| with 2^e.
int cmpabs_power_of_two(mpfr_srcptr v, long e) {
  mpfr_t p;
  mpfr_init2(p, 2);
  mpfr_set_ui_2exp(p, 1, e, MPFR_RNDN);
  const int c = mpfr_cmpabs(v, p);
  mpfr_clear(p);
  return c;
}

}  // namespace

void mpfr_exact_dot(const float* x, const float* w, std::int64_t K, std::optional<float> bias, mpfr_ptr sum,
                    mpfr_ptr sum_abs) {
  bool first = true;
  auto add = [&](double term) {
    if (first) require_exact(mpfr_set_d(sum, term, MPFR_RNDN), "first term");
    else require_exact(mpfr_add_d(sum, sum, term, MPFR_RNDN), "sum");
    if (sum_abs) {
      if (first) require_exact(mpfr_set_d(sum_abs, std::fabs(term), MPFR_RNDN), "first |term|");
      else require_exact(mpfr_add_d(sum_abs, sum_abs, std::fabs(term), MPFR_RNDN), "sum_abs");
    }
    first = false;
  };
  for (std::int64_t k = 0; k < K; ++k) add(static_cast<double>(x[k]) * static_cast<double>(w[k]));
  if (bias) add(static_cast<double>(*bias));
  if (first) {  // no terms at all
    mpfr_set_zero(sum, 1);
    if (sum_abs) mpfr_set_zero(sum_abs, 1);
  }
}

float mpfr_round_to_float(mpfr_srcptr v) {
  if (mpfr_nan_p(v)) return canonical_nan();
  return mpfr_get_flt(v, MPFR_RNDN);
}

float mpfr_round_to_bf16(mpfr_srcptr v) {
  if (mpfr_nan_p(v)) return canonical_nan();
  if (mpfr_inf_p(v) || mpfr_zero_p(v)) return mpfr_get_flt(v, MPFR_RNDN);
  // v = m * 2^e with m in [1/2, 1) (MPFR's convention), so v lies in [2^(e-1), 2^e).
  const mpfr_exp_t e = mpfr_get_exp(v);
  // Normal bfloat16: 8 significant bits. Below 2^-126 the lsb stays at 2^-133: e + 133 bits remain.
  const long bits = e - 1 >= -126 ? 8 : static_cast<long>(e) + 133;
  const bool negative = mpfr_signbit(v) != 0;
  float result;
  if (bits <= 0) {
    // |v| < 2^-134 rounds to 0; |v| in [2^-134, 2^-133) (bits == 0) rounds up to 2^-133 unless it is
    // exactly the tie 2^-134, which goes to the even neighbour 0.
    if (bits < 0) result = 0.0f;
    else result = cmpabs_power_of_two(v, -134) > 0 ? std::ldexp(1.0f, -133) : 0.0f;
    return negative ? -result : result;
  }
  mpfr_t r;
  mpfr_init2(r, bits);
  mpfr_set(r, v, MPFR_RNDN);  // the one rounding
  // r has <= 8 significant bits at an exponent binary32 can hold, or it reached 2^128.
  result = cmpabs_power_of_two(r, 128) >= 0 ? (negative ? -INFINITY : INFINITY) : mpfr_get_flt(r, MPFR_RNDN);
  mpfr_clear(r);
  return result;
}

}  // namespace ordo::oracle
