#include "oracle/weight_grad_accumulator.h"

#include <cassert>
#include <cmath>
#include <stdexcept>

#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "oracle/parallel_for.h"

namespace ordo::oracle {
namespace {

constexpr std::int64_t kTileN = 8;    // dW rows per task
constexpr std::int64_t kTileK = 256;  // dW columns per task

// acc[k] = fma_rn(a, x[k], acc[k]) for every k: K independent chains, each advanced by one token, so
// vectorising across k keeps every element's order. Compiled for AVX-512, AVX2+FMA and generic x86-64
// (where std::fma is the correctly rounded library call): the same bits on every path.
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]] void fma_axpy(float a, const float* x, float* acc,
                                                                                    std::int64_t K) {
  for (std::int64_t k = 0; k < K; ++k) acc[k] = std::fma(a, x[k], acc[k]);
}

// tile(n0, n1, k0, k1) over dW [N, K] in kTileN x kTileK tiles, in parallel: the tiles are disjoint parts of
// dW, and each element's chain stays inside its tile, in order.
template <class Tile>
void for_each_tile(std::int64_t N, std::int64_t K, unsigned threads, const Tile& tile) {
  const std::int64_t tiles_n = (N + kTileN - 1) / kTileN, tiles_k = (K + kTileK - 1) / kTileK;
  parallel_for(
      tiles_n * tiles_k,
      [&](std::int64_t task) {
        const std::int64_t n0 = task / tiles_k * kTileN, k0 = task % tiles_k * kTileK;
        tile(n0, std::min(N, n0 + kTileN), k0, std::min(K, k0 + kTileK));
      },
      threads);
}

// One instruction: `width` products as T-FDPA steps of p.L over ascending index, the accumulator the C
// of each step.
float tc_instruction(const TcFdpaParams& p, std::int64_t width, const float* a, const float* b, float c) {
  for (std::int64_t j = 0; j < width; j += p.L) c = tc_fdpa_step(p, a + j, b + j, p.L, c);
  return c;
}

}  // namespace

std::optional<TcFdpaParams> tc_params_of(const Step& step) {
  if (step.kind == StepKind::fma_rn) return std::nullopt;
  return TcFdpaParams{step.tc.L, step.tc.F, step.tc.e_zero};
}

WeightGradAccumulator::WeightGradAccumulator(std::int64_t N, std::int64_t K, bool with_bias_grad,
                                             const ReductionPlan& plan, unsigned threads)
    : N_(N), K_(K), with_bias_grad_(with_bias_grad), plan_(plan), tc_(tc_params_of(plan.step)),
      group_(plan.step.width()), threads_(threads) {
  if (N < 1 || K < 1) throw std::invalid_argument("WeightGradAccumulator needs N, K >= 1");
  if (plan.structure != KStructure::chain)
    throw std::invalid_argument("WeightGradAccumulator streams one chain per element; a segmented plan is not supported");
  dw_.assign(static_cast<std::size_t>(N * K), plan.start_value());
  if (with_bias_grad_) db_.assign(static_cast<std::size_t>(N), 0.0f);
}

void WeightGradAccumulator::consume(const std::vector<const float*>& x_rows, const std::vector<const float*>& g_rows) {
  assert(x_rows.size() == g_rows.size());
  if (x_rows.empty()) return;
  if (tc_)
    consume_tc(x_rows, g_rows);
  else
    consume_fma(x_rows, g_rows);
  consumed_ += static_cast<std::int64_t>(x_rows.size());
}

void WeightGradAccumulator::add_bias_grad(const std::vector<const float*>& g_rows) {
  if (!with_bias_grad_) return;
  for (const float* g : g_rows)
    for (std::int64_t n = 0; n < N_; ++n) db_[static_cast<std::size_t>(n)] = db_[static_cast<std::size_t>(n)] + g[n];
}

void WeightGradAccumulator::consume_fma(const std::vector<const float*>& x_rows,
                                        const std::vector<const float*>& g_rows) {
  for_each_tile(N_, K_, threads_, [&](std::int64_t n0, std::int64_t n1, std::int64_t k0, std::int64_t k1) {
    for (std::size_t i = 0; i < x_rows.size(); ++i)
      for (std::int64_t n = n0; n < n1; ++n) fma_axpy(g_rows[i][n], x_rows[i] + k0, dw_.data() + n * K_ + k0, k1 - k0);
  });
  add_bias_grad(g_rows);
}

void WeightGradAccumulator::consume_tc(const std::vector<const float*>& x_rows,
                                       const std::vector<const float*>& g_rows) {
  add_bias_grad(g_rows);  // db is not grouped: an add_rn chain token by token
  std::vector<const float*> xs, gs;
  const std::int64_t carried = carried_tokens();
  for (std::int64_t r = 0; r < carried; ++r) {
    xs.push_back(carry_x_.data() + r * K_);
    gs.push_back(carry_g_.data() + r * N_);
  }
  xs.insert(xs.end(), x_rows.begin(), x_rows.end());
  gs.insert(gs.end(), g_rows.begin(), g_rows.end());
  const std::size_t groups = xs.size() / group_;
  run_tc_groups(xs, gs, groups);
  std::vector<float> next_x, next_g;
  for (std::size_t i = groups * group_; i < xs.size(); ++i) {
    next_x.insert(next_x.end(), xs[i], xs[i] + K_);
    next_g.insert(next_g.end(), gs[i], gs[i] + N_);
  }
  carry_x_ = std::move(next_x);
  carry_g_ = std::move(next_g);
}

void WeightGradAccumulator::run_tc_groups(const std::vector<const float*>& x_rows,
                                          const std::vector<const float*>& g_rows, std::size_t groups) {
  if (groups == 0) return;
  // Each group's operands k-major: xpack[grp][k][j] = X[token j of grp, k], gpack[grp][n][j] likewise,
  // so every instruction reads group_ contiguous values.
  const auto G = static_cast<std::int64_t>(groups);
  std::vector<float> xpack(static_cast<std::size_t>(G * K_ * group_)), gpack(static_cast<std::size_t>(G * N_ * group_));
  for (std::int64_t grp = 0; grp < G; ++grp)
    for (std::int64_t j = 0; j < group_; ++j) {
      const float* x = x_rows[static_cast<std::size_t>(grp * group_ + j)];
      const float* g = g_rows[static_cast<std::size_t>(grp * group_ + j)];
      for (std::int64_t k = 0; k < K_; ++k) xpack[static_cast<std::size_t>((grp * K_ + k) * group_ + j)] = x[k];
      for (std::int64_t n = 0; n < N_; ++n) gpack[static_cast<std::size_t>((grp * N_ + n) * group_ + j)] = g[n];
    }
  for_each_tile(N_, K_, threads_, [&](std::int64_t n0, std::int64_t n1, std::int64_t k0, std::int64_t k1) {
    for (std::int64_t grp = 0; grp < G; ++grp)
      for (std::int64_t n = n0; n < n1; ++n) {
        const float* a = gpack.data() + (grp * N_ + n) * group_;
        float* acc = dw_.data() + n * K_;
        for (std::int64_t k = k0; k < k1; ++k)
          acc[k] = tc_instruction(*tc_, group_, a, xpack.data() + (grp * K_ + k) * group_, acc[k]);
      }
  });
}

BackwardWeightResult WeightGradAccumulator::finish() {
  if (tc_ && carried_tokens() > 0) {
    // The last group, padded with zero tokens (+0 products), as a kernel's zero-filled tail is.
    const std::vector<float> zero_x(static_cast<std::size_t>(K_), 0.0f), zero_g(static_cast<std::size_t>(N_), 0.0f);
    std::vector<const float*> xs(group_, zero_x.data()), gs(group_, zero_g.data());
    for (std::int64_t r = 0; r < carried_tokens(); ++r) {
      xs[static_cast<std::size_t>(r)] = carry_x_.data() + r * K_;
      gs[static_cast<std::size_t>(r)] = carry_g_.data() + r * N_;
    }
    run_tc_groups(xs, gs, 1);
    carry_x_.clear();
    carry_g_.clear();
  }
  // Padding beyond the last instruction (k_padding_multiple): all-zero instructions or zero FMAs, each
  // add_rn(acc, +0) in effect, which changes only a -0 accumulator (to +0); one add stands for all.
  const std::int64_t instructions_end = (consumed_ + group_ - 1) / group_ * group_;
  const bool extra_padding = plan_.padded_terms(consumed_) > instructions_end;
  BackwardWeightResult r;
  r.dw = std::move(dw_);
  for (float& v : r.dw) v = finish_output(plan_, extra_padding ? v + 0.0f : v, false);
  if (with_bias_grad_) {
    r.db = std::move(db_);
    for (float& v : *r.db) v = finish_output(plan_, v, false);
  }
  return r;
}

}  // namespace ordo::oracle
