// The one plan interpreter on plans no built-in contract uses: hand-derived values where each stage of
// the plan (segments, the combination, padding, the start value, the bias placement) changes the bits,
// and properties over random plans: the fast interpreter == the plain scalar one, within the plan's
// bound, batch invariant.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "core/contract.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "properties/forward_checks.h"
#include "properties/suite.h"
#include "properties/value_families.h"
#include "subjects/forward_subject.h"
#include "test_support.h"

namespace ordo {
namespace {

using testing::dot_problem;
using testing::kTwoM24;

ReductionPlan fma_plan() { return contract_fwd_f32_fma_chain().plan; }

ReductionPlan segments(ReductionPlan p, std::int64_t length, SegmentCombine combine) {
  p.structure = KStructure::segments;
  p.segment_length = length;
  p.combine = combine;
  return p;
}

float one(const ReductionPlan& plan, const ForwardProblem& p) {
  const float fast = oracle::emulate_dot(plan, p)[0];
  const float plain = oracle::reference_dot(plan, p)[0];
  EXPECT_EQ(bits_of(fast), bits_of(plain)) << "fast and scalar interpreters disagree";
  return fast;
}

// 2^-24, then 255 zeros, then 1, -1. One chain: 2^-24 + 1 rounds to 1 (tie to even), - 1 = 0.
// Segments of 256: p0 = 2^-24, p1 = 1 - 1 = 0, p0 + p1 = 2^-24.
TEST(PlanEmulator, SegmentsChangeTheBitsOfAChain) {
  std::vector<float> x(258, 0.0f), w(258, 1.0f);
  x[0] = kTwoM24;
  x[256] = 1.0f;
  x[257] = -1.0f;
  const ForwardProblem p = dot_problem(x, w);
  EXPECT_EQ(one(fma_plan(), p), 0.0f);
  EXPECT_EQ(one(segments(fma_plan(), 256, SegmentCombine::ascending_add_rn), p), kTwoM24);
  const Contract file = load_contract_file(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.f32.seg256-ascending.json");
  EXPECT_EQ(one(file.plan, p), kTwoM24);
}

// Segments of one term: [1, 2^-24, 2^-24, -1]. Ascending: 1 + 2^-24 = 1, + 2^-24 = 1, - 1 = 0.
// Pairwise: (1 + 2^-24) = 1 and (2^-24 - 1) = -(1 - 2^-24) exactly; their sum is 2^-24.
TEST(PlanEmulator, ThePairwiseTreeIsNotTheAscendingChain) {
  const ForwardProblem p = dot_problem({1.0f, kTwoM24, kTwoM24, -1.0f}, {1, 1, 1, 1});
  EXPECT_EQ(one(segments(fma_plan(), 1, SegmentCombine::ascending_add_rn), p), 0.0f);
  EXPECT_EQ(one(segments(fma_plan(), 1, SegmentCombine::pairwise_tree), p), kTwoM24);
  // Five partials: the odd last one moves up a level unchanged: ((1 + e) + (e - 1)) + 2^-24 = 2^-23.
  const ForwardProblem q = dot_problem({1.0f, kTwoM24, kTwoM24, -1.0f, kTwoM24}, {1, 1, 1, 1, 1});
  EXPECT_EQ(one(segments(fma_plan(), 1, SegmentCombine::pairwise_tree), q), 2 * kTwoM24);
}

// Start -0 and one product -0: fma(1, -0, -0) = -0. A padded zero product fma(+0, +0, -0) = +0.
TEST(PlanEmulator, ZeroPaddingAndTheStartValueDecideTheSignOfZero) {
  ReductionPlan plan = fma_plan();
  plan.start_negative_zero = true;
  const ForwardProblem p = dot_problem({1.0f}, {-0.0f});
  EXPECT_EQ(bits_of(one(plan, p)), 0x80000000u);
  plan.k_padding_multiple = 2;
  EXPECT_EQ(bits_of(one(plan, p)), 0x00000000u);
  // The +0 start of the built-in contract never gives -0 from a -0 product.
  EXPECT_EQ(bits_of(one(fma_plan(), p)), 0x00000000u);
}

// b = 1 first absorbs both 2^-24 terms (each 1 + 2^-24 rounds to 1); added after, they count: 1 + 2^-23.
TEST(PlanEmulator, TheBiasAsInitialAccumulatorIsNotTheBiasAfter) {
  const ForwardProblem p = dot_problem({kTwoM24, kTwoM24}, {1, 1}, 1.0f);
  EXPECT_EQ(one(fma_plan(), p), 1.0f + 2 * kTwoM24);
  ReductionPlan initial = fma_plan();
  initial.bias = BiasPlacement::initial_accumulator;
  EXPECT_EQ(one(initial, p), 1.0f);
}

// A tensor-core step truncates every term below 2^(E-25): C = 2^-30 next to products 1 and -1 is lost
// inside one 16-wide step (docs/numerics.md §2: measured on an H200), but kept when the products sit in another
// segment, whose partial sum is exactly 0.
TEST(PlanEmulator, TensorCoreSegmentsKeepWhatOneStepTruncates) {
  ReductionPlan tc = contract_fwd_bf16_tc_fdpa_sm90().plan;
  std::vector<float> x(32, 0.0f), w(32, 1.0f);
  x[0] = std::ldexp(1.0f, -30);
  x[16] = 1.0f;
  x[17] = -1.0f;
  const ForwardProblem p = dot_problem(x, w);
  // Chain: step 1 gives C = 2^-30; step 2 aligns to E = 0 and truncates C away: 0.
  EXPECT_EQ(one(tc, p), 0.0f);
  EXPECT_EQ(one(segments(tc, 16, SegmentCombine::ascending_add_rn), p), std::ldexp(1.0f, -30));
}

// Random plans: every combination of step, structure, combination, padding, start value, bias placement
// and output the format allows.
rc::Gen<ReductionPlan> gen_plan() {
  return rc::gen::apply(
      [](int step, int structure, int length_units, bool pairwise, int padding, bool negative_start, bool bias_initial,
         bool bf16_output) {
        ReductionPlan p = step == 0 ? fma_plan()
                          : step == 1 ? contract_fwd_bf16_tc_fdpa_sm80().plan
                                      : contract_fwd_bf16_tc_fdpa_sm90().plan;
        if (structure == 1) p = segments(p, length_units * p.step.width(), pairwise ? SegmentCombine::pairwise_tree
                                                                                   : SegmentCombine::ascending_add_rn);
        p.k_padding_multiple = padding;
        p.start_negative_zero = negative_start;
        p.bias = bias_initial ? BiasPlacement::initial_accumulator : BiasPlacement::after_chain_add_rn;
        p.output_dtypes = bf16_output ? std::vector<DType>{DType::f32, DType::bf16} : std::vector<DType>{DType::f32};
        return p;
      },
      rc::gen::inRange(0, 3), rc::gen::inRange(0, 2), rc::gen::inRange(1, 9), rc::gen::arbitrary<bool>(),
      rc::gen::element(1, 2, 3, 8, 32, 48), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(),
      rc::gen::arbitrary<bool>());
}

Contract contract_of(const ReductionPlan& plan) {
  Contract c;
  c.id = "test.random-plan/1";
  c.plan = plan;
  EXPECT_EQ(plan_problem(plan, ContractKind::forward), "");
  return c;
}

rc::Gen<properties::ForwardCase> cases_for(const ReductionPlan& plan) {
  const properties::ShapeLimits limits{.max_m = 12, .max_n = 12, .max_k = 300, .max_volume = 1 << 13};
  return properties::gen_forward_case(limits, properties::all_families(),
                                      properties::CaseOptions{.bf16_operands = plan.operand_dtype == DType::bf16,
                                                              .k_multiple = 1,
                                                              .bf16_output_sometimes = plan.allows_output(DType::bf16)});
}

void require(const properties::CheckResult& r) {
  if (!r.passed) RC_FAIL(r.detail);
}

RC_GTEST_PROP(PlanEmulatorProperties, FastInterpreterEqualsScalarOnRandomPlans, ()) {
  const Contract c = contract_of(*gen_plan());
  const properties::ForwardCase fc = *cases_for(c.plan);
  auto fast = make_emulator_subject(c);
  auto plain = make_scalar_reference_subject(c);
  require(properties::check_bitwise_equal(*fast, *plain, fc));
}

RC_GTEST_PROP(PlanEmulatorProperties, RandomPlansStayWithinTheirBound, ()) {
  const Contract c = contract_of(*gen_plan());
  const properties::ForwardCase fc = *cases_for(c.plan);
  auto fast = make_emulator_subject(c);
  require(properties::check_within_error_bound(*fast, fc));
}

RC_GTEST_PROP(PlanEmulatorProperties, RandomPlansAreBatchInvariant, ()) {
  const Contract c = contract_of(*gen_plan());
  const properties::ForwardCase fc = *cases_for(c.plan);
  auto fast = make_emulator_subject(c);
  require(properties::check_batch_invariance(*fast, fc, std::max<std::int64_t>(2, fc.M)));
}

// The example contract, as a file: emulator == reference, within its bound, batch invariant,
// through the same suite properties `ordo verify --contract FILE` runs.
// The vectorised epilogue against finish_output, value by value: NaNs of every payload and sign, the
// infinities, the largest finite values (which round to Inf in bfloat16), bfloat16 ties both ways,
// subnormals and signed zeros; with and without a bias, with the canonical and a custom NaN.
TEST(PlanEmulator, TheVectorEpilogueEqualsFinishOutputOnEveryClassOfValue) {
  const std::uint32_t specials[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x3F800000u, 0x3F808000u,
                                    0x3F818000u, 0x3F817FFFu, 0x7F7FFFFFu, 0xFF7F8000u, 0x7F7F7FFFu, 0x7F800000u,
                                    0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7FFFFFFFu, 0x0000FFFFu};
  std::vector<float> values;
  for (std::uint32_t b : specials) values.push_back(float_of(b));
  properties::Rng rng(7);
  while (values.size() % oracle::kFinishLanesMax != 0 || values.size() < 4096) values.push_back(float_of(static_cast<std::uint32_t>(rng.next())));
  std::vector<float> bias(values.size());
  for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = values[(i * 7 + 3) % values.size()];
  for (const std::optional<std::uint32_t> nan : {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>{0xFFC00000u}}) {
    ReductionPlan plan = fma_plan();
    plan.nan_bits = nan;
    for (const bool bf16 : {false, true})
      for (const bool with_bias : {false, true})
        for (int count : {oracle::kFinishLanesMax, 5, 1})
          for (std::size_t i = 0; i + oracle::kFinishLanesMax <= values.size(); i += oracle::kFinishLanesMax) {
            float got[oracle::kFinishLanesMax];
            oracle::finish_lanes(&values[i], with_bias ? &bias[i] : nullptr, nan.value_or(kCanonicalNaNBits), bf16,
                                 count, got);
            for (int j = 0; j < count; ++j) {
              const float v = with_bias ? values[i + j] + bias[i + j] : values[i + j];
              ASSERT_EQ(bits_of(got[j]), bits_of(oracle::finish_output(plan, v, bf16)))
                  << std::hex << "value 0x" << bits_of(values[i + j]) << " bias " << with_bias << " bf16 " << bf16;
            }
          }
  }
}

TEST(PlanEmulator, TheSegmentContractFilePassesTheHostSuite) {
  properties::SuiteOptions so;
  so.contracts = {load_contract_file(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.f32.seg256-ascending.json"),
                  load_contract_file(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.bf16.sm90-seg64-pairwise.json")};
  so.exact_engines = false;
  properties::Suite suite;
  properties::add_host_properties(suite, so);
  ASSERT_EQ(suite.properties.size(), 8u);
  properties::RunOptions ro;
  ro.seed = 11;
  ro.cases_override = 60;
  for (const properties::PropertySpec& spec : suite.properties) {
    const PropertyRun run = properties::run_property(spec, ro);
    EXPECT_TRUE(run.passed()) << spec.name << " on " << spec.contract << ": "
                              << (run.failures.empty() ? "" : run.failures[0].detail);
    EXPECT_EQ(run.cases, 60) << spec.name;
  }
}

}  // namespace
}  // namespace ordo
