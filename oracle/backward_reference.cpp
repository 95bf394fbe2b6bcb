#include <algorithm>
#include <utility>

#include "oracle/backward_emulator.h"
#include "oracle/plan_emulator.h"

namespace ordo::oracle {
namespace {

// The active rows sorted by key as std::vector comparison does it (lexicographic, signed); without
// keys, every row in call order.
std::vector<std::int64_t> reference_token_order(const BackwardWeightProblem& p) {
  std::vector<std::int64_t> rows;
  if (!p.keys) {
    for (std::int64_t t = 0; t < p.T; ++t) rows.push_back(t);
    return rows;
  }
  std::vector<std::pair<std::vector<std::int64_t>, std::int64_t>> keyed;
  for (std::int64_t t = 0; t < p.T; ++t) {
    const auto first = p.keys->values.begin() + t * p.keys->width;
    std::vector<std::int64_t> key(first, first + p.keys->width);
    if (key[0] >= 0) keyed.emplace_back(std::move(key), t);
  }
  std::sort(keyed.begin(), keyed.end());
  for (const auto& [key, t] : keyed) rows.push_back(t);
  return rows;
}

}  // namespace

std::vector<float> reference_backward_data(const BackwardDataProblem& p, const ReductionPlan& plan) {
  std::vector<float> dx(static_cast<std::size_t>(p.M * p.K));
  std::vector<float> a(static_cast<std::size_t>(p.N)), b(a.size());
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t k = 0; k < p.K; ++k) {
      for (std::int64_t n = 0; n < p.N; ++n) {
        a[static_cast<std::size_t>(n)] = p.g_at(m, n);
        b[static_cast<std::size_t>(n)] = p.w_at(n, k);
      }
      dx[static_cast<std::size_t>(m * p.K + k)] = reference_dot_element(plan, a.data(), b.data(), p.N, std::nullopt, false);
    }
  return dx;
}

BackwardWeightResult reference_backward_weight(const BackwardWeightProblem& p, const ReductionPlan& plan) {
  const std::vector<std::int64_t> order = reference_token_order(p);
  BackwardWeightResult r;
  r.dw.resize(static_cast<std::size_t>(p.N * p.K));
  std::vector<float> a(order.size()), b(order.size());
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t k = 0; k < p.K; ++k) {
      for (std::size_t i = 0; i < order.size(); ++i) {
        a[i] = p.g_row(order[i])[n];
        b[i] = p.x_row(order[i])[k];
      }
      r.dw[static_cast<std::size_t>(n * p.K + k)] =
          reference_dot_element(plan, a.data(), b.data(), static_cast<std::int64_t>(order.size()), std::nullopt, false);
    }
  if (p.with_bias_grad) {
    r.db.emplace(static_cast<std::size_t>(p.N));
    for (std::int64_t n = 0; n < p.N; ++n) {
      float acc = 0.0f;
      for (const std::int64_t t : order) acc = acc + p.g_row(t)[n];
      (*r.db)[static_cast<std::size_t>(n)] = finish_output(plan, acc, false);
    }
  }
  return r;
}

}  // namespace ordo::oracle
