// Microbatch sessions: for every dW contract, any split of a batch, in any arrival order (expected
// keys) or in canonical order (in-order mode), gives the bits of one whole-batch call; and the
// session's refusals leave it unchanged.
#include "oracle/backward_session.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "backward_test_support.h"

namespace ordo::testing {
namespace {

using oracle::BackwardSession;
using oracle::BackwardSessionConfig;

BackwardSessionConfig config_for(const BackwardWeightProblem& p, const Contract& c) {
  BackwardSessionConfig cfg;
  cfg.N = p.N;
  cfg.K = p.K;
  cfg.with_bias_grad = p.with_bias_grad;
  cfg.bf16_operands = p.bf16_operands;
  cfg.plan = c.plan;
  return cfg;
}

// Cuts rows (in the given order) into `parts` contiguous microbatches, some possibly empty.
std::vector<BackwardWeightProblem> split(const BackwardWeightProblem& p, const std::vector<std::int64_t>& rows,
                                         int parts, Rng& rng) {
  std::vector<std::size_t> cuts{0, rows.size()};
  for (int i = 1; i < parts; ++i) cuts.push_back(rng.next() % (rows.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<BackwardWeightProblem> batches;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    batches.push_back(select_rows(p, {rows.begin() + static_cast<std::ptrdiff_t>(cuts[i]),
                                      rows.begin() + static_cast<std::ptrdiff_t>(cuts[i + 1])}));
  return batches;
}

void check_any_split_any_arrival(const Contract& c) {
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  BackwardWeightProblem p = weight_problem(fc, *rc::gen::element<std::int64_t>(2, 3));
  p = with_padding(p, *rc::gen::inRange(0, 4), fc.seed + 1);
  const int parts = *rc::gen::inRange(1, 9);
  Rng rng(fc.seed + 2);
  std::vector<BackwardWeightProblem> batches = split(p, random_permutation(p.T, rng), parts, rng);
  for (std::size_t i = batches.size(); i > 1; --i) std::swap(batches[i - 1], batches[rng.next() % i]);
  BackwardSessionConfig cfg = config_for(p, c);
  cfg.expected_keys = canonical_keys(p);
  BackwardSession session(cfg);
  std::int64_t most_buffered = 0;
  for (const BackwardWeightProblem& b : batches) {
    const Status s = session.submit(b);
    if (!s.ok()) RC_FAIL("microbatch refused: " + s.to_string());
    RC_ASSERT(session.carried_tokens() < 16);
    most_buffered = std::max(most_buffered, session.buffered_tokens());
  }
  const oracle::BackwardWeightOutcome r = session.finish();
  if (!r.status.ok()) RC_FAIL("finish refused: " + r.status.to_string());
  RC_TAG(std::to_string(batches.size()) + " microbatches");
  RC_CLASSIFY(most_buffered > 0, "rows waited behind a gap");
  if (std::string d = first_difference(r.result, emulate_ok(p, c)); !d.empty())
    RC_FAIL(c.id + " " + describe(p, fc) + ", " + std::to_string(batches.size()) +
            " microbatches in any order: session against whole batch " + d);
}

ORDO_RC_PROP_PER_CONTRACT(BackwardSession, Dw, bwd_dw, AnySplitAnyArrivalEqualsWholeBatch, check_any_split_any_arrival)

// In-order mode: with keys, microbatches cut from the canonical order (padding rows anywhere, each
// microbatch's rows shuffled); without keys, microbatches cut from the call order.
void check_in_order_split(const Contract& c) {
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  RC_TAG(std::string(properties::family_name(fc.family)));
  const bool keyed = *rc::gen::arbitrary<bool>();
  BackwardWeightProblem p = weight_problem(fc, keyed ? 2 : 0);
  if (keyed) p = with_padding(p, *rc::gen::inRange(0, 4), fc.seed + 1);
  Rng rng(fc.seed + 2);
  std::vector<std::int64_t> rows;
  if (keyed) {
    rows = token_order(p).rows;
    for (std::int64_t t = 0; t < p.T; ++t)
      if (p.keys->view().is_padding(t))
        rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(rng.next() % (rows.size() + 1)), t);
  } else {
    rows = call_order(p.T).rows;
  }
  std::vector<BackwardWeightProblem> batches = split(p, rows, *rc::gen::inRange(1, 9), rng);
  if (keyed)
    for (BackwardWeightProblem& b : batches) b = select_rows(b, random_permutation(b.T, rng));
  BackwardSession session(config_for(p, c));
  for (const BackwardWeightProblem& b : batches)
    if (const Status s = session.submit(b); !s.ok()) RC_FAIL("microbatch refused: " + s.to_string());
  const oracle::BackwardWeightOutcome r = session.finish();
  RC_ASSERT(r.status.ok());
  RC_CLASSIFY(keyed, "keys");
  if (std::string d = first_difference(r.result, emulate_ok(p, c)); !d.empty())
    RC_FAIL(c.id + " " + describe(p, fc) + ", " + std::to_string(batches.size()) +
            " microbatches in order: session against whole batch " + d);
}

ORDO_RC_PROP_PER_CONTRACT(BackwardSession, Dw, bwd_dw, InOrderSplitEqualsWholeBatch, check_in_order_split)

// Token t: x = [t+1, 1], g = [1, (t+1)/4], key (0, t).
BackwardWeightProblem tokens(const std::vector<std::int64_t>& ts, bool bf16 = false) {
  BackwardWeightProblem p;
  p.T = static_cast<std::int64_t>(ts.size());
  p.N = 2;
  p.K = 2;
  p.with_bias_grad = true;
  p.bf16_operands = bf16;
  p.keys = LogicalKeys{2, {}};
  for (const std::int64_t t : ts) {
    p.x.insert(p.x.end(), {static_cast<float>(t + 1), 1.0f});
    p.g.insert(p.g.end(), {1.0f, static_cast<float>(t + 1) / 4});
    p.keys->values.insert(p.keys->values.end(), {0, t});
  }
  return p;
}

TEST(BackwardSession, InOrderSessionRefusesAnOutOfOrderMicrobatchAndGoesOn) {
  const Contract& c = contract_bwd_dw_f32_fma_chain();
  BackwardSession session(config_for(tokens({}), c));
  ASSERT_TRUE(session.submit(tokens({1, 0, 2})).ok());
  const Status late = session.submit(tokens({1, 5}));
  EXPECT_EQ(late.code, StatusCode::key_out_of_order);
  EXPECT_NE(late.message.find("(0, 1)"), std::string::npos) << late.message;
  EXPECT_NE(late.message.find("last consumed (0, 2)"), std::string::npos) << late.message;
  EXPECT_EQ(session.submit(tokens({2})).code, StatusCode::duplicate_key);
  BackwardWeightProblem keyless = tokens({3});
  keyless.keys.reset();
  EXPECT_EQ(session.submit(keyless).code, StatusCode::bad_keys);
  EXPECT_EQ(session.consumed_tokens(), 3);
  ASSERT_TRUE(session.submit(tokens({4, 3})).ok());
  const oracle::BackwardWeightOutcome r = session.finish();
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(first_difference(r.result, oracle::emulate_backward_weight(tokens({0, 1, 2, 3, 4}), c.plan).result),
            "");
}

TEST(BackwardSession, ExpectedKeysBufferOnlyAheadOfAGapAndReportWhatIsMissing) {
  const Contract& c = contract_bwd_dw_bf16_tc_fdpa_sm90();
  BackwardSessionConfig cfg = config_for(tokens({}, true), c);
  cfg.expected_keys = LogicalKeys{2, {0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5}};
  BackwardSession session(cfg);
  ASSERT_TRUE(session.submit(tokens({4, 3}, true)).ok());
  EXPECT_EQ(session.buffered_tokens(), 2);
  EXPECT_EQ(session.consumed_tokens(), 0);
  EXPECT_EQ(session.submit(tokens({3}, true)).code, StatusCode::duplicate_key);
  EXPECT_EQ(session.submit(tokens({9}, true)).code, StatusCode::unexpected_key);
  ASSERT_TRUE(session.submit(tokens({0, 1}, true)).ok());
  EXPECT_EQ(session.buffered_tokens(), 2);
  EXPECT_EQ(session.consumed_tokens(), 2);
  EXPECT_EQ(session.carried_tokens(), 2);  // a 16-token group waits for its rest
  const oracle::BackwardWeightOutcome early = session.finish();
  EXPECT_EQ(early.status.code, StatusCode::missing_keys);
  EXPECT_NE(early.status.message.find("2 of 6 expected keys have not arrived"), std::string::npos)
      << early.status.message;
  EXPECT_NE(early.status.message.find("the first missing is (0, 2)"), std::string::npos) << early.status.message;
  ASSERT_TRUE(session.submit(tokens({5, 2}, true)).ok());
  EXPECT_EQ(session.buffered_tokens(), 0);
  EXPECT_EQ(session.consumed_tokens(), 6);
  const oracle::BackwardWeightOutcome r = session.finish();
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  const BackwardWeightProblem whole = tokens({5, 0, 3, 1, 4, 2}, true);
  EXPECT_EQ(first_difference(r.result, oracle::emulate_backward_weight(whole, c.plan).result), "");
  EXPECT_EQ(session.submit(tokens({0}, true)).code, StatusCode::tool_error);
}

TEST(BackwardSession, RefusesMicrobatchesThatDoNotFitTheSession) {
  BackwardSessionConfig cfg = config_for(tokens({}), contract_bwd_dw_f32_fma_chain());
  cfg.expected_keys = LogicalKeys{2, {0, 0, 0, 1}};
  BackwardSession session(cfg);
  BackwardWeightProblem p = tokens({0});
  p.with_bias_grad = false;
  EXPECT_EQ(session.submit(p).code, StatusCode::inconsistent_size);
  EXPECT_EQ(session.submit(tokens({0}, true)).code, StatusCode::wrong_dtype);
  p = tokens({0});
  p.keys.reset();
  EXPECT_EQ(session.submit(p).code, StatusCode::bad_keys);
  p = tokens({0});
  p.keys = LogicalKeys{3, {0, 0, 0}};
  EXPECT_EQ(session.submit(p).code, StatusCode::bad_keys);
  EXPECT_EQ(session.consumed_tokens() + session.buffered_tokens(), 0);
}

TEST(BackwardSession, ExpectedKeysMustBeActiveUniqueAndAscending) {
  BackwardSessionConfig cfg = config_for(tokens({}), contract_bwd_dw_f32_fma_chain());
  for (const std::vector<std::int64_t>& bad : {std::vector<std::int64_t>{0, 1, 0, 0}, {0, 1, 0, 1}, {-1, 0, 0, 1}}) {
    cfg.expected_keys = LogicalKeys{2, bad};
    EXPECT_THROW(BackwardSession{cfg}, std::invalid_argument);
  }
  cfg.expected_keys.reset();
  cfg.bf16_operands = true;  // fma_chain takes binary32
  EXPECT_THROW(BackwardSession{cfg}, std::invalid_argument);
}

}  // namespace
}  // namespace ordo::testing
