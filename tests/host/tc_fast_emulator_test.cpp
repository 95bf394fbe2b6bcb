// The T-FDPA lane kernel (oracle/tc_fdpa_lanes.h) behind emulate_dot's tensor-core path, against the
// plain scalar reference (oracle::reference_dot, which folds tc_fdpa_step one element at a time), bit
// for bit: hand-made edge vectors of the model (oracle/tc_fdpa_model.h), RapidCheck properties over
// every value family, sm_80 and sm_90 parameters and any other set the plan validation allows (the
// int32 and the binary64 sums), chains and segments, on every ISA this CPU runs.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/contract.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "oracle/plan_emulator_tc.h"
#include "oracle/tc_fdpa_lanes.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/forward_case.h"
#include "test_support.h"

namespace ordo {
namespace {

using oracle::TcLaneIsa;
using testing::dot_problem;

ReductionPlan sm80() { return contract_fwd_bf16_tc_fdpa_sm80().plan; }
ReductionPlan sm90() { return contract_fwd_bf16_tc_fdpa_sm90().plan; }
float p2(int e) { return std::ldexp(1.0f, e); }

std::vector<TcLaneIsa> isas() {
  std::vector<TcLaneIsa> r;
  for (TcLaneIsa isa : {TcLaneIsa::avx512, TcLaneIsa::avx2, TcLaneIsa::generic})
    if (oracle::tc_lane_isa_supported(isa)) r.push_back(isa);
  return r;
}

// The first element where two outputs differ in their bits, or "" when none does.
std::string first_difference(const std::vector<float>& got, const std::vector<float>& want, std::int64_t N) {
  if (got.size() != want.size()) return "sizes differ";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (bits_of(got[i]) != bits_of(want[i]))
      return "y[" + std::to_string(static_cast<std::int64_t>(i) / N) + "," + std::to_string(static_cast<std::int64_t>(i) % N) +
             "] = " + describe_float(got[i]) + ", reference " + describe_float(want[i]);
  return "";
}

// Every fast path (emulate_dot, the lane kernel on each ISA, one and two threads) against the reference.
std::string fast_paths_difference(const ReductionPlan& plan, const ForwardProblem& p) {
  const std::vector<float> want = oracle::reference_dot(plan, p);
  if (std::string d = first_difference(oracle::emulate_dot(plan, p), want, p.N); !d.empty()) return "emulate_dot: " + d;
  for (TcLaneIsa isa : isas())
    for (unsigned threads : {1u, 2u})
      if (std::string d = first_difference(oracle::emulate_dot_tc_lanes(plan, p, isa, threads), want, p.N); !d.empty())
        return std::string(oracle::tc_lane_isa_name(isa)) + ", " + std::to_string(threads) + " thread(s): " + d;
  return "";
}

// One element through every path; returns its value after checking they agree.
float one(const ReductionPlan& plan, std::vector<float> x, std::vector<float> w, std::optional<float> bias = {}) {
  const ForwardProblem p = dot_problem(std::move(x), std::move(w), bias);
  EXPECT_EQ(fast_paths_difference(plan, p), "");
  return oracle::emulate_dot(plan, p)[0];
}

ReductionPlan bias_first(ReductionPlan p) {
  p.bias = BiasPlacement::initial_accumulator;
  return p;
}

TEST(TcFastEmulator, AccumulatorBelowTheStepsExponentIsTruncatedAway) {
  // C = 2^-30 next to products 1 and -1: E = 0, F = 25 keeps 25 bits below 2^0, C is lost.
  EXPECT_EQ(bits_of(one(bias_first(sm90()), {1.0f, 1.0f}, {1.0f, -1.0f}, p2(-30))), 0u);
  // sm_80 (F = 24) loses it the same way; in a later step of its own it survives.
  EXPECT_EQ(bits_of(one(bias_first(sm80()), {1.0f, 1.0f}, {1.0f, -1.0f}, p2(-30))), 0u);
  std::vector<float> x(32, 0.0f), w(32, 1.0f);
  x[0] = p2(-30), x[16] = 1.0f, x[17] = -1.0f;
  EXPECT_EQ(bits_of(one(sm90(), x, w)), 0u);
}

TEST(TcFastEmulator, TheSumIsTruncatedNotRounded) {
  // 1 + 1.5 * 2^-24 = 1 + 3 * 2^-25: exact after alignment, then truncated to 1 (nearest would be 1 + 2^-23).
  EXPECT_EQ(one(sm90(), {1.0f, 1.5f}, {1.0f, p2(-24)}), 1.0f);
  EXPECT_EQ(one(sm90(), {-1.0f, 1.5f}, {1.0f, -p2(-24)}), -1.0f);  // toward zero, not down
  // Each term is truncated on its own: eight 1.5 * 2^-25 keep 1 unit each on sm_90 (1 + 2^-22); on
  // sm_80 seven of them are 0.75 units of 2^-24 and vanish.
  const float t = 1.5f, s = p2(-25);
  EXPECT_EQ(one(sm90(), {1.0f, t, t, t, t, t, t, t, t}, {1.0f, s, s, s, s, s, s, s, s}), 1.0f + p2(-22));
  EXPECT_EQ(one(sm80(), {1.0f, t, t, t, t, t, t, t}, {1.0f, s, s, s, s, s, s, s}), 1.0f);
}

TEST(TcFastEmulator, SubnormalProductsInputsAndAccumulators) {
  EXPECT_EQ(one(sm90(), {1.5f * p2(-75)}, {p2(-74)}), p2(-149));  // truncated, not rounded to 2^-148
  EXPECT_EQ(one(sm90(), {p2(-70)}, {p2(-70)}), p2(-140));
  for (const ReductionPlan& plan : {bias_first(sm80()), bias_first(sm90())})
    EXPECT_EQ(one(plan, {p2(-70)}, {p2(-70)}, p2(-140)), p2(-139));  // a subnormal C
  // A subnormal input decomposes at e = -126: E = -26 and 2^-55 is below the step's last bit.
  EXPECT_EQ(one(sm90(), {p2(-133), p2(-55)}, {p2(100), 1.0f}), p2(-33));
  // A negative sum that truncates to zero is +0.
  EXPECT_EQ(bits_of(one(sm90(), {-p2(-75)}, {p2(-75)})), 0u);
  EXPECT_EQ(bits_of(one(bias_first(sm90()), {-p2(-75)}, {p2(-75)}, -p2(-149))), 0x80000001u);
}

TEST(TcFastEmulator, SignsOfZero) {
  ReductionPlan negative_start = sm90();
  negative_start.start_negative_zero = true;
  // Exact zero sums are +0, whatever the signs of the terms.
  EXPECT_EQ(bits_of(one(negative_start, {-0.0f, 0.0f}, {1.0f, -1.0f})), 0u);
  EXPECT_EQ(bits_of(one(bias_first(sm90()), {1.0f}, {-1.0f}, 1.0f)), 0u);
  // No step at all (K = 0): the start value -0 stays, and so does a -0 bias as the accumulator.
  EXPECT_EQ(bits_of(one(negative_start, {}, {})), 0x80000000u);
  EXPECT_EQ(bits_of(one(bias_first(sm90()), {}, {}, -0.0f)), 0x80000000u);
  // A bias after the chain: +0 + -0 = +0.
  EXPECT_EQ(bits_of(one(sm90(), {-0.0f}, {1.0f}, -0.0f)), 0u);
}

TEST(TcFastEmulator, OverflowToInfinityAndTheFltMaxEdge) {
  EXPECT_EQ(one(sm90(), {p2(127), p2(127)}, {2.0f, 2.0f}), INFINITY);  // 2^129
  EXPECT_EQ(one(sm90(), {p2(127), p2(126)}, {2.0f, 2.0f}), INFINITY);  // 1.5 * 2^128
  EXPECT_EQ(one(sm80(), {-p2(127), -p2(127)}, {2.0f, 2.0f}), -INFINITY);
  EXPECT_EQ(one(sm90(), {p2(127), p2(127), 1.0f}, {p2(10), -p2(10), 3.0f}), 0.0f);  // cancels; 3 lost
  EXPECT_EQ(one(bias_first(sm90()), {p2(103)}, {1.0f}, FLT_MAX), FLT_MAX);  // below 2^128: truncates
  EXPECT_EQ(one(bias_first(sm90()), {p2(104)}, {1.0f}, FLT_MAX), INFINITY);  // exactly 2^128
  // A chain reaching 2^128 in its second step, then the rules for Inf: a finite step keeps it, an Inf of
  // the other sign makes NaN.
  std::vector<float> x(48, p2(123)), w(48, 1.0f);
  for (int k = 32; k < 48; ++k) x[k] = 1.0f;
  EXPECT_EQ(one(sm90(), x, w), INFINITY);
  x[40] = -INFINITY;
  EXPECT_EQ(bits_of(one(sm90(), x, w)), kCanonicalNaNBits);
}

TEST(TcFastEmulator, NaNAndInfinityOperands) {
  const float inf = INFINITY, nan = NAN;
  EXPECT_EQ(bits_of(one(sm90(), {nan, 1.0f}, {1.0f, 1.0f})), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(one(sm90(), {inf}, {0.0f})), kCanonicalNaNBits);                // Inf * 0
  EXPECT_EQ(bits_of(one(sm90(), {inf, inf}, {1.0f, -1.0f})), kCanonicalNaNBits);    // +Inf and -Inf
  EXPECT_EQ(one(sm90(), {inf, 1.0f}, {-2.0f, 1.0f}), -inf);
  EXPECT_EQ(one(bias_first(sm90()), {1.0f}, {1.0f}, inf), inf);
  EXPECT_EQ(bits_of(one(bias_first(sm90()), {inf}, {1.0f}, -inf)), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(one(bias_first(sm80()), {1.0f}, {1.0f}, nan)), kCanonicalNaNBits);
  ReductionPlan bf16_out = sm90();
  bf16_out.output_dtypes = {DType::f32, DType::bf16};
  ForwardProblem p = dot_problem({nan}, {1.0f});
  p.bf16_output = true;
  EXPECT_EQ(fast_paths_difference(bf16_out, p), "");
  EXPECT_EQ(bits_of(oracle::emulate_dot(bf16_out, p)[0]), 0x7FFF0000u);
}

// Special lanes take the scalar model; the lanes around them in the same tile must not notice.
TEST(TcFastEmulator, SpecialLanesLeaveTheirNeighboursAlone) {
  ForwardProblem p;
  p.M = 6, p.N = 37, p.K = 40;
  for (std::int64_t i = 0; i < p.M * p.K; ++i)
    p.x.push_back(oracle::round_to_bf16(std::ldexp(1.0f + static_cast<float>(i % 13) / 16.0f, static_cast<int>(i % 9) - 4)));
  for (std::int64_t i = 0; i < p.N * p.K; ++i)
    p.w.push_back(oracle::round_to_bf16((i % 3 ? 1.0f : -1.0f) * std::ldexp(1.0f + static_cast<float>(i % 7) / 8.0f, static_cast<int>(i % 5) - 2)));
  p.x[2 * p.K + 5] = NAN;                          // row 2
  p.w[17 * p.K + 3] = INFINITY;                    // column 17
  p.w[20 * p.K + 1] = p2(127), p.x[4 * p.K + 1] = p2(127);  // (4, 20) overflows
  p.bias = std::vector<float>(static_cast<std::size_t>(p.N), 0.5f);
  (*p.bias)[30] = -INFINITY;
  EXPECT_EQ(fast_paths_difference(sm90(), p), "");
  EXPECT_EQ(fast_paths_difference(bias_first(sm80()), p), "");
}

// The narrow kernel's int32 sum at its limit: sixteen products of the largest significand (255/128)^2
// at E and a C of the same exponent push |sum| past 2^31 (but not 2^32), in both signs.
TEST(TcFastEmulator, TheInt32SumAtItsLimit) {
  const float big = oracle::round_to_bf16(1.9921875f);  // 0x3fff
  ASSERT_TRUE(oracle::tc_lane_kernel_is_narrow(oracle::tc_fdpa_params_sm90()));
  for (float sign : {1.0f, -1.0f}) {
    const std::vector<float> x(16, sign * big), w(16, big);
    const float c = sign * (2.0f - p2(-23));
    const float y = one(bias_first(sm90()), x, w, c);
    // 16 * 133169152 + 67108860 = 2197848060 units of 2^-25 (> 2^31), truncated to 24 bits: 65.50096893...
    EXPECT_EQ(y, sign * 65.50096893310547f);
  }
}

// Parameter sets other than the GPUs', as the plan validation allows: the binary64 sum (F = 40,
// L = 64; F = 29), L = 1 and 3, e_zero far below -126.
TEST(TcFastEmulator, OtherParameterSets) {
  struct Set { int L, F, e_zero, k_width; };
  const Set sets[] = {{64, 40, -133, 128}, {16, 29, -133, 16}, {1, 23, -126, 1}, {3, 31, -1000, 6},
                      {8, 24, -300, 16},   {32, 26, -150, 64}, {5, 40, -2000, 5}};
  for (const Set& s : sets) {
    ReductionPlan plan = sm90();
    plan.step.tc = {s.L, s.F, s.e_zero, s.k_width};
    ASSERT_EQ(plan_problem(plan, ContractKind::forward), "");
    const ForwardProblem p = dot_problem({1.0f, p2(-30), 1.5f, -1.0f, p2(-133), p2(100), -p2(-60)},
                                         {1.0f, 1.0f, p2(-24), 1.0f, 3.0f, p2(27), p2(-70)}, p2(-20));
    EXPECT_EQ(fast_paths_difference(plan, p), "") << "L=" << s.L << " F=" << s.F;
    EXPECT_EQ(fast_paths_difference(bias_first(plan), p), "") << "L=" << s.L << " F=" << s.F;
  }
}

// ---- Properties ----

rc::Gen<TcFdpaStep> gen_step() {
  return rc::gen::oneOf(
      rc::gen::just(TcFdpaStep{8, 24, -132, 16}), rc::gen::just(TcFdpaStep{16, 25, -133, 16}),
      rc::gen::apply(
          [](int L, int F, int e_zero, int width_factor) { return TcFdpaStep{L, F, e_zero, L * width_factor}; },
          rc::gen::inRange(1, 65), rc::gen::inRange(23, 41), rc::gen::element(-126, -127, -133, -160, -252, -299, -400),
          rc::gen::element(1, 2, 4)));
}

rc::Gen<ReductionPlan> gen_tc_plan(rc::Gen<TcFdpaStep> steps) {
  return rc::gen::apply(
      [](TcFdpaStep step, bool segmented, int length_units, bool pairwise, int padding, bool negative_start,
         bool bias_initial, bool bf16_output, int nan) {
        ReductionPlan p = sm90();
        p.step.tc = step;
        if (segmented) {
          p.structure = KStructure::segments;
          p.segment_length = length_units * p.step.width();
          p.combine = pairwise ? SegmentCombine::pairwise_tree : SegmentCombine::ascending_add_rn;
        }
        p.k_padding_multiple = padding;
        p.start_negative_zero = negative_start;
        p.bias = bias_initial ? BiasPlacement::initial_accumulator : BiasPlacement::after_chain_add_rn;
        p.output_dtypes = bf16_output ? std::vector<DType>{DType::f32, DType::bf16} : std::vector<DType>{DType::f32};
        p.nan_bits = nan == 0 ? std::optional<std::uint32_t>{} : nan == 1 ? 0x7FFFFFFFu : 0xFFC00001u;
        return p;
      },
      steps, rc::gen::arbitrary<bool>(), rc::gen::inRange(1, 5), rc::gen::arbitrary<bool>(),
      rc::gen::element(1, 2, 3, 8, 32, 48), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(),
      rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 3));
}

rc::Gen<properties::ForwardCase> gen_case(const ReductionPlan& plan) {
  const properties::ShapeLimits limits{.max_m = 9, .max_n = 40, .max_k = 300, .max_volume = 1 << 14};
  return properties::gen_forward_case(
      limits, properties::all_families(),
      properties::CaseOptions{.bf16_operands = true, .k_multiple = 1, .bf16_output_sometimes = plan.allows_output(DType::bf16)});
}

void require_equal(const ReductionPlan& plan, const properties::ForwardCase& fc) {
  RC_ASSERT(plan_problem(plan, ContractKind::forward).empty());
  const std::string d = fast_paths_difference(plan, fc.materialize());
  if (!d.empty()) RC_FAIL(fc.summary() + ", L=" + std::to_string(plan.step.tc.L) + " F=" + std::to_string(plan.step.tc.F) +
                          " e_zero=" + std::to_string(plan.step.tc.e_zero) + ": " + d);
}

RC_GTEST_PROP(TcFastEmulatorProperties, EqualsTheScalarReferenceOnSm80AndSm90, ()) {
  const ReductionPlan plan = *gen_tc_plan(rc::gen::element(TcFdpaStep{8, 24, -132, 16}, TcFdpaStep{16, 25, -133, 16}));
  require_equal(plan, *gen_case(plan));
}

RC_GTEST_PROP(TcFastEmulatorProperties, EqualsTheScalarReferenceForAnyValidParameters, ()) {
  const ReductionPlan plan = *gen_tc_plan(gen_step());
  require_equal(plan, *gen_case(plan));
}

// One step with an arbitrary finite FP32 accumulator (any bit pattern: subnormal, FLT_MAX, ...; a chain
// reaches far fewer) and bfloat16 operands of any finite exponent, against tc_fdpa_step itself.
RC_GTEST_PROP(TcFastEmulatorProperties, OneStepFromAnyAccumulatorEqualsTheModel, ()) {
  const TcFdpaStep step = *gen_step();
  const auto finite_bits = [](std::uint32_t u) { return (u & 0x7F800000u) != 0x7F800000u; };
  const std::uint32_t c_bits = *rc::gen::suchThat(rc::gen::arbitrary<std::uint32_t>(), finite_bits);
  const auto operands = *rc::gen::container<std::vector<std::uint16_t>>(
      static_cast<std::size_t>(2 * step.L), rc::gen::suchThat(rc::gen::arbitrary<std::uint16_t>(), [](std::uint16_t h) {
        return (h & 0x7F80u) != 0x7F80u;
      }));
  std::vector<float> x, w;
  for (int i = 0; i < step.L; ++i) {
    x.push_back(float_of(static_cast<std::uint32_t>(operands[static_cast<std::size_t>(i)]) << 16));
    w.push_back(float_of(static_cast<std::uint32_t>(operands[static_cast<std::size_t>(step.L + i)]) << 16));
  }
  ReductionPlan plan = bias_first(sm90());
  plan.step.tc = step;
  plan.step.tc.k_width = step.L;
  const float c = float_of(c_bits);
  const float want = oracle::finish_output(
      plan, oracle::tc_fdpa_step({step.L, step.F, step.e_zero}, x.data(), w.data(), step.L, c), false);
  const ForwardProblem p = dot_problem(x, w, c);
  for (TcLaneIsa isa : isas()) {
    const float got = oracle::emulate_dot_tc_lanes(plan, p, isa, 1)[0];
    RC_ASSERT(bits_of(got) == bits_of(want));
  }
}

}  // namespace
}  // namespace ordo
