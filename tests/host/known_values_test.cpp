// Hand-derived values of contract fwd.f32.fma-chain/1: each one is a place where a different order,
// a different rounding or a different special-value rule gives different bits.
#include <gtest/gtest.h>

#include <cfloat>

#include "core/float_bits.h"
#include "core/contract.h"
#include "oracle/exact_forward.h"
#include "oracle/plan_error_bound.h"
#include "oracle/plan_emulator.h"
#include "test_support.h"

namespace ordo {
namespace {

using testing::dot_problem;
using testing::judge;
using testing::kTwoM24;

float emulate_one(const ForwardProblem& p) {
  const ReductionPlan& plan = contract_fwd_f32_fma_chain().plan;
  const float fast = oracle::emulate_dot(plan, p)[0];
  EXPECT_EQ(bits_of(fast), bits_of(oracle::reference_dot(plan, p)[0]));
  return fast;
}

TEST(KnownValues, OrderOfOneTwoM24MinusOneDecidesTheResult) {
  // acc: 1, then fma(2^-24, 1, 1) = 1 + 2^-24 rounds to even = 1, then 1 - 1 = 0.
  EXPECT_EQ(bits_of(emulate_one(dot_problem({1.0f, kTwoM24, -1.0f}, {1, 1, 1}))), bits_of(0.0f));
  // Reversed: -1, then -1 + 2^-24 = -(1 - 2^-24) exactly, then + 1 = 2^-24.
  EXPECT_EQ(emulate_one(dot_problem({-1.0f, kTwoM24, 1.0f}, {1, 1, 1})), kTwoM24);
}

TEST(KnownValues, FusedMultiplyAddRoundsOnce) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: a separate multiply would round the product to 1 + 2^-11
  // (tie to even); the fused operation adds -1 to the exact product and keeps 2^-11 + 2^-24.
  const float a = 1.0f + std::ldexp(1.0f, -12);
  EXPECT_EQ(emulate_one(dot_problem({-1.0f, a}, {1.0f, a})), std::ldexp(1.0f, -11) + kTwoM24);
}

TEST(KnownValues, BiasIsAddedAfterTheChainWithOneRounding) {
  // chain: 2^-24; + bias 1 -> 1 + 2^-24 ties to even -> 1. Bias first would give 1 + 2^-24 + ... differently.
  EXPECT_EQ(emulate_one(dot_problem({kTwoM24}, {1.0f}, 1.0f)), 1.0f);
  EXPECT_EQ(emulate_one(dot_problem({3 * kTwoM24}, {1.0f}, 1.0f)), 1.0f + 4 * kTwoM24);  // 1.5 ulp: tie to even
}

TEST(KnownValues, SignedZeros) {
  // The chain starts at +0: fma(-0, 1, +0) = +0 under round to nearest; the bias -0 keeps +0.
  EXPECT_EQ(bits_of(emulate_one(dot_problem({-0.0f}, {1.0f}))), 0x00000000u);
  EXPECT_EQ(bits_of(emulate_one(dot_problem({-0.0f, -0.0f}, {1.0f, 1.0f}, -0.0f))), 0x00000000u);
  // But a product that underflows rounds to a zero with its own sign: fma(-1e-30, 1e-30, +0) = -0.
  // (So a kernel may not pad the K tail with +0 * +0: that would turn this -0 into +0.)
  EXPECT_EQ(bits_of(emulate_one(dot_problem({-1e-30f}, {1e-30f}))), 0x80000000u);
  EXPECT_EQ(bits_of(emulate_one(dot_problem({-1e-30f, 0.0f}, {1e-30f, -0.0f}))), 0x80000000u);
  // An exact cancellation gives +0.
  EXPECT_EQ(bits_of(emulate_one(dot_problem({-1.0f, 1.0f}, {1.0f, 1.0f}))), 0x00000000u);
}

TEST(KnownValues, SubnormalsAreKept) {
  const float tiny = std::ldexp(1.0f, -149);
  EXPECT_EQ(bits_of(emulate_one(dot_problem({tiny}, {1.0f}))), 0x00000001u);
  // 2^-75 * 2^-75 = 2^-150: exactly half the smallest subnormal, ties to even -> +0.
  EXPECT_EQ(bits_of(emulate_one(dot_problem({std::ldexp(1.0f, -75)}, {std::ldexp(1.0f, -75)}))), 0x00000000u);
  // 3 * 2^-150 ties to even -> 2 * 2^-149.
  EXPECT_EQ(bits_of(emulate_one(dot_problem({std::ldexp(1.5f, -75)}, {std::ldexp(1.0f, -74)}))), 0x00000002u);
}

TEST(KnownValues, NaNResultsHaveTheCanonicalBits) {
  const float payload_nan = float_of(0xFFC01234u);
  EXPECT_EQ(bits_of(emulate_one(dot_problem({payload_nan, 1.0f}, {1.0f, 1.0f}))), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(emulate_one(dot_problem({INFINITY, 1.0f}, {0.0f, 1.0f}))), kCanonicalNaNBits);  // Inf * 0
  EXPECT_EQ(bits_of(emulate_one(dot_problem({INFINITY, -INFINITY}, {1.0f, 1.0f}))), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(emulate_one(dot_problem({1.0f}, {1.0f}, float_of(0x7FA00000u)))), kCanonicalNaNBits);
}

TEST(KnownValues, OverflowInsideTheChain) {
  // FLT_MAX + FLT_MAX overflows to +Inf, which the -FLT_MAX cannot bring back; exact answer FLT_MAX.
  const ForwardProblem p = dot_problem({FLT_MAX, FLT_MAX, -FLT_MAX}, {1, 1, 1});
  EXPECT_EQ(emulate_one(p), INFINITY);
  EXPECT_EQ(oracle::correctly_rounded_forward_element(p, 0, 0), FLT_MAX);
  EXPECT_EQ(judge(p, INFINITY).klass, oracle::ElementClass::overflowed);
  // 2^64 * 2^64 overflows; the fused second step computes Inf + (-2^128) exactly = +Inf (not NaN,
  // as separate products would give); the exact answer is 0.
  const float big = std::ldexp(1.0f, 64);
  const ForwardProblem q = dot_problem({big, big}, {big, -big});
  EXPECT_EQ(emulate_one(q), INFINITY);
  EXPECT_EQ(oracle::correctly_rounded_forward_element(q, 0, 0), 0.0f);
}

}  // namespace
}  // namespace ordo
