// Fused Q/K/V projections and tensor-parallel output shards against the separate computations.
//
// What is exact, and why:
//   - forward: Y[m,n] depends only on row m of X and row n of W, so the fused [Wq; Wk; Wv] output is
//     the three outputs side by side, and an output shard (rows n0..n1 of W) is a slice of Y;
//   - dW and db: dW[n,k] and db[n] depend only on column n of G (and X, the keys), so their rows of
//     a fused or sharded weight are the separate dW and db, bit for bit;
//   - dX is not: the fused dX[m,k] is one chain over all Nq + Nk + Nv outputs (the contract's own
//     chain), which in general differs from adding the separate projections' dX, as the last test
//     shows. The same holds for a tensor-parallel shard of dX, whose partial sums a reduction adds.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "backward_test_support.h"
#include "oracle/plan_emulator.h"

namespace ordo::testing {
namespace {

std::vector<float> forward(const ForwardProblem& p, const Contract& c) { return oracle::emulate_dot(c.plan, p); }

// Rows [n0, n1) of W and the bias.
ForwardProblem forward_shard(const ForwardProblem& p, std::int64_t n0, std::int64_t n1) {
  ForwardProblem s = p;
  s.N = n1 - n0;
  s.w.assign(p.w.begin() + n0 * p.K, p.w.begin() + n1 * p.K);
  if (p.bias) s.bias = std::vector<float>(p.bias->begin() + n0, p.bias->begin() + n1);
  return s;
}

// Columns [n0, n1) of G.
BackwardWeightProblem weight_shard(const BackwardWeightProblem& p, std::int64_t n0, std::int64_t n1) {
  BackwardWeightProblem s = p;
  s.N = n1 - n0;
  s.g.clear();
  for (std::int64_t t = 0; t < p.T; ++t) s.g.insert(s.g.end(), p.g_row(t) + n0, p.g_row(t) + n1);
  return s;
}

std::string compare_forward_slice(const std::vector<float>& whole, const ForwardProblem& p, std::int64_t n0,
                                  const std::vector<float>& part, std::int64_t width) {
  std::vector<float> slice;
  for (std::int64_t m = 0; m < p.M; ++m)
    slice.insert(slice.end(), whole.begin() + m * p.N + n0, whole.begin() + m * p.N + n0 + width);
  return first_difference(slice, part, "Y[:, " + std::to_string(n0) + ":]");
}

std::string compare_weight_slice(const BackwardWeightResult& whole, const BackwardWeightProblem& p, std::int64_t n0,
                                 const BackwardWeightResult& part, std::int64_t width) {
  BackwardWeightResult slice;
  slice.dw.assign(whole.dw.begin() + n0 * p.K, whole.dw.begin() + (n0 + width) * p.K);
  if (whole.db) slice.db = std::vector<float>(whole.db->begin() + n0, whole.db->begin() + n0 + width);
  return first_difference(slice, part);
}

// Three cut points of [0, N): the Q, K and V widths, not necessarily equal (grouped-query attention).
std::vector<std::int64_t> qkv_bounds(std::int64_t N) {
  const auto a = *rc::gen::inRange<std::int64_t>(1, N - 1);
  const auto b = *rc::gen::inRange<std::int64_t>(a + 1, N);
  return {0, a, b, N};
}

void check_fused_qkv_forward(const Contract& c) {
  const ForwardCase fc = *properties::gen_forward_case({.max_m = 16, .max_n = 48, .max_k = 80, .max_volume = 20000},
                                                       properties::all_families(), is_tc(c));
  RC_TAG(std::string(properties::family_name(fc.family)));
  RC_PRE(fc.N >= 3);
  const ForwardProblem fused = fc.materialize();
  const std::vector<float> y = forward(fused, c);
  const std::vector<std::int64_t> cut = qkv_bounds(fused.N);
  for (int i = 0; i < 3; ++i) {
    const ForwardProblem part = forward_shard(fused, cut[i], cut[i + 1]);
    if (std::string d = compare_forward_slice(y, fused, cut[i], forward(part, c), part.N); !d.empty())
      RC_FAIL(c.id + " " + fc.summary() + ": fused against separate projection " + std::to_string(i) + ": " + d);
  }
}

ORDO_RC_PROP_PER_CONTRACT(BackwardFusedShard, Forward, fwd, FusedQkvEqualsSeparate, check_fused_qkv_forward)

// N cut into Q, K and V, or one shard [n0, n1) of N: each part's dW and db against rows of the whole.
void check_weight_parts(const Contract& c, bool qkv) {
  const ForwardCase fc = *gen_backward_case(c, dw_limits());
  RC_TAG(std::string(properties::family_name(fc.family)));
  BackwardWeightProblem p = weight_problem(fc, *rc::gen::element<std::int64_t>(0, 2, 3));
  if (p.keys) p = with_padding(p, *rc::gen::inRange(0, 3), fc.seed + 1);
  std::vector<std::int64_t> cut;
  if (qkv) {
    RC_PRE(p.N >= 3);
    cut = qkv_bounds(p.N);
  } else {
    const auto n0 = *rc::gen::inRange<std::int64_t>(0, p.N);
    cut = {n0, *rc::gen::inRange<std::int64_t>(n0 + 1, p.N + 1)};
  }
  const BackwardWeightResult whole = emulate_ok(p, c);
  for (std::size_t i = 0; i + 1 < cut.size(); ++i) {
    const BackwardWeightProblem part = weight_shard(p, cut[i], cut[i + 1]);
    if (std::string d = compare_weight_slice(whole, p, cut[i], emulate_ok(part, c), part.N); !d.empty())
      RC_FAIL(c.id + " " + describe(p, fc) + ": rows " + std::to_string(cut[i]) + ".." + std::to_string(cut[i + 1]) +
              " of the whole against the separate computation: " + d);
  }
}

void check_fused_qkv_slices(const Contract& c) { check_weight_parts(c, true); }
void check_column_shard(const Contract& c) { check_weight_parts(c, false); }

ORDO_RC_PROP_PER_CONTRACT(BackwardFusedShard, Dw, bwd_dw, FusedQkvSlicesEqualSeparate, check_fused_qkv_slices)
ORDO_RC_PROP_PER_CONTRACT(BackwardFusedShard, Dw, bwd_dw, ColumnShardEqualsSlice, check_column_shard)

void check_forward_shard(const Contract& c) {
  const ForwardCase fc = *properties::gen_forward_case({.max_m = 16, .max_n = 48, .max_k = 80, .max_volume = 20000},
                                                       properties::all_families(), is_tc(c));
  RC_TAG(std::string(properties::family_name(fc.family)));
  const ForwardProblem p = fc.materialize();
  const auto n0 = *rc::gen::inRange<std::int64_t>(0, p.N);
  const auto n1 = *rc::gen::inRange<std::int64_t>(n0 + 1, p.N + 1);
  if (std::string d = compare_forward_slice(forward(p, c), p, n0, forward(forward_shard(p, n0, n1), c), n1 - n0);
      !d.empty())
    RC_FAIL(c.id + " " + fc.summary() + ": shard " + std::to_string(n0) + ".." + std::to_string(n1) + ": " + d);
}

RC_GTEST_PROP(BackwardFusedShard, ForwardBf16Sm80ColumnShardEqualsSlice, ()) {
  check_forward_shard(contract_fwd_bf16_tc_fdpa_sm80());
}
RC_GTEST_PROP(BackwardFusedShard, ForwardBf16Sm90ColumnShardEqualsSlice, ()) {
  check_forward_shard(contract_fwd_bf16_tc_fdpa_sm90());
}

// Fused dX is one FMA chain through Q then K: fma(-1, 1, +0) = -1, then fma((1+2^-12)^2 exactly) - 1
// = 2^-11 + 2^-24, exact. The separate dX are -1 and round((1+2^-12)^2) = 1 + 2^-11 (a tie, to even),
// whose sum is 2^-11: adding separate dX is not the fused contract.
TEST(BackwardFusedShard, FusedDxIsOneChainNotTheSumOfSeparateDx) {
  const float a = 1.0f + std::ldexp(1.0f, -12);
  BackwardDataProblem fused{.M = 1, .N = 2, .K = 1, .g = {-1.0f, a}, .w = {1.0f, a}, .bf16_operands = false};
  BackwardDataProblem q{.M = 1, .N = 1, .K = 1, .g = {-1.0f}, .w = {1.0f}, .bf16_operands = false};
  BackwardDataProblem k{.M = 1, .N = 1, .K = 1, .g = {a}, .w = {a}, .bf16_operands = false};
  const ReductionPlan& m = contract_bwd_dx_f32_fma_chain().plan;
  const float dx_fused = oracle::emulate_backward_data(fused, m)[0];
  const float dx_sum = oracle::emulate_backward_data(q, m)[0] + oracle::emulate_backward_data(k, m)[0];
  EXPECT_EQ(dx_fused, std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
  EXPECT_EQ(dx_sum, std::ldexp(1.0f, -11));
  EXPECT_NE(bits_of(dx_fused), bits_of(dx_sum));
}

}  // namespace
}  // namespace ordo::testing
