// The superaccumulator on hand-derived values, and against MPFR as a RapidCheck property.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cfloat>
#include <cmath>

#include "core/float_bits.h"
#include "oracle/exact_gemm.h"
#include "oracle/superaccumulator.h"
#include "properties/exact_checks.h"
#include "properties/suite.h"
#include "test_support.h"

namespace ordo {
namespace {

using oracle::Superaccumulator;

Superaccumulator dot(std::initializer_list<std::pair<float, float>> terms) {
  Superaccumulator acc;
  for (auto [a, b] : terms) acc.add_product(a, b);
  return acc;
}

TEST(Superaccumulator, ExactAcrossTheWholeRange) {
  const float big = std::ldexp(1.0f, 127), tiny = std::ldexp(1.0f, -149);
  // 2^254 - 2^254 + 2^-298: only the product of two smallest subnormals is left.
  const Superaccumulator acc = dot({{big, big}, {big, -big}, {tiny, tiny}});
  EXPECT_EQ(acc.to_double(), std::ldexp(1.0, -298));
  EXPECT_EQ(bits_of(acc.to_float()), 0u);  // far below half the smallest binary32 subnormal
}

TEST(Superaccumulator, RoundsOnceToNearestEven) {
  const float u = std::ldexp(1.0f, -24);
  EXPECT_EQ(dot({{1, 1}, {u, 1}}).to_float(), 1.0f);                                   // tie -> even
  EXPECT_EQ(dot({{1, 1}, {u, 1}, {std::ldexp(1.0f, -48), 1}}).to_float(), 1.0f + 2 * u);  // above the tie
  EXPECT_EQ(dot({{1, 1}, {3 * u, 1}}).to_float(), 1.0f + 4 * u);                        // tie -> even (up)
  // bfloat16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> 1; 1 + 3*2^-8 -> 1 + 2^-6.
  EXPECT_EQ(dot({{1, 1}, {std::ldexp(1.0f, -8), 1}}).to_bf16(), 1.0f);
  EXPECT_EQ(dot({{1, 1}, {std::ldexp(3.0f, -8), 1}}).to_bf16(), 1.0f + std::ldexp(1.0f, -6));
}

TEST(Superaccumulator, SubnormalResults) {
  // 3 * 2^-150 is halfway between 2^-149 and 2^-148: even is 2^-148.
  EXPECT_EQ(bits_of(dot({{std::ldexp(1.5f, -75), std::ldexp(1.0f, -74)}}).to_float()), 2u);
  // bfloat16's smallest subnormal is 2^-133; 2^-134 exactly is a tie with 0 -> 0; a bit more -> 2^-133.
  EXPECT_EQ(dot({{std::ldexp(1.0f, -67), std::ldexp(1.0f, -67)}}).to_bf16(), 0.0f);
  Superaccumulator above = dot({{std::ldexp(1.0f, -67), std::ldexp(1.0f, -67)}});
  above.add_product(std::ldexp(1.0f, -149), std::ldexp(1.0f, -149));
  EXPECT_EQ(above.to_bf16(), std::ldexp(1.0f, -133));
}

TEST(Superaccumulator, OverflowAndSpecialValues) {
  EXPECT_EQ(dot({{FLT_MAX, 1}, {FLT_MAX, 1}, {-FLT_MAX, 1}}).to_float(), FLT_MAX);  // exact, no overflow
  EXPECT_EQ(dot({{FLT_MAX, 2}}).to_float(), INFINITY);
  EXPECT_EQ(dot({{-FLT_MAX, 2}}).to_bf16(), -INFINITY);
  EXPECT_EQ(bits_of(dot({{INFINITY, 0}}).to_float()), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(dot({{INFINITY, 1}, {-INFINITY, 1}}).to_float()), kCanonicalNaNBits);
  EXPECT_EQ(dot({{INFINITY, 1}, {FLT_MAX, FLT_MAX}}).to_float(), INFINITY);
  EXPECT_TRUE(std::isnan(dot({{NAN, 1}}).to_double()));
}

TEST(Superaccumulator, SignOfAnExactZero) {
  EXPECT_EQ(bits_of(dot({{-0.0f, 1}, {0.0f, -1}}).to_float()), 0x80000000u);  // all terms -0
  EXPECT_EQ(bits_of(dot({{-0.0f, 1}, {0.0f, 1}}).to_float()), 0u);            // one +0
  EXPECT_EQ(bits_of(dot({{1, 1}, {-1, 1}}).to_float()), 0u);                  // cancellation
  Superaccumulator with_bias = dot({{-0.0f, 1}});
  with_bias.add(-0.0f);
  EXPECT_TRUE(std::signbit(with_bias.to_double()));
}

TEST(Superaccumulator, ManyTermsPastTheCarryInterval) {
  // 2^29 + 5 additions force a carry pass between them (every 2^29 additions).
  Superaccumulator acc;
  const float a = 16777216.0f;  // 2^24
  const std::int64_t n = (std::int64_t(1) << 29) + 5;
  for (std::int64_t i = 0; i < n; ++i) acc.add_product(a, a);
  EXPECT_EQ(acc.to_double(), std::ldexp(static_cast<double>(n), 48));
}

TEST(ExactGemm, MatchesMpfrAndReportsErrors) {
  ForwardProblem p;
  p.M = 2;
  p.N = 3;
  p.K = 3;
  const float u = testing::kTwoM24;
  p.x = {1, u, -1, 2, 3, 4};
  p.w = {1, 1, 1, 1, 0, 0, 0, 0, 1};
  p.bias = std::vector<float>{0, 0, 0.5f};
  const oracle::ExactForward e = oracle::exact_forward(p);
  EXPECT_EQ(e.f32, (std::vector<float>{u, 1, -0.5f, 9, 2, 4.5f}));
  std::vector<float> got = e.f32;
  got[0] = 0;  // what the FMA chain gives for 1 + 2^-24 - 1
  const oracle::ErrorSummary s = oracle::summarize_errors(got, e);
  EXPECT_EQ(s.compared, 6);
  EXPECT_EQ(s.max_relative_error, 1.0);
  EXPECT_EQ(s.max_abs_error, static_cast<double>(u));
}

RC_GTEST_PROP(SuperaccumulatorProperties, AgreesWithMpfrExactlyAndWhenRounded, ()) {
  using namespace properties;
  const ForwardCase c = *gen_forward_case({.max_m = 3, .max_n = 3, .max_k = 4096, .max_volume = 1 << 14}, all_families());
  RC_TAG(std::string(family_name(c.family)));
  const CheckResult r = check_superacc_equals_mpfr(c);
  if (!r.passed) RC_FAIL(r.detail);
}

}  // namespace
}  // namespace ordo
