#include "oracle/error_bound.h"

#include "oracle/mpfr_value.h"

namespace ordo::oracle {

void fma_chain_error_bound(std::int64_t roundings, mpfr_srcptr sum_abs, mpfr_ptr out) {
  const unsigned long n = static_cast<unsigned long>(roundings);
  MpfrValue one_plus_u(kBoundPrecisionBits), growth(kBoundPrecisionBits), gamma(kBoundPrecisionBits),
      underflow(kBoundPrecisionBits);
  // 1 + 2^-24 is exact at 128 bits; the powers are rounded up.
  mpfr_set_ui_2exp(one_plus_u.get(), 1, -24, MPFR_RNDU);
  mpfr_add_ui(one_plus_u.get(), one_plus_u.get(), 1, MPFR_RNDU);
  // gamma_n = (1+u)^n - 1
  mpfr_pow_ui(gamma.get(), one_plus_u.get(), n, MPFR_RNDU);
  mpfr_sub_ui(gamma.get(), gamma.get(), 1, MPFR_RNDU);
  // n * eta * (1+u)^(n-1)
  mpfr_pow_ui(growth.get(), one_plus_u.get(), n == 0 ? 0 : n - 1, MPFR_RNDU);
  mpfr_mul_ui(underflow.get(), growth.get(), n, MPFR_RNDU);
  mpfr_mul_2si(underflow.get(), underflow.get(), -150, MPFR_RNDU);
  mpfr_mul(out, gamma.get(), sum_abs, MPFR_RNDU);
  mpfr_add(out, out, underflow.get(), MPFR_RNDU);
}

}  // namespace ordo::oracle
