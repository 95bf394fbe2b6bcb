// The fast backward emulators against the plain scalar references, for every backward contract, on
// every value family; and the emulators' fail-closed refusals.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <stdexcept>

#include "backward_test_support.h"

namespace ordo::testing {
namespace {

void check_dx_equals_reference(const Contract& c) {
  const ForwardCase fc = *gen_backward_case(c, dx_limits());
  RC_TAG(std::string(properties::family_name(fc.family)));
  const BackwardDataProblem p = data_problem(fc);
  const std::vector<float> fast = oracle::emulate_backward_data(p, c.plan);
  const std::vector<float> reference = oracle::reference_backward_data(p, c.plan);
  if (std::string d = first_difference(fast, reference, "dX"); !d.empty())
    RC_FAIL(c.id + " (dX M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
            ", from " + fc.summary() + "): emulator against reference " + d);
}

void check_dw_equals_reference(const Contract& c) {
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  const auto key_width = *rc::gen::element<std::int64_t>(0, 2, 3);
  const bool ascending = *rc::gen::arbitrary<bool>();
  BackwardWeightProblem p = weight_problem(fc, key_width, ascending);
  if (key_width > 0) p = with_padding(p, *rc::gen::inRange(0, 4), fc.seed + 1);
  RC_TAG(std::string(properties::family_name(fc.family)));
  RC_CLASSIFY(key_width == 0, "call order");
  RC_CLASSIFY(key_width > 0 && token_order(p).already_canonical, "keys already canonical");
  RC_CLASSIFY(token_order(p).rows.size() > 16, "more than one 16-token group");
  const BackwardWeightResult fast = emulate_ok(p, c);
  const BackwardWeightResult reference = oracle::reference_backward_weight(p, c.plan);
  if (std::string d = first_difference(fast, reference); !d.empty())
    RC_FAIL(c.id + " " + describe(p, fc) + ": emulator against reference " + d);
}

ORDO_RC_PROP_PER_CONTRACT(BackwardEmulator, Dx, bwd_dx, EqualsScalarReference, check_dx_equals_reference)
ORDO_RC_PROP_PER_CONTRACT(BackwardEmulator, Dw, bwd_dw, EqualsScalarReference, check_dw_equals_reference)

BackwardWeightProblem small_weight_problem() {
  BackwardWeightProblem p;
  p.T = 2;
  p.N = 2;
  p.K = 3;
  p.x = {1, 2, 3, 4, 5, 6};
  p.g = {0.5f, -1, 2, 0.25f};
  p.with_bias_grad = true;
  return p;
}

TEST(BackwardEmulator, DwIsAnFmaChainOverTokens) {
  const BackwardWeightProblem p = small_weight_problem();
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, contract_bwd_dw_f32_fma_chain().plan);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.result.dw, (std::vector<float>{8.5f, 11, 13.5f, 0, -0.75f, -1.5f}));
  EXPECT_EQ(*r.result.db, (std::vector<float>{2.5f, -0.75f}));
}

TEST(BackwardEmulator, NoActiveTokenGivesPositiveZero) {
  for (const Contract* c : {&contract_bwd_dw_f32_fma_chain(), &contract_bwd_dw_bf16_tc_fdpa_sm80()}) {
    BackwardWeightProblem p = small_weight_problem();
    p.bf16_operands = is_tc(*c);
    p.g = {-0.0f, 0.0f, -0.0f, -0.0f};
    p.keys = LogicalKeys{2, {-1, 0, -7, 3}};  // every row padding
    const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, c->plan);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    for (const float v : r.result.dw) EXPECT_EQ(bits_of(v), 0u) << c->id;
    for (const float v : *r.result.db) EXPECT_EQ(bits_of(v), 0u) << c->id;
  }
}

TEST(BackwardEmulator, NanResultsAreCanonical) {
  BackwardDataProblem d;
  d.M = 1;
  d.N = 2;
  d.K = 1;
  d.g = {float_of(0xFFC01234u), 1};
  d.w = {1, 1};
  EXPECT_EQ(bits_of(oracle::emulate_backward_data(d, contract_bwd_dw_f32_fma_chain().plan)[0]), kCanonicalNaNBits);
  BackwardWeightProblem p = small_weight_problem();
  p.x[0] = INFINITY;
  p.x[3] = -INFINITY;
  p.g = {1, 1, 1, 1};
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, contract_bwd_dw_f32_fma_chain().plan);
  EXPECT_EQ(bits_of(r.result.dw[0]), kCanonicalNaNBits);
}

TEST(BackwardEmulator, RefusesOperandsOfTheWrongTypeOrSize) {
  BackwardWeightProblem p = small_weight_problem();
  EXPECT_EQ(oracle::emulate_backward_weight(p, contract_bwd_dw_bf16_tc_fdpa_sm90().plan).status.code, StatusCode::wrong_dtype);
  p.bf16_operands = true;
  p.x[4] = 1.0f + std::ldexp(1.0f, -10);  // not a bfloat16
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, contract_bwd_dw_bf16_tc_fdpa_sm90().plan);
  EXPECT_EQ(r.status.code, StatusCode::wrong_dtype);
  EXPECT_NE(r.status.message.find("X[4]"), std::string::npos) << r.status.message;
  EXPECT_TRUE(r.result.dw.empty());
  p = small_weight_problem();
  p.g.pop_back();
  EXPECT_EQ(oracle::emulate_backward_weight(p, contract_bwd_dw_f32_fma_chain().plan).status.code,
            StatusCode::inconsistent_size);
  p = small_weight_problem();
  p.K = 0;
  EXPECT_EQ(oracle::emulate_backward_weight(p, contract_bwd_dw_f32_fma_chain().plan).status.code, StatusCode::bad_size);
  BackwardDataProblem d;
  d.M = 1;
  d.N = 2;
  d.K = 1;
  d.g = {1, 1};
  d.w = {1};
  EXPECT_THROW(oracle::emulate_backward_data(d, contract_bwd_dw_f32_fma_chain().plan), std::invalid_argument);
}

}  // namespace
}  // namespace ordo::testing
