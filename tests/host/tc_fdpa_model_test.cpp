// The T-FDPA tensor-core model (oracle/tc_fdpa_model.h) on hand-derived values: the facts measured on
// an H200, special values, subnormals, and the places where sm_80 and sm_90 differ.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/float_bits.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {
namespace {

constexpr TcFdpaParams kSm80 = tc_fdpa_params_sm80();
constexpr TcFdpaParams kSm90 = tc_fdpa_params_sm90();

float p2(int e) { return std::ldexp(1.0f, e); }

float step(const TcFdpaParams& p, std::vector<float> a, std::vector<float> b, float c) {
  for (float v : a) EXPECT_TRUE(is_bf16_value(v) || !std::isfinite(v)) << describe_float(v);
  for (float v : b) EXPECT_TRUE(is_bf16_value(v) || !std::isfinite(v)) << describe_float(v);
  return tc_fdpa_step(p, a.data(), b.data(), static_cast<int>(a.size()), c);
}

TEST(TcFdpaModel, MeasuredOnH200AccumulatorTruncatedAwayDuringAlignment) {
  // E = 0 (the products 1 and -1); C = 2^-30 sits 30 binades below and F = 25 keeps 25: C -> 0.
  EXPECT_EQ(bits_of(step(kSm90, {1.0f, 1.0f}, {1.0f, -1.0f}, p2(-30))), 0u);
  // An exact sum would be 2^-30; IEEE chains in any order give 2^-30 or 0 depending on the order.
}

TEST(TcFdpaModel, MeasuredOnH200SumIsTruncatedNotRounded) {
  // 3 * 2^-25 = 1.5 * 2^-24, a product of BF16 values. Aligned: 2^25 + 3 units of 2^-25, exact; then
  // 1 + 0.75 * 2^-23 truncates to 1 where round to nearest would give 1 + 2^-23.
  EXPECT_EQ(step(kSm90, {1.0f, 1.5f}, {1.0f, p2(-24)}, 0.0f), 1.0f);
  EXPECT_EQ(step(kSm90, {-1.0f, 1.5f}, {1.0f, -p2(-24)}, 0.0f), -1.0f);  // toward zero, not down
}

TEST(TcFdpaModel, AlignmentTruncatesEachTermSeparatelyAndFDiffers) {
  // 1 plus eight products 1.5 * 2^-25 (sm_90, F = 25): each keeps 1 unit of 2^-25 (its .5 is cut,
  // no sticky bit), so 1 + 8 * 2^-25 = 1 + 2^-22. Summed before truncating they would be 12 units,
  // 1 + 3 * 2^-23, which is representable: per-term truncation is visible.
  const float t = 1.5f, s = p2(-25);
  EXPECT_EQ(step(kSm90, {1.0f, t, t, t, t, t, t, t, t}, {1.0f, s, s, s, s, s, s, s, s}, 0.0f), 1.0f + p2(-22));
  // sm_80, F = 24, one step of 1 + seven such products: each is 0.75 units of 2^-24 and truncates to 0.
  EXPECT_EQ(step(kSm80, {1.0f, t, t, t, t, t, t, t}, {1.0f, s, s, s, s, s, s, s}, 0.0f), 1.0f);
  // The same step on sm_90 keeps 7 units: 1 + 1.75 * 2^-23, then RZ: 1 + 2^-23. F alone decides.
  EXPECT_EQ(step(kSm90, {1.0f, t, t, t, t, t, t, t}, {1.0f, s, s, s, s, s, s, s}, 0.0f), 1.0f + p2(-23));
}

TEST(TcFdpaModel, Sm80AndSm90DifferInStepLength) {
  // K = 9: sm_80 runs two steps ({1, -1, 0...} -> +0, then C = 0 + 2^-30 = 2^-30), sm_90 one step
  // in which 2^-30 is aligned to E = 0 and lost.
  std::vector<float> x(9, 0.0f), w(9, 0.0f);
  x[0] = 1.0f, w[0] = 1.0f;
  x[1] = 1.0f, w[1] = -1.0f;
  x[8] = p2(-30), w[8] = 1.0f;
  EXPECT_EQ(tc_fdpa_chain(kSm80, x.data(), w.data(), 9), p2(-30));
  EXPECT_EQ(bits_of(tc_fdpa_chain(kSm90, x.data(), w.data(), 9)), 0u);
}

TEST(TcFdpaModel, SpecialValues) {
  const float inf = INFINITY, nan = NAN;
  EXPECT_EQ(bits_of(step(kSm90, {nan, 1.0f}, {1.0f, 1.0f}, 0.0f)), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(step(kSm90, {1.0f}, {1.0f}, nan)), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(step(kSm90, {inf}, {0.0f}, 1.0f)), kCanonicalNaNBits);  // Inf * 0
  EXPECT_EQ(bits_of(step(kSm90, {-0.0f}, {-inf}, 1.0f)), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(step(kSm90, {inf, inf}, {1.0f, -1.0f}, 0.0f)), kCanonicalNaNBits);  // +Inf and -Inf
  EXPECT_EQ(bits_of(step(kSm90, {inf}, {1.0f}, -inf)), kCanonicalNaNBits);  // product +Inf, C -Inf
  EXPECT_EQ(step(kSm90, {inf, 1.0f}, {-2.0f, 1.0f}, 5.0f), -inf);
  EXPECT_EQ(step(kSm90, {inf, inf}, {2.0f, 3.0f}, -5.0f), inf);  // two +Inf products: not NaN
  EXPECT_EQ(step(kSm90, {1.0f}, {1.0f}, inf), inf);
}

TEST(TcFdpaModel, SignedZeros) {
  // Exact zero sums are +0 by this model's policy (the hardware's sign is still to be probed).
  EXPECT_EQ(bits_of(step(kSm90, {-0.0f, 0.0f}, {1.0f, -1.0f}, -0.0f)), 0u);
  EXPECT_EQ(bits_of(step(kSm90, {1.0f}, {-1.0f}, 1.0f)), 0u);
  // A non-zero sum that truncates to zero is +0, not -0 (measured on an H200): -2^-150 -> +0.
  EXPECT_EQ(bits_of(step(kSm90, {-p2(-75)}, {p2(-75)}, 0.0f)), 0u);
}

TEST(TcFdpaModel, SubnormalResultsAreTruncatedNotFlushed) {
  // 1.5 * 2^-75 * 2^-74 = 1.5 * 2^-149: E = e_zero (zero C), the product keeps all bits; RZ gives
  // 2^-149 (round to nearest even would give 2^-148).
  EXPECT_EQ(step(kSm90, {1.5f * p2(-75)}, {p2(-74)}, 0.0f), p2(-149));
  EXPECT_EQ(step(kSm90, {p2(-70)}, {p2(-70)}, 0.0f), p2(-140));
  // A subnormal C survives alignment when E is its own -126.
  EXPECT_EQ(step(kSm90, {p2(-70)}, {p2(-70)}, p2(-140)), p2(-139));
  EXPECT_EQ(step(kSm80, {p2(-70)}, {p2(-70)}, p2(-140)), p2(-139));
}

TEST(TcFdpaModel, SubnormalInputDecomposesWithExponentMinus126) {
  // 2^-133 is BF16's smallest subnormal: significand 2^-7 at e = -126. Times 2^100 the product is
  // 2^-33 but its model exponent is -26, so E = -26 and the unit is 2^-51: 2^-55 is lost. Had the
  // input been renormalised (e = -133), E = -33, unit 2^-58, and the result 2^-33 (1 + 2^-22).
  ASSERT_TRUE(is_bf16_value(p2(-133)));
  EXPECT_EQ(step(kSm90, {p2(-133), p2(-55)}, {p2(100), 1.0f}, 0.0f), p2(-33));
  // Without the subnormal factor the same magnitudes keep 2^-55.
  EXPECT_EQ(step(kSm90, {p2(-33), p2(-55)}, {1.0f, 1.0f}, 0.0f), p2(-33) + p2(-55));
}

TEST(TcFdpaModel, OverflowGivesInfinityPerNumericsNote) {
  // 2^127 * 2 + 2^127 * 2 = 2^129 >= 2^128 -> +Inf (docs/numerics.md §2; IEEE RZ would give FLT_MAX).
  EXPECT_EQ(step(kSm90, {p2(127), p2(127)}, {2.0f, 2.0f}, 0.0f), INFINITY);
  // Products above FLT_MAX that cancel are fine: the sum is exact.
  EXPECT_EQ(step(kSm90, {p2(127), p2(127), 1.0f}, {p2(10), -p2(10), 3.0f}, 0.0f), 0.0f);  // 3 lost
  // FLT_MAX + 2^103 < 2^128 truncates to FLT_MAX (round to nearest would tie to 2^128 = Inf) ...
  EXPECT_EQ(step(kSm90, {p2(103)}, {1.0f}, FLT_MAX), FLT_MAX);
  // ... and FLT_MAX + 2^104 = 2^128 exactly is Inf.
  EXPECT_EQ(step(kSm90, {p2(104)}, {1.0f}, FLT_MAX), INFINITY);
}

TEST(TcFdpaModel, ChainPadsTheKTailWithZeroProducts) {
  std::vector<float> x, w;
  for (int k = 0; k < 20; ++k) {
    x.push_back(round_to_bf16(std::ldexp(1.0f + static_cast<float>(k) / 7.0f, (k * 7) % 23 - 11)));
    w.push_back(round_to_bf16((k % 3 == 0 ? -1.0f : 1.0f) * (1.0f + static_cast<float>(k) / 13.0f)));
  }
  std::vector<float> xp = x, wp = w;
  xp.resize(32, 0.0f), wp.resize(32, 0.0f);
  for (const TcFdpaParams& p : {kSm80, kSm90}) {
    EXPECT_EQ(bits_of(tc_fdpa_chain(p, x.data(), w.data(), 20)), bits_of(tc_fdpa_chain(p, xp.data(), wp.data(), 32)));
  }
  EXPECT_EQ(bits_of(tc_fdpa_chain(kSm90, x.data(), w.data(), 0)), 0u);
}

TEST(TcFdpaModel, ParametersOutsideTheModelledRangeAreRejected) {
  const float one = 1.0f;
  EXPECT_THROW(tc_fdpa_step({16, 22, -133}, &one, &one, 1, 0.0f), std::invalid_argument);
  EXPECT_THROW(tc_fdpa_step({0, 25, -133}, &one, &one, 0, 0.0f), std::invalid_argument);
  EXPECT_THROW(tc_fdpa_step(kSm80, &one, &one, 9, 0.0f), std::invalid_argument);  // n > L
}

TEST(RoundToBf16, NearestEvenOverflowAndNaN) {
  EXPECT_EQ(round_to_bf16(1.0f + p2(-8)), 1.0f);                    // tie -> even
  EXPECT_EQ(round_to_bf16(1.0f + 3 * p2(-8)), 1.0f + p2(-6));       // tie -> even (up)
  EXPECT_EQ(round_to_bf16(1.0f + p2(-8) + p2(-20)), 1.0f + p2(-7));  // above the tie
  EXPECT_EQ(round_to_bf16(-(1.0f + p2(-8) + p2(-20))), -(1.0f + p2(-7)));
  EXPECT_EQ(round_to_bf16(p2(-149)), 0.0f);                         // below half of 2^-133
  EXPECT_EQ(round_to_bf16(p2(-134) + p2(-149)), p2(-133));
  EXPECT_EQ(round_to_bf16(FLT_MAX), INFINITY);
  EXPECT_EQ(bits_of(round_to_bf16(NAN)), 0x7FFF0000u);
  EXPECT_TRUE(is_bf16_value(round_to_bf16(3.14159f)));
  EXPECT_FALSE(is_bf16_value(1.0f + p2(-9)));
}

}  // namespace
}  // namespace ordo::oracle
