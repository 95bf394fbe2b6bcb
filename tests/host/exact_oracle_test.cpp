#include <gtest/gtest.h>

#include <cfloat>

#include "core/float_bits.h"
#include "core/contract.h"
#include "oracle/exact_forward.h"
#include "oracle/plan_error_bound.h"
#include "oracle/fpu_environment.h"
#include "test_support.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace ordo {
namespace {

using testing::dot_problem;
using testing::judge;
using testing::kTwoM24;

TEST(ExactOracle, RoundsTheExactSumOnceToNearestEven) {
  EXPECT_EQ(oracle::correctly_rounded_forward_element(dot_problem({1.0f, kTwoM24, -1.0f}, {1, 1, 1}), 0, 0), kTwoM24);
  // 1 + 2^-24 is a tie: even is 1. 1 + 2^-24 + 2^-48 is just above the tie: 1 + 2^-23.
  EXPECT_EQ(oracle::correctly_rounded_forward_element(dot_problem({1.0f, kTwoM24}, {1, 1}), 0, 0), 1.0f);
  EXPECT_EQ(oracle::correctly_rounded_forward_element(
                dot_problem({1.0f, kTwoM24, std::ldexp(1.0f, -48)}, {1, 1, 1}), 0, 0),
            1.0f + 2 * kTwoM24);
  // Products that span the whole range: 2^127 * 2^127 - 2^127 * 2^127 + 2^-149 * 2^-149 ... the tiny
  // product is below half the smallest subnormal, so the result rounds to +0.
  const float big = std::ldexp(1.0f, 127), tiny = std::ldexp(1.0f, -149);
  EXPECT_EQ(bits_of(oracle::correctly_rounded_forward_element(dot_problem({big, big, tiny}, {big, -big, tiny}), 0, 0)),
            0u);
}

TEST(ExactOracle, ErrorBoundHoldsForTheChainAndCatchesAWrongCandidate) {
  const ForwardProblem p = dot_problem({1.0f, kTwoM24, -1.0f}, {1, 1, 1});
  const oracle::ElementVerdict right = judge(p, 0.0f);
  EXPECT_EQ(right.klass, oracle::ElementClass::finite);
  EXPECT_TRUE(right.within_bound);
  EXPECT_EQ(right.error, static_cast<double>(kTwoM24));
  // gamma_3 * S = ((1 + 2^-24)^3 - 1) * (2 + 2^-24) ~ 6 * 2^-24: the observed error is a sixth of it.
  EXPECT_GT(right.error_over_bound(), 0.1);
  EXPECT_LT(right.error_over_bound(), 0.2);
  // A candidate off by 2^-20 is outside the bound.
  const oracle::ElementVerdict wrong = judge(p, std::ldexp(1.0f, -20));
  EXPECT_FALSE(wrong.within_bound);
}

TEST(ExactOracle, NonFiniteInputsAreClassifiedNotJudged) {
  const ForwardProblem p = dot_problem({INFINITY}, {1.0f});
  EXPECT_EQ(judge(p, INFINITY).klass, oracle::ElementClass::nonfinite_input);
}

TEST(FpuEnvironment, DefaultIsCleanAndFlushToZeroIsDetected) {
  EXPECT_EQ(oracle::host_fpu_environment_problem(), "");
#if defined(__x86_64__)
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | (1u << 15));
  const std::string problem = oracle::host_fpu_environment_problem();
  _mm_setcsr(saved);
  EXPECT_NE(problem.find("flush-to-zero"), std::string::npos) << problem;
#endif
}

}  // namespace
}  // namespace ordo
