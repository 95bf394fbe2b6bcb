#include "properties/exact_checks.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <sstream>

#include "core/float_bits.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "oracle/error_bound.h"
#include "oracle/superaccumulator.h"

namespace ordo::properties {
namespace {

bool same_exact_value(mpfr_srcptr a, mpfr_srcptr b) {
  if (mpfr_nan_p(a) || mpfr_nan_p(b)) return mpfr_nan_p(a) && mpfr_nan_p(b);
  return mpfr_equal_p(a, b) && mpfr_signbit(a) == mpfr_signbit(b);
}

std::uint64_t double_bits(double d) { return std::isnan(d) ? 0x7FF8000000000000ull : std::bit_cast<std::uint64_t>(d); }

}  // namespace

CheckResult check_superacc_equals_mpfr(const ForwardCase& c) {
  const ForwardProblem p = c.materialize();
  CheckResult r;
  oracle::Superaccumulator acc;
  oracle::MpfrValue judge(oracle::kExactPrecisionBits), converted(oracle::kExactPrecisionBits + 64);
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) {
      const float *x = p.x_row(m), *w = p.w_row(n);
      const std::optional<float> bias = p.bias_at(n);
      acc.clear();
      acc.add_products(x, w, p.K);
      if (bias) acc.add(*bias);
      oracle::mpfr_exact_dot(x, w, p.K, bias, judge.get());
      acc.to_mpfr(converted.get());
      ++r.elements;

      std::ostringstream why;
      if (!same_exact_value(converted.get(), judge.get()))
        why << std::hexfloat << "exact values differ: superacc " << mpfr_get_d(converted.get(), MPFR_RNDN) << ", MPFR "
            << mpfr_get_d(judge.get(), MPFR_RNDN);
      else if (bits_of(acc.to_float()) != bits_of(oracle::mpfr_round_to_float(judge.get())))
        why << "binary32 differs: superacc " << describe_float(acc.to_float()) << ", MPFR "
            << describe_float(oracle::mpfr_round_to_float(judge.get()));
      else if (bits_of(acc.to_bf16()) != bits_of(oracle::mpfr_round_to_bf16(judge.get())))
        why << "bfloat16 differs: superacc " << describe_float(acc.to_bf16()) << ", MPFR "
            << describe_float(oracle::mpfr_round_to_bf16(judge.get()));
      else if (double_bits(acc.to_double()) != double_bits(mpfr_get_d(judge.get(), MPFR_RNDN)))
        why << "binary64 differs: superacc " << std::hexfloat << acc.to_double() << ", MPFR "
            << mpfr_get_d(judge.get(), MPFR_RNDN);
      if (!why.str().empty()) {
        r.passed = false;
        r.detail = "output [" + std::to_string(m) + "," + std::to_string(n) + "], K = " + std::to_string(p.K) +
                   ": " + why.str();
        return r;
      }
    }
  return r;
}

}  // namespace ordo::properties
