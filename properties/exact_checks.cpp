#include "properties/exact_checks.h"

#include <bit>
#include <cmath>
#include <optional>
#include <sstream>

#include "core/float_bits.h"
#include "oracle/exact_dot_boost.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "oracle/superaccumulator.h"
#include "properties/exact_compare.h"

namespace ordo::properties {
namespace {

// Equal to the Boost engine's value once converted; a value the conversion refuses (not a multiple of
// 2^-298) equals none.
bool same_exact_value(mpfr_srcptr a, const oracle::BoostExactValue& b) {
  const std::optional<oracle::BoostExactValue> converted = oracle::boost_exact_from_mpfr(a);
  return converted && *converted == b;
}

std::string double_text(double d) {
  std::ostringstream s;
  s << std::hexfloat << d;
  return s.str();
}

// One kind of result from the three engines, in the order superacc, MPFR, Boost.
struct ThreeResults {
  std::uint64_t bits[3];
  std::string shown[3];
};

std::string disagreement(const char* what, const ThreeResults& r) {
  const std::string odd = odd_engine_out(r.bits[0] == r.bits[1], r.bits[2] == r.bits[1], r.bits[0] == r.bits[2]);
  if (odd.empty()) return "";
  return std::string(what) + " differs, " + odd + ": superacc " + r.shown[0] + ", MPFR " + r.shown[1] + ", Boost " +
         r.shown[2];
}

ThreeResults floats(float superacc, float mpfr, float boost) {
  return {{bits_of(superacc), bits_of(mpfr), bits_of(boost)},
          {describe_float(superacc), describe_float(mpfr), describe_float(boost)}};
}

}  // namespace

std::string odd_engine_out(bool superacc_eq_mpfr, bool boost_eq_mpfr, bool superacc_eq_boost) {
  const int agreeing = int(superacc_eq_mpfr) + int(boost_eq_mpfr) + int(superacc_eq_boost);
  if (agreeing == 3) return "";
  if (agreeing == 0) return "all three differ";
  if (agreeing == 2) return "inconsistent comparisons";
  if (superacc_eq_mpfr) return "Boost disagrees";
  if (boost_eq_mpfr) return "superacc disagrees";
  return "MPFR disagrees";
}

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
      const oracle::BoostExactValue boost = oracle::boost_exact_dot(x, w, p.K, bias);
      ++r.elements;

      // Each comparison runs only once the previous kind agreed: the first difference is the one reported.
      std::string why;
      const std::string odd =
          odd_engine_out(same_exact_value(converted.get(), judge.get()), same_exact_value(judge.get(), boost),
                         same_exact_value(converted.get(), boost));
      if (!odd.empty())
        why = "exact values differ, " + odd + ": superacc " + exact_text(converted.get()) + ", MPFR " +
              exact_text(judge.get()) + ", Boost " + oracle::describe_exact(boost);
      if (why.empty())
        why = disagreement("binary32", floats(acc.to_float(), oracle::mpfr_round_to_float(judge.get()),
                                              oracle::boost_round_to_float(boost)));
      if (why.empty())
        why = disagreement("bfloat16", floats(acc.to_bf16(), oracle::mpfr_round_to_bf16(judge.get()),
                                              oracle::boost_round_to_bf16(boost)));
      if (why.empty()) {
        const double d[3] = {acc.to_double(), mpfr_get_d(judge.get(), MPFR_RNDN), oracle::boost_round_to_double(boost)};
        why = disagreement("binary64", {{double_bits(d[0]), double_bits(d[1]), double_bits(d[2])},
                                        {double_text(d[0]), double_text(d[1]), double_text(d[2])}});
      }
      if (!why.empty()) {
        r.passed = false;
        r.detail =
            "output [" + std::to_string(m) + "," + std::to_string(n) + "], K = " + std::to_string(p.K) + ": " + why;
        return r;
      }
    }
  return r;
}

}  // namespace ordo::properties
