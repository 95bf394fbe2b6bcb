// The Boost.Multiprecision exact engine on hand-derived values, and against MPFR as RapidCheck properties.
// Expected values are built with std::ldexp from the arithmetic of each case, never taken from another engine.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/float_bits.h"
#include "oracle/exact_dot_boost.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "properties/exact_checks.h"
#include "properties/suite.h"

namespace ordo {
namespace {

using oracle::BoostExactInt;
using oracle::BoostExactValue;

BoostExactValue dot(std::vector<std::pair<float, float>> terms, std::optional<float> bias = {}) {
  std::vector<float> x, w;
  for (auto [a, b] : terms) {
    x.push_back(a);
    w.push_back(b);
  }
  return oracle::boost_exact_dot(x.data(), w.data(), static_cast<std::int64_t>(x.size()), bias);
}

float p2(int e) { return std::ldexp(1.0f, e); }
BoostExactInt units(int e) { return BoostExactInt(1) << (e + 298); }  // 2^e in units of 2^-298
std::uint32_t f32(const BoostExactValue& v) { return bits_of(oracle::boost_round_to_float(v)); }
std::uint32_t bf16(const BoostExactValue& v) { return bits_of(oracle::boost_round_to_bf16(v)); }
double f64(const BoostExactValue& v) { return oracle::boost_round_to_double(v); }

TEST(ExactBoost, ExactValueIsAnIntegerInUnitsOf2ToMinus298) {
  EXPECT_EQ(dot({{1, 1}}).scaled, units(0));
  EXPECT_EQ(dot({{p2(-149), p2(-149)}}).scaled, 1);  // the smallest product: one unit
  EXPECT_EQ(dot({{-3, 0.5f}}).scaled, -3 * units(-1));
  EXPECT_EQ(dot({}, p2(-149)).scaled, units(-149));  // a bias alone (K = 0)
  // 2^254 - 2^254 + 2^-298: nothing but the unit is left, whatever the order.
  const float big = p2(127), tiny = p2(-149);
  EXPECT_EQ(dot({{big, big}, {big, -big}, {tiny, tiny}}).scaled, 1);
  EXPECT_EQ(dot({{tiny, tiny}, {big, big}, {big, -big}}).scaled, 1);
}

TEST(ExactBoost, RoundsTiesToEvenInEachFormat) {
  for (float s : {1.0f, -1.0f}) {
    SCOPED_TRACE(s);
    // binary32: 1 + 2^-24 is halfway between 1 and 1 + 2^-23 -> 1; 1 + 3*2^-24 -> 1 + 2^-22; just above the
    // first tie -> 1 + 2^-23.
    EXPECT_EQ(f32(dot({{s, 1}, {s, p2(-24)}})), bits_of(s));
    EXPECT_EQ(f32(dot({{s, 1}, {s, 3 * p2(-24)}})), bits_of(s * (1 + p2(-22))));
    EXPECT_EQ(f32(dot({{s, 1}, {s, p2(-24)}, {s * p2(-149), p2(-149)}})), bits_of(s * (1 + p2(-23))));
    // bfloat16: 8 bits, so the ties sit at 2^-8 above 1.
    EXPECT_EQ(bf16(dot({{s, 1}, {s, p2(-8)}})), bits_of(s));
    EXPECT_EQ(bf16(dot({{s, 1}, {s, 3 * p2(-8)}})), bits_of(s * (1 + p2(-6))));
    EXPECT_EQ(bf16(dot({{s, 1}, {s, p2(-8)}, {s * p2(-149), p2(-149)}})), bits_of(s * (1 + p2(-7))));
    // binary64: ties at 2^-53 above 1, reached by a product 2^-24 * 2^-29.
    const double d = s;
    EXPECT_EQ(f64(dot({{s, 1}, {s * p2(-24), p2(-29)}})), d);
    EXPECT_EQ(f64(dot({{s, 1}, {s * 3 * p2(-24), p2(-29)}})), d * (1 + std::ldexp(1.0, -51)));
    EXPECT_EQ(f64(dot({{s, 1}, {s * p2(-24), p2(-29)}, {s * p2(-149), p2(-149)}})), d * (1 + std::ldexp(1.0, -52)));
  }
}

TEST(ExactBoost, SubnormalResults) {
  // binary32: 3 * 2^-150 is halfway between 2^-149 and 2^-148 -> 2^-148 (even); 2^-150 alone -> 0 (even);
  // 2^-150 plus a unit -> 2^-149; 5 * 2^-151 -> 2^-149 (below the next tie).
  EXPECT_EQ(f32(dot({{1.5f * p2(-75), p2(-74)}})), 2u);
  EXPECT_EQ(f32(dot({{p2(-75), p2(-75)}})), 0u);
  EXPECT_EQ(f32(dot({{p2(-75), p2(-75)}, {p2(-149), p2(-149)}})), 1u);
  EXPECT_EQ(f32(dot({{1.25f * p2(-75), p2(-74)}})), 1u);
  // The largest subnormal plus half its ulp ties with 2^-126: the even neighbour, the smallest normal.
  EXPECT_EQ(f32(dot({{p2(-126) - p2(-149), 1}, {p2(-75), p2(-75)}})), bits_of(p2(-126)));
  EXPECT_EQ(f32(dot({{-p2(-149), 0.75f}})), 0x80000001u);  // -0.75 * 2^-149 -> -2^-149, not a tie
  // bfloat16's smallest subnormal is 2^-133: 2^-134 ties with 0 -> 0; a unit more -> 2^-133;
  // 3 * 2^-134 ties between 2^-133 and 2^-132 -> 2^-132.
  EXPECT_EQ(bf16(dot({{p2(-67), p2(-67)}})), 0u);
  EXPECT_EQ(bf16(dot({{p2(-67), p2(-67)}, {p2(-149), p2(-149)}})), bits_of(p2(-133)));
  EXPECT_EQ(bf16(dot({{3 * p2(-67), p2(-67)}})), bits_of(p2(-132)));
  // binary64 has no subnormal results here: the smallest non-zero sum, 2^-298, is a normal double.
  EXPECT_EQ(f64(dot({{p2(-149), p2(-149)}})), std::ldexp(1.0, -298));
}

TEST(ExactBoost, SignOfAnExactZero) {
  const float nz = -0.0f;
  EXPECT_EQ(f32(dot({{nz, 1}, {0, -1}})), 0x80000000u);  // every term -0
  EXPECT_TRUE(std::signbit(f64(dot({{nz, 1}, {0, -1}}))));
  EXPECT_EQ(bf16(dot({{nz, 1}}, nz)), 0x80000000u);  // -0 products and a -0 bias
  EXPECT_EQ(f32(dot({{nz, 1}}, 0.0f)), 0u);          // a +0 bias
  EXPECT_EQ(f32(dot({{nz, 1}, {0, 1}})), 0u);        // one +0 product
  EXPECT_EQ(f32(dot({{nz, -1}})), 0u);               // -0 * -1 = +0
  EXPECT_EQ(f32(dot({{1, 1}, {-1, 1}})), 0u);        // exact cancellation is +0 ...
  EXPECT_EQ(f32(dot({{-1, 1}, {1, 1}})), 0u);        // ... in either order
  EXPECT_FALSE(std::signbit(f64(dot({{-2, 1}, {1, 2}}))));
  EXPECT_EQ(f32(dot({})), 0u);  // no terms at all
  // A non-zero value too small for the format keeps its sign when it rounds to zero.
  EXPECT_EQ(f32(dot({{-p2(-149), p2(-149)}})), 0x80000000u);
  EXPECT_EQ(bf16(dot({{-p2(-100), p2(-40)}})), 0x80000000u);
}

TEST(ExactBoost, OverflowAtEachFormatsThreshold) {
  const float max = FLT_MAX;  // (2^24 - 1) * 2^104: the ties with 2^128 are 2^103 (binary32), 2^119 (bf16) above
  EXPECT_EQ(oracle::boost_round_to_float(dot({{max, 1}, {max, 1}, {-max, 1}})), max);  // exact, no overflow
  EXPECT_EQ(oracle::boost_round_to_float(dot({{max, 2}})), INFINITY);
  EXPECT_EQ(oracle::boost_round_to_float(dot({{-max, 2}})), -INFINITY);
  EXPECT_EQ(f64(dot({{max, 2}})), 2.0 * static_cast<double>(max));                   // binary64 holds it
  EXPECT_EQ(oracle::boost_round_to_float(dot({{max, 1}, {p2(103), 1}})), INFINITY);  // tie: even is 2^128
  EXPECT_EQ(oracle::boost_round_to_float(dot({{max, 1}, {p2(103), 1}, {-p2(-149), p2(-149)}})), max);
  const float bf16_max = p2(128) - p2(120);
  EXPECT_EQ(oracle::boost_round_to_bf16(dot({{bf16_max, 1}, {p2(119), 1}})), INFINITY);  // tie with 2^128
  EXPECT_EQ(oracle::boost_round_to_bf16(dot({{bf16_max, 1}, {p2(118), 1}})), bf16_max);
  EXPECT_EQ(oracle::boost_round_to_bf16(dot({{-max, 1}})), -INFINITY);  // FLT_MAX is above bf16's tie
}

TEST(ExactBoost, SpecialValues) {
  EXPECT_EQ(f32(dot({{NAN, 1}})), kCanonicalNaNBits);
  EXPECT_EQ(bf16(dot({{1, float_of(0xFFC00123u)}})), kCanonicalNaNBits);    // any payload, either sign
  EXPECT_EQ(f32(dot({{INFINITY, 0}})), kCanonicalNaNBits);                  // Inf * 0
  EXPECT_EQ(f32(dot({{INFINITY, 1}, {-INFINITY, 1}})), kCanonicalNaNBits);  // Inf - Inf
  EXPECT_EQ(f32(dot({{INFINITY, 1}}, -INFINITY)), kCanonicalNaNBits);       // ... through the bias
  EXPECT_EQ(f32(dot({{1, 1}}, NAN)), kCanonicalNaNBits);
  EXPECT_TRUE(std::isnan(f64(dot({{-0.0f, -INFINITY}}))));
  EXPECT_EQ(oracle::boost_round_to_float(dot({{INFINITY, 1}, {FLT_MAX, -FLT_MAX}})), INFINITY);
  EXPECT_EQ(oracle::boost_round_to_bf16(dot({{INFINITY, -1}, {-INFINITY, 2}})), -INFINITY);
  EXPECT_EQ(dot({{INFINITY, 1}}), dot({{2, INFINITY}}));
  EXPECT_FALSE(dot({{INFINITY, 1}}) == dot({{-INFINITY, 1}}));
}

TEST(ExactBoost, CancellationOf2ToMinus24NextToOneAndMinusOne) {
  // An FMA chain gives 0 in one order and 2^-24 in another; the exact engine must give 2^-24 in all six.
  std::array<float, 3> v = {-1.0f, p2(-24), 1.0f};
  std::sort(v.begin(), v.end());
  int orders = 0;
  do {
    const BoostExactValue r = dot({{v[0], 1}, {v[1], 1}, {v[2], 1}});
    EXPECT_EQ(r.scaled, units(-24));
    EXPECT_EQ(oracle::boost_round_to_float(r), p2(-24));
    EXPECT_EQ(oracle::boost_round_to_bf16(r), p2(-24));
    ++orders;
  } while (std::next_permutation(v.begin(), v.end()));
  EXPECT_EQ(orders, 6);
}

TEST(ExactBoost, HugeExponentSpans) {
  const float big = p2(127), tiny = p2(-149);
  const BoostExactValue span = dot({{big, big}, {tiny, tiny}});  // 552 bits apart
  EXPECT_EQ(span.scaled, units(254) + 1);
  EXPECT_EQ(f64(span), std::ldexp(1.0, 254));
  EXPECT_EQ(oracle::boost_round_to_float(span), INFINITY);
  // 4096 of the largest products: 2^12 * FLT_MAX^2 needs 48 bits, exact in a double; binary32 overflows.
  std::vector<std::pair<float, float>> many(4096, {FLT_MAX, FLT_MAX});
  const double max2 = static_cast<double>(FLT_MAX) * static_cast<double>(FLT_MAX);
  EXPECT_EQ(f64(dot(many)), 4096 * max2);
  // Alternating signs cancel to the one unit added last, across the full 552-bit range.
  for (std::size_t i = 1; i < many.size(); i += 2) many[i].second = -FLT_MAX;
  many.push_back({tiny, tiny});
  EXPECT_EQ(dot(many).scaled, 1);
}

TEST(ExactBoost, ConversionFromMpfrIsExactOrRefused) {
  oracle::MpfrValue v(oracle::kExactPrecisionBits);
  mpfr_set_ui_2exp(v.get(), 3, -298, MPFR_RNDN);
  ASSERT_TRUE(oracle::boost_exact_from_mpfr(v.get()).has_value());
  EXPECT_EQ(oracle::boost_exact_from_mpfr(v.get())->scaled, 3);
  mpfr_neg(v.get(), v.get(), MPFR_RNDN);
  EXPECT_EQ(oracle::boost_exact_from_mpfr(v.get())->scaled, -3);
  mpfr_set_ui_2exp(v.get(), 1, -299, MPFR_RNDN);  // not a multiple of the unit: no binary32 sum is
  EXPECT_FALSE(oracle::boost_exact_from_mpfr(v.get()).has_value());
  mpfr_set_ui_2exp(v.get(), 1, 400, MPFR_RNDN);  // beyond 640 bits of units
  EXPECT_FALSE(oracle::boost_exact_from_mpfr(v.get()).has_value());
  mpfr_set_zero(v.get(), -1);
  EXPECT_EQ(*oracle::boost_exact_from_mpfr(v.get()), dot({{-0.0f, 1}}));
  mpfr_set_nan(v.get());
  EXPECT_EQ(oracle::boost_exact_from_mpfr(v.get())->kind, BoostExactValue::Kind::nan);
}

TEST(ExactBoost, TheCheckNamesTheEngineThatDisagrees) {
  EXPECT_EQ(properties::odd_engine_out(true, true, true), "");
  EXPECT_EQ(properties::odd_engine_out(true, false, false), "Boost disagrees");
  EXPECT_EQ(properties::odd_engine_out(false, true, false), "superacc disagrees");
  EXPECT_EQ(properties::odd_engine_out(false, false, true), "MPFR disagrees");
  EXPECT_EQ(properties::odd_engine_out(false, false, false), "all three differ");
}

// "" when Boost and MPFR agree on the exact value and on all three rounded results, else what differs.
std::string boost_vs_mpfr(const float* x, const float* w, std::int64_t K, std::optional<float> bias) {
  const BoostExactValue b = oracle::boost_exact_dot(x, w, K, bias);
  oracle::MpfrValue m(oracle::kExactPrecisionBits);
  oracle::mpfr_exact_dot(x, w, K, bias, m.get());
  const std::optional<BoostExactValue> converted = oracle::boost_exact_from_mpfr(m.get());
  if (!converted || !(*converted == b))
    return "exact: Boost " + oracle::describe_exact(b) + ", MPFR " +
           (converted ? oracle::describe_exact(*converted) : std::string("(not a multiple of 2^-298)"));
  const float f[2] = {oracle::boost_round_to_float(b), oracle::mpfr_round_to_float(m.get())};
  if (bits_of(f[0]) != bits_of(f[1]))
    return "binary32: Boost " + describe_float(f[0]) + ", MPFR " + describe_float(f[1]);
  const float h[2] = {oracle::boost_round_to_bf16(b), oracle::mpfr_round_to_bf16(m.get())};
  if (bits_of(h[0]) != bits_of(h[1]))
    return "bfloat16: Boost " + describe_float(h[0]) + ", MPFR " + describe_float(h[1]);
  const double d[2] = {oracle::boost_round_to_double(b), mpfr_get_d(m.get(), MPFR_RNDN)};
  const bool same = (std::isnan(d[0]) && std::isnan(d[1])) ||
                    std::bit_cast<std::uint64_t>(d[0]) == std::bit_cast<std::uint64_t>(d[1]);
  if (same) return "";
  std::ostringstream why;
  why << std::hexfloat << "binary64: Boost " << d[0] << ", MPFR " << d[1];
  return why.str();
}

RC_GTEST_PROP(ExactBoostProperties, AgreesWithMpfrOnEveryValueFamily, ()) {
  using namespace properties;
  const bool bf16_operands = *rc::gen::arbitrary<bool>();
  const ForwardCase c =
      *gen_forward_case({.max_m = 2, .max_n = 2, .max_k = 2048, .max_volume = 1 << 13}, all_families(), bf16_operands);
  RC_TAG(std::string(family_name(c.family)));
  const ForwardProblem p = c.materialize();
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) {
      const std::string why = boost_vs_mpfr(p.x_row(m), p.w_row(n), p.K, p.bias_at(n));
      if (!why.empty()) RC_FAIL("output [" + std::to_string(m) + "," + std::to_string(n) + "] " + why);
    }
}

// Sums placed at, just below and just above a rounding tie of each format (normal and subnormal ties, and
// the tie with 2^128): a product a * c, a power of two at the tie's position and an optional unit nudge.
RC_GTEST_PROP(ExactBoostProperties, AgreesWithMpfrAtRoundingTies, ()) {
  const auto normal_or_edge = [](std::uint32_t sign, std::uint32_t exponent, std::uint32_t fraction) {
    return float_of((sign << 31) | (exponent << 23) | fraction);
  };
  const float a = normal_or_edge(*rc::gen::inRange(0u, 2u), *rc::gen::inRange(0u, 255u),
                                 *rc::gen::element(0u, 0x7FFFFFu, *rc::gen::inRange(0u, 0x800000u)));
  const float c =
      *rc::gen::element(1.0f, -1.0f, normal_or_edge(0, *rc::gen::inRange(1u, 255u), *rc::gen::inRange(0u, 0x800000u)));
  const double product = static_cast<double>(a) * static_cast<double>(c);  // exact
  const int precision = *rc::gen::element(24, 8, 53), offset = *rc::gen::inRange(-1, 2);
  const bool subnormal_tie = *rc::gen::arbitrary<bool>();
  int tie = (product == 0 ? -149 : std::ilogb(product)) - precision + offset;
  if (subnormal_tie) tie = (precision == 8 ? -134 : -150) + offset;
  tie = std::clamp(tie, -298, 254);
  const float h = p2(tie / 2), g = std::ldexp(*rc::gen::element(1.0f, -1.0f), tie - tie / 2);  // h * g = +-2^tie
  std::vector<float> x = {a, h}, w = {c, g};
  if (const int nudge = *rc::gen::inRange(-1, 2)) {
    x.push_back(p2(-149));
    w.push_back(static_cast<float>(nudge) * p2(-149));
  }
  const std::string why = boost_vs_mpfr(x.data(), w.data(), static_cast<std::int64_t>(x.size()), std::nullopt);
  if (!why.empty()) RC_FAIL(why);
}

}  // namespace
}  // namespace ordo
