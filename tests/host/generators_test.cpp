// The generators must produce what they claim: a property over values that never occur proves nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>

#include "core/contract.h"
#include "core/float_bits.h"
#include "kernels/backward_internal.h"
#include "kernels/forward_internal.h"
#include "kernels/wgmma_schedule.h"
#include "properties/forward_case.h"
#include "properties/suite.h"

namespace ordo::properties {
namespace {

struct Seen {
  int nan = 0, inf = 0, subnormal = 0, neg_zero = 0, pos_zero = 0, normal = 0;
};

// A case of M x N x K values of `family`, drawn from `seed`.
ForwardCase case_of(std::int64_t M, std::int64_t N, std::int64_t K, ValueFamily family, std::uint64_t seed,
                    bool has_bias) {
  ForwardCase c;
  c.M = M;
  c.N = N;
  c.K = K;
  c.family = family;
  c.has_bias = has_bias;
  c.seed = seed;
  return c;
}

Seen sample(ValueFamily f, int count = 4000) {
  Rng rng(42);
  Seen s;
  for (int i = 0; i < count; ++i) {
    const float v = sample_value(f, rng);
    if (std::isnan(v)) ++s.nan;
    else if (std::isinf(v)) ++s.inf;
    else if (v == 0) (std::signbit(v) ? s.neg_zero : s.pos_zero)++;
    else if (std::fpclassify(v) == FP_SUBNORMAL) ++s.subnormal;
    else ++s.normal;
  }
  return s;
}

TEST(ValueFamilies, EachFamilyYieldsItsSpecialValues) {
  EXPECT_GT(sample(ValueFamily::nan_inf).nan, 100);
  EXPECT_GT(sample(ValueFamily::nan_inf).inf, 100);
  EXPECT_GT(sample(ValueFamily::subnormal).subnormal, 1000);
  EXPECT_GT(sample(ValueFamily::signed_zero).neg_zero, 1000);
  EXPECT_GT(sample(ValueFamily::signed_zero).pos_zero, 1000);
  const Seen uniform = sample(ValueFamily::uniform);
  EXPECT_EQ(uniform.nan + uniform.inf + uniform.subnormal, 0);
}

TEST(ValueFamilies, NaNPayloadsAndSignsVary) {
  Rng rng(7);
  std::set<std::uint32_t> nan_bits;
  for (int i = 0; i < 20000; ++i) {
    const float v = sample_value(ValueFamily::nan_inf, rng);
    if (std::isnan(v)) nan_bits.insert(bits_of(v));
  }
  EXPECT_GT(nan_bits.size(), 100u);  // not just the canonical NaN the GPU produces
  bool negative = false;
  for (std::uint32_t b : nan_bits) negative |= (b >> 31) != 0;
  EXPECT_TRUE(negative);
}

TEST(ValueFamilies, OrderFamilyContainsTheReviewersValues) {
  Rng rng(1);
  std::set<float> seen;
  for (int i = 0; i < 2000; ++i) seen.insert(sample_value(ValueFamily::order_2m24, rng));
  EXPECT_TRUE(seen.count(1.0f) && seen.count(-1.0f) && seen.count(std::ldexp(1.0f, -24)));
}

TEST(ValueFamilies, CancellationCasesCancelExactly) {
  const ForwardCase c = case_of(3, 4, 8, ValueFamily::cancellation, 99, false);
  const ForwardProblem p = c.materialize();
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n)
      for (std::int64_t k = 0; k < p.K; k += 2)
        EXPECT_EQ(static_cast<double>(p.x_at(m, k)) * p.w_at(n, k), -static_cast<double>(p.x_at(m, k + 1)) * p.w_at(n, k + 1));
}

TEST(ShapeGenerator, HitsTileEdgesAndStaysWithinLimits) {
  const ShapeLimits limits = gpu_shape_limits(1);
  const auto gen = gen_forward_case(limits, all_families());
  rc::Random root(3);
  std::set<std::int64_t> dims;
  for (int i = 0; i < 3000; ++i) {
    const ForwardCase c = gen(root.split(), rc::kNominalSize).value();
    EXPECT_GE(c.M, 1);
    EXPECT_LE(c.M, limits.max_m);
    EXPECT_LE(c.N, limits.max_n);
    EXPECT_LE(c.K, limits.max_k);
    EXPECT_LE(c.M * c.N * c.K, limits.max_volume);
    dims.insert(c.M);
    dims.insert(c.N);
    dims.insert(c.K);
  }
  for (std::int64_t edge : {1, 127, 128, 129})
    EXPECT_TRUE(dims.count(edge)) << "dimension " << edge << " never generated";
  EXPECT_TRUE(std::any_of(dims.begin(), dims.end(), [](std::int64_t d) { return d > 4000; }));
}

TEST(ForwardCase, SameSeedSameValues) {
  const ForwardCase c = case_of(5, 6, 7, ValueFamily::testfloat, 1234, true);
  const ForwardProblem a = c.materialize(), b = c.materialize();
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(*a.bias, *b.bias);
}

TEST(ShapeGenerator, VariantOptionsHoldForEveryCase) {
  // A TMA variant's K granularity and the bf16-output choice: K is always a multiple, both outputs occur.
  const ShapeLimits limits{.max_m = 64, .max_n = 64, .max_k = 300, .max_volume = 1 << 14};
  const auto gen = gen_forward_case(limits, all_families(),
                                    CaseOptions{.bf16_operands = true, .k_multiple = 8, .bf16_output_sometimes = true});
  rc::Random root(7);
  int bf16_out = 0;
  for (int i = 0; i < 2000; ++i) {
    const ForwardCase c = gen(root.split(), rc::kNominalSize).value();
    ASSERT_EQ(c.K % 8, 0) << c.summary();
    ASSERT_GE(c.K, 8);
    ASSERT_TRUE(c.bf16_operands);
    bf16_out += c.bf16_output;
    EXPECT_EQ(c.materialize().bf16_output, c.bf16_output);
  }
  EXPECT_GT(bf16_out, 600);
  EXPECT_LT(bf16_out, 1400);
  // Without the option no case asks for a bf16 output.
  const auto plain = gen_forward_case(limits, all_families(), true);
  for (int i = 0; i < 500; ++i) ASSERT_FALSE(plain(root.split(), rc::kNominalSize).value().bf16_output);
}

TEST(ShapeGenerator, BackwardRowMultiplesHoldForEveryCase) {
  // A TMA-fed backward subject's k_multiple is every operand row's: dX reads the case's (M, N, K) as
  // (M, K, N), so N and K are multiples and M is free; dW reads them as (N, K, T), so M and N are
  // multiples and the token count K is free. A subject without one gets any shape.
  const ShapeLimits limits{.max_m = 200, .max_n = 200, .max_k = 300, .max_volume = 1 << 16};
  SubjectTraits dx, dw, plain;
  dx.contract = contract_bwd_dx_bf16_tc_fdpa_sm90();
  dw.contract = contract_bwd_dw_bf16_tc_fdpa_sm90();
  plain.contract = contract_bwd_dw_bf16_tc_fdpa_sm90();
  for (SubjectTraits* t : {&dx, &dw, &plain}) t->operand_dtype = DType::bf16;
  dx.k_multiple = dw.k_multiple = 8;
  rc::Random root(11);
  bool free_m = false, free_k = false, any_odd = false;
  for (int i = 0; i < 2000; ++i) {
    const ForwardCase a = gen_forward_case(limits, all_families(), backward_case_options(dx))(root.split(), rc::kNominalSize).value();
    ASSERT_EQ(a.N % 8, 0) << a.summary();
    ASSERT_EQ(a.K % 8, 0) << a.summary();
    ASSERT_TRUE(a.bf16_operands);
    free_m = free_m || a.M % 8 != 0;
    const ForwardCase b = gen_forward_case(limits, all_families(), backward_case_options(dw))(root.split(), rc::kNominalSize).value();
    ASSERT_EQ(b.M % 8, 0) << b.summary();
    ASSERT_EQ(b.N % 8, 0) << b.summary();
    free_k = free_k || b.K % 8 != 0;
    const ForwardCase c = gen_forward_case(limits, all_families(), backward_case_options(plain))(root.split(), rc::kNominalSize).value();
    any_odd = any_odd || c.M % 8 != 0 || c.N % 8 != 0;
  }
  EXPECT_TRUE(free_m) << "dX cases never had an M outside the multiple";
  EXPECT_TRUE(free_k) << "dW cases never had a token count outside the multiple";
  EXPECT_TRUE(any_odd) << "a subject without a multiple was constrained";
}

// backward.dw_kernel_equals_emulator_large_grid exists to reach the wgmma dW's whole 128x256 tiles, which
// it runs only in grids of more than half a wave (kernels/wgmma_schedule.h, dW keeps halves), and its copies
// of the rows past the last token (a defect planted there went unseen by smaller grids,
// evidence/h200-8ef7e95-planted-gather-tail/). Its cases must keep drawing grids of every kind on
// the H200's 132 SMs, and token counts off the 16-token step.
TEST(ShapeGenerator, WeightGridCasesReachWholeWgmmaDwTiles) {
  SubjectTraits dw;
  dw.contract = contract_bwd_dw_bf16_tc_fdpa_sm90();
  dw.operand_dtype = DType::bf16;
  dw.k_multiple = 8;
  const auto gen = gen_weight_grid_case(all_families(), backward_case_options(dw));
  rc::Random root(13);
  constexpr int kCases = 400;
  int halves_only = 0, one_whole_wave = 0, wave_and_tail = 0, partial_step = 0;
  for (int i = 0; i < kCases; ++i) {
    const ForwardCase c = gen(root.split(), rc::kNominalSize).value();
    const std::int64_t N = c.M, K = c.N, T = c.K;  // dW's (N, K, T)
    ASSERT_TRUE(N >= 512 && N <= 1800 && K >= 2048 && K <= 3000 && T >= 1 && T <= 100) << c.summary();
    const std::int64_t tiles = ((N + 127) / 128) * ((K + 255) / 256);
    const kernels::detail::WgmmaSchedule s = kernels::detail::wgmma_schedule(tiles, 132, 2);
    if (s.full_units == 0)
      ++halves_only;
    else if (s.units == s.full_units)
      ++one_whole_wave;
    else
      ++wave_and_tail;
    if (T % 16 != 0) ++partial_step;
  }
  EXPECT_GT(halves_only, kCases / 20) << "no grid of one partial wave (halves)";
  EXPECT_GT(one_whole_wave, kCases / 10) << "too few grids of whole tiles without a tail";
  EXPECT_GT(wave_and_tail, kCases / 10) << "too few grids of whole tiles and a tail";
  EXPECT_GT(partial_step, kCases / 2) << "token counts mostly whole 16-token steps";
}

// forward.kernel_equals_emulator_large_grid and backward.dx_kernel_equals_emulator_large_grid exist also to run
// the FP32 by-shape variants' split of the rows past a 128x128 tile's whole waves (kernels::detail::
// plan_by_shape, plan_dx_by_shape; docs/fp32-kernels.md). On the H200's 132 SMs their cases must keep drawing
// grids with and without that split, forward and dX (dX [M, K] of a case is [c.M, c.N], reduced over c.K).
TEST(ShapeGenerator, LargeGridCasesReachTheFp32RowSplit) {
  SubjectTraits f32;
  f32.contract = contract_fwd_f32_fma_chain();
  const auto gen = gen_large_grid_case(all_families(), case_options(f32));
  rc::Random root(17);
  constexpr int kCases = 400;
  int fwd_split = 0, dx_split = 0;
  for (int i = 0; i < kCases; ++i) {
    const ForwardCase c = gen(root.split(), rc::kNominalSize).value();
    fwd_split += kernels::detail::plan_by_shape(c.M, c.N, c.K, 132).tail_tile >= 0;
    dx_split += kernels::detail::plan_dx_by_shape(c.M, c.K, c.N, 132).tail_tile >= 0;
  }
  EXPECT_GT(fwd_split, kCases / 5) << "too few forward grids split";
  EXPECT_LT(fwd_split, kCases * 4 / 5) << "too few forward grids in one launch";
  EXPECT_GT(dx_split, kCases / 5) << "too few dX grids split";
  EXPECT_LT(dx_split, kCases * 4 / 5) << "too few dX grids in one launch";
  std::printf("large grids split: %d forward, %d dX of %d\n", fwd_split, dx_split, kCases);
}

}  // namespace
}  // namespace ordo::properties
