// Logical keys: canonical order, validation, and the invariances they give dW and db (joint
// permutation of the rows, padding rows anywhere), for every dW contract.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "backward_test_support.h"
#include "properties/backward_checks.h"
#include "core/float_bits.h"
#include "core/logical_keys.h"

namespace ordo::testing {
namespace {

TEST(BackwardKeys, CanonicalOrderIsAscendingLexicographicWithoutPadding) {
  const LogicalKeys keys{2, {1, 0, 0, 5, -1, 9, 0, -3, 1, -2}};
  const CanonicalOrder order = canonical_order(keys.view());
  EXPECT_EQ(order.rows, (std::vector<std::int64_t>{3, 1, 4, 0}));
  EXPECT_FALSE(order.already_canonical);
}

TEST(BackwardKeys, AlreadyCanonicalOnlyForAllRowsInOrder) {
  EXPECT_TRUE(canonical_order(LogicalKeys{3, {0, 0, 9, 0, 1, -4, 2, -8, 0}}.view()).already_canonical);
  EXPECT_FALSE(canonical_order(LogicalKeys{2, {0, 0, 0, 1, -1, 0}}.view()).already_canonical);  // padding
  EXPECT_FALSE(canonical_order(LogicalKeys{2, {0, 1, 0, 0}}.view()).already_canonical);
  const CanonicalOrder calls = call_order(3);
  EXPECT_EQ(calls.rows, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_TRUE(calls.already_canonical);
}

TEST(BackwardKeys, DuplicateActiveKeysNameBothRows) {
  const LogicalKeys keys{2, {0, 1, 4, 4, 0, 2, 4, 4, -1, 0, -1, 0}};  // padding keys may repeat
  const Status s = validate_logical_keys(keys.view(), 6, nullptr, 0);
  EXPECT_EQ(s.code, StatusCode::duplicate_key);
  EXPECT_NE(s.message.find("rows 1 and 3"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("(4, 4)"), std::string::npos) << s.message;
  EXPECT_TRUE(validate_logical_keys(LogicalKeys{2, {0, 1, -1, 0, -1, 0}}.view(), 3, nullptr, 0).ok());
}

TEST(BackwardKeys, PaddingGradientMustBeZeroOfEitherSign) {
  const LogicalKeys keys{2, {0, 0, -1, 0, 1, 0}};
  std::vector<float> g{1, 2, -0.0f, 0.0f, 3, 4};
  EXPECT_TRUE(validate_logical_keys(keys.view(), 3, g.data(), 2).ok());
  for (const float bad : {std::ldexp(1.0f, -149), -1.0f, NAN, INFINITY}) {
    g[3] = bad;
    const Status s = validate_logical_keys(keys.view(), 3, g.data(), 2);
    EXPECT_EQ(s.code, StatusCode::padding_gradient_nonzero) << describe_float(bad);
    EXPECT_NE(s.message.find("padding row 1"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("column 1"), std::string::npos) << s.message;
  }
}

TEST(BackwardKeys, WrongWidthDtypeOrRowCountIsBadKeys) {
  const std::vector<std::int64_t> values(12, 0);
  for (const std::int64_t width : {0, 1, 4}) {
    const LogicalKeysView v{values.data(), 3, width, DType::i64};
    EXPECT_EQ(validate_key_shape(v, 3).code, StatusCode::bad_keys) << width;
  }
  EXPECT_EQ(validate_key_shape({values.data(), 3, 2, DType::f32}, 3).code, StatusCode::bad_keys);
  EXPECT_EQ(validate_key_shape({values.data(), 3, 2, DType::i64}, 4).code, StatusCode::bad_keys);
  EXPECT_EQ(validate_key_shape({nullptr, 3, 2, DType::i64}, 3).code, StatusCode::bad_keys);
  EXPECT_TRUE(validate_key_shape({values.data(), 4, 3, DType::i64}, 4).ok());
}

// The active rows of p as they lie, without keys: what a reduction in call order would see.
BackwardWeightProblem active_rows_in_call_order(const BackwardWeightProblem& p) {
  std::vector<std::int64_t> rows;
  for (std::int64_t t = 0; t < p.T; ++t)
    if (!p.keys->view().is_padding(t)) rows.push_back(t);
  BackwardWeightProblem a = select_rows(p, rows);
  a.keys.reset();
  return a;
}

// With keys, dW and db are functions of the set of (key, x row, g row): a joint permutation of the
// rows changes nothing. The classification shows how often call order would have changed the bits,
// which is what makes the property able to fail.
void check_joint_permutation_invariance(const Contract& c) {
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  BackwardWeightProblem p = weight_problem(fc, *rc::gen::element<std::int64_t>(2, 3));
  p = with_padding(p, *rc::gen::inRange(0, 3), fc.seed + 1);
  Rng rng(fc.seed + 2);
  const BackwardWeightProblem q = select_rows(p, random_permutation(p.T, rng));
  RC_TAG(std::string(properties::family_name(fc.family)));
  RC_CLASSIFY(
      !first_difference(emulate_ok(active_rows_in_call_order(p), c), emulate_ok(active_rows_in_call_order(q), c))
           .empty(),
      "call order would differ");
  if (std::string d = first_difference(emulate_ok(p, c), emulate_ok(q, c)); !d.empty())
    RC_FAIL(c.id + " " + describe(p, fc) + ": permuted rows changed " + d);
}

ORDO_RC_PROP_PER_CONTRACT(BackwardKeys, Dw, bwd_dw, InvariantUnderJointPermutation, check_joint_permutation_invariance)

// The invariance above can only fail if the data lets the order show: on a good share of the generated
// cases, reducing the same rows in two call orders gives other bits. Required, not only counted.
void require_call_order_to_show(const Contract& c) {
  int differ = 0, total = 0;
  rc::Random root(20261201);
  const auto gen = gen_backward_case(c, dw_limits());
  for (int i = 0; i < 200; ++i) {
    const ForwardCase fc = gen(root.split(), rc::kNominalSize).value();
    BackwardWeightProblem p = weight_problem(fc, 2);
    Rng rng(fc.seed + 2);
    const BackwardWeightProblem q = select_rows(p, random_permutation(p.T, rng));
    ++total;
    differ += !first_difference(emulate_ok(active_rows_in_call_order(p), c), emulate_ok(active_rows_in_call_order(q), c)).empty();
  }
  EXPECT_GE(differ * 5, total) << c.id << ": call order changed the bits in only " << differ << " of " << total
                               << " cases: the permutation property could not catch a call-order reduction";
}

TEST(BackwardKeys, GeneratedCasesExposeCallOrderForEveryDwContract) {
  require_call_order_to_show(contract_bwd_dw_f32_fma_chain());
  require_call_order_to_show(contract_bwd_dw_bf16_tc_fdpa_sm80());
  require_call_order_to_show(contract_bwd_dw_bf16_tc_fdpa_sm90());
}

TEST(BackwardKeys, Bf16GroupsFollowTheKeysNotTheCallOrder) {
  for (const Contract* c : {&contract_bwd_dw_bf16_tc_fdpa_sm80(), &contract_bwd_dw_bf16_tc_fdpa_sm90()}) {
    const BackwardWeightResult key_order = emulate_ok(bf16_order_repro(false, true), *c);
    const BackwardWeightResult reversed = emulate_ok(bf16_order_repro(true, true), *c);
    EXPECT_EQ(first_difference(key_order, reversed), "") << c->id;
    EXPECT_EQ(key_order.dw[0], std::ldexp(c->plan.step.tc.L == 8 ? 9.0f : 1.0f, -30)) << c->id;
    // The same rows in call order give other bits: the data exposes the order.
    EXPECT_EQ(bits_of(emulate_ok(bf16_order_repro(true, false), *c).dw[0]), 0u) << c->id;
  }
}

void check_padding_changes_nothing(const Contract& c) {
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  RC_TAG(std::string(properties::family_name(fc.family)));
  const BackwardWeightProblem p = weight_problem(fc, *rc::gen::element<std::int64_t>(2, 3));
  const BackwardWeightProblem q = with_padding(p, *rc::gen::inRange(1, 20), fc.seed + 3);
  if (std::string d = first_difference(emulate_ok(p, c), emulate_ok(q, c)); !d.empty())
    RC_FAIL(c.id + " " + describe(q, fc) + ": padding rows changed " + d);
}

ORDO_RC_PROP_PER_CONTRACT(BackwardKeys, Dw, bwd_dw, PaddingRowsChangeNothing, check_padding_changes_nothing)

const Contract& any_dw_contract() {
  return **rc::gen::elementOf(std::vector<const Contract*>{
      &contract_bwd_dw_f32_fma_chain(), &contract_bwd_dw_bf16_tc_fdpa_sm80(), &contract_bwd_dw_bf16_tc_fdpa_sm90()});
}

RC_GTEST_PROP(BackwardKeys, NonzeroPaddingGradientIsRefused, ()) {
  const Contract& c = any_dw_contract();
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  RC_TAG(std::string(properties::family_name(fc.family)));
  BackwardWeightProblem p = with_padding(weight_problem(fc, 2), 1, fc.seed + 4);
  std::int64_t row = 0;
  while (!p.keys->view().is_padding(row)) ++row;
  const auto col = *rc::gen::inRange<std::int64_t>(0, p.N);
  Rng rng(fc.seed + 5);
  float v = 0.0f;
  for (int tries = 0; v == 0.0f; ++tries) {
    v = properties::sample_value(tries < 8 ? fc.family : ValueFamily::uniform, rng);
    if (p.bf16_operands) v = oracle::round_to_bf16(v);
  }
  p.g[static_cast<std::size_t>(row * p.N + col)] = v;
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, c.plan);
  RC_ASSERT(r.status.code == StatusCode::padding_gradient_nonzero);
  RC_ASSERT(r.status.message.find("padding row " + std::to_string(row) + " ") != std::string::npos);
  RC_ASSERT(r.status.message.find("column " + std::to_string(col)) != std::string::npos);
  RC_ASSERT(r.result.dw.empty());
}

RC_GTEST_PROP(BackwardKeys, DuplicateKeysAreRefused, ()) {
  const Contract& c = any_dw_contract();
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  RC_TAG(std::string(properties::family_name(fc.family)));
  BackwardWeightProblem p = weight_problem(fc, *rc::gen::element<std::int64_t>(2, 3));
  RC_PRE(p.T >= 2);
  const auto from = *rc::gen::inRange<std::int64_t>(0, p.T);
  const auto to = (from + *rc::gen::inRange<std::int64_t>(1, p.T)) % p.T;
  const std::int64_t w = p.keys->width;
  std::copy_n(p.keys->values.begin() + from * w, w, p.keys->values.begin() + to * w);
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, c.plan);
  RC_ASSERT(r.status.code == StatusCode::duplicate_key);
  const std::string rows = "rows " + std::to_string(std::min(from, to)) + " and " + std::to_string(std::max(from, to));
  RC_ASSERT(r.status.message.find(rows) != std::string::npos);
}

// backward.dw_kernel_refuses_invalid_keys against the emulator itself, for every dW contract: every
// generated problem is one the contract refuses, and a subject that refuses as the emulator does passes
// (a BF16 problem must stay BF16: a padding gradient that is no bfloat16 would be refused as wrong_dtype).
TEST(BackwardKeys, TheInvalidKeysPropertyHoldsForTheEmulatorOfEveryDwContract) {
  for (const Contract* c : {&contract_bwd_dw_f32_fma_chain(), &contract_bwd_dw_bf16_tc_fdpa_sm80(),
                            &contract_bwd_dw_bf16_tc_fdpa_sm90()}) {
    const auto subject = make_backward_emulator_subject(*c);
    const auto reference = make_backward_emulator_subject(*c);
    rc::Random root(20261202);
    const auto gen = gen_backward_case(*c, dw_limits());
    for (int i = 0; i < 300; ++i) {
      const ForwardCase fc = gen(root.split(), rc::kNominalSize).value();
      const properties::CheckResult r = properties::check_dw_refuses_invalid_keys(*subject, *reference, fc);
      ASSERT_TRUE(r.passed && !r.tool_error) << c->id << " " << fc.summary() << ": " << r.detail;
    }
  }
}

RC_GTEST_PROP(BackwardKeys, KeysOfTheWrongShapeAreRefused, ()) {
  const Contract& c = any_dw_contract();
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  RC_TAG(std::string(properties::family_name(fc.family)));
  BackwardWeightProblem p = weight_problem(fc, 2);
  const auto width = *rc::gen::element<std::int64_t>(1, 4, 5);
  const auto rows = p.T + *rc::gen::element<std::int64_t>(0, 0, 1, -1);
  p.keys = LogicalKeys{width,
                       std::vector<std::int64_t>(static_cast<std::size_t>(std::max<std::int64_t>(rows, 0) * width), 0)};
  if (width == 4 && rows != p.T) p.keys = random_keys(rows, 2, fc.seed);  // right width, wrong row count
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, c.plan);
  RC_ASSERT(r.status.code == StatusCode::bad_keys);
}

}  // namespace
}  // namespace ordo::testing
