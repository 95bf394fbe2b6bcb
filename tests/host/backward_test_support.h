#pragma once
// Backward cases for the host tests, built on the forward case generator so that every value family
// (properties/value_families.h) reaches the backward emulators, with the family's structure (pairs
// that cancel, a swamping lead, an ill-conditioned dot product) laid along the axis that is reduced.
#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/float_bits.h"
#include "oracle/backward_emulator.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/backward_case.h"
#include "properties/forward_case.h"

namespace ordo::testing {

using properties::ForwardCase;
using properties::Rng;
using properties::ValueFamily;
// The problem builders shared with `ordo verify` (properties/backward_case.h).
using properties::data_problem;
using properties::first_difference;
using properties::random_keys;
using properties::random_permutation;
using properties::transpose;
using properties::weight_problem;

inline bool is_tc(const Contract& c) { return c.plan.step.kind == StepKind::tc_fdpa; }

// The active keys of p in canonical order: what a dW session expects to be handed.
inline LogicalKeys canonical_keys(const BackwardWeightProblem& p) {
  LogicalKeys k{p.keys->width, {}};
  for (const std::int64_t t : token_order(p).rows) {
    const std::int64_t* row = p.keys->view().row(t);
    k.values.insert(k.values.end(), row, row + p.keys->width);
  }
  return k;
}

// Shapes of backward cases. For dX the forward case's (M, N, K) read as dX's (M, K, N): N, the
// reduced axis, is the forward K. For dW they read as (N, K, T): the tokens are the forward K.
inline rc::Gen<ForwardCase> gen_backward_case(const Contract& c, properties::ShapeLimits limits) {
  // At full size from the first case: gen_dimension is log-uniform, so small shapes stay frequent,
  // while the 16-token groups and long chains are reached in every run, not only its second half.
  return rc::gen::resize(100, properties::gen_forward_case(limits, properties::all_families(), is_tc(c)));
}
inline properties::ShapeLimits dx_limits() { return {.max_m = 12, .max_n = 24, .max_k = 100, .max_volume = 30000}; }
inline properties::ShapeLimits dw_limits() { return {.max_m = 12, .max_n = 24, .max_k = 100, .max_volume = 30000}; }

// "dW T=65 N=2 K=3, keys [T,2], 4 padding rows (from M=2 N=3 K=65 ...)": the case as a failure reads it.
inline std::string describe(const BackwardWeightProblem& p, const ForwardCase& c) {
  std::int64_t padding = 0;
  for (std::int64_t t = 0; p.keys && t < p.T; ++t) padding += p.keys->view().is_padding(t) ? 1 : 0;
  return "dW T=" + std::to_string(p.T) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
         (p.keys ? ", keys [T," + std::to_string(p.keys->width) + "], " + std::to_string(padding) + " padding rows"
                 : ", no keys") +
         " (from " + c.summary() + ")";
}

// properties::with_padding, failing the property (not throwing) when the problem has no keys.
inline BackwardWeightProblem with_padding(const BackwardWeightProblem& p, std::int64_t count, std::uint64_t seed) {
  RC_ASSERT(p.keys.has_value());
  return properties::with_padding(p, count, seed);
}

// The whole-batch emulator's result; fails the property if the problem is refused.
inline BackwardWeightResult emulate_ok(const BackwardWeightProblem& p, const Contract& c) {
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, c.plan);
  if (!r.status.ok()) RC_FAIL("emulate_backward_weight refused a valid problem: " + r.status.to_string());
  return r.result;
}

// The reviewer's repro for BF16 needs more than three tokens: one instruction sums 1, 2^-24, -1 exactly in
// any order. With 17 tokens the order decides the 16-token groups: in key order the first group
// {1, -1, 14 x 2^-30} truncates the small terms (2^-30 < 2^-25 next to 1) and the last token gives 2^-30;
// reversed, the first group {15 x 2^-30, -1} gives -1 and then 1 cancels it: 0. (sm_80 runs each group as
// two steps of 8: in key order the second step keeps 8 x 2^-30, so its result is 9 x 2^-30.)
inline BackwardWeightProblem bf16_order_repro(bool reversed, bool with_keys) {
  BackwardWeightProblem p;
  p.T = 17;
  p.N = 3;
  p.K = 2;
  p.bf16_operands = true;
  p.x.assign(static_cast<std::size_t>(p.T * p.K), 1.0f);
  p.g.assign(static_cast<std::size_t>(p.T * p.N), 0.0f);
  if (with_keys) p.keys = LogicalKeys{2, {}};
  for (std::int64_t i = 0; i < p.T; ++i) {
    const std::int64_t t = reversed ? p.T - 1 - i : i;  // the token's key
    p.g[static_cast<std::size_t>(i * p.N)] = t == 0 ? 1.0f : t == 1 ? -1.0f : std::ldexp(1.0f, -30);
    if (with_keys) p.keys->values.insert(p.keys->values.end(), {7, t});
  }
  return p;
}

}  // namespace ordo::testing

// The same RapidCheck property once per arithmetic of an operation, as three tests named
// <Op>F32<Name>, <Op>Bf16Sm80<Name> and <Op>Bf16Sm90<Name> (e.g. DwF32PaddingRowsChangeNothing): `check`
// is called with the FP32 FMA-chain contract and the two tensor-core contracts of `operation` (fwd, bwd_dx
// or bwd_dw).
#define ORDO_RC_PROP_PER_CONTRACT(Suite, Op, operation, Name, check)                                          \
  RC_GTEST_PROP(Suite, Op##F32##Name, ()) { check(::ordo::contract_##operation##_f32_fma_chain()); }         \
  RC_GTEST_PROP(Suite, Op##Bf16Sm80##Name, ()) { check(::ordo::contract_##operation##_bf16_tc_fdpa_sm80()); } \
  RC_GTEST_PROP(Suite, Op##Bf16Sm90##Name, ()) { check(::ordo::contract_##operation##_bf16_tc_fdpa_sm90()); }
