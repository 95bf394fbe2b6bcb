#include <algorithm>
#include <cmath>
#include <utility>

#include "core/float_bits.h"
#include "oracle/backward_emulator.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {
namespace {

float canonical(float v) { return std::isnan(v) ? canonical_nan() : v; }

TcFdpaParams params_of(AccumulationModel model) {
  return model == AccumulationModel::tc_fdpa_sm80 ? tc_fdpa_params_sm80() : tc_fdpa_params_sm90();
}

// One output of a BF16 contract: a and b padded with zeros to a multiple of 16 (the instruction
// width), then T-FDPA steps of L from +0.
float tc_chain_from_zero(const TcFdpaParams& p, std::vector<float> a, std::vector<float> b) {
  const std::size_t padded = (a.size() + 15) / 16 * 16;
  a.resize(padded, 0.0f);
  b.resize(padded, 0.0f);
  float c = 0.0f;
  for (std::size_t i = 0; i < padded; i += static_cast<std::size_t>(p.L)) c = tc_fdpa_step(p, &a[i], &b[i], p.L, c);
  return c;
}

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

std::vector<float> reference_backward_data(const BackwardDataProblem& p, AccumulationModel model) {
  std::vector<float> dx(static_cast<std::size_t>(p.M * p.K));
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t k = 0; k < p.K; ++k) {
      float acc = 0.0f;
      if (model == AccumulationModel::fma_chain) {
        for (std::int64_t n = 0; n < p.N; ++n) acc = std::fma(p.g_at(m, n), p.w_at(n, k), acc);
      } else {
        std::vector<float> a, b;
        for (std::int64_t n = 0; n < p.N; ++n) {
          a.push_back(p.g_at(m, n));
          b.push_back(p.w_at(n, k));
        }
        acc = tc_chain_from_zero(params_of(model), a, b);
      }
      dx[static_cast<std::size_t>(m * p.K + k)] = canonical(acc);
    }
  return dx;
}

BackwardWeightResult reference_backward_weight(const BackwardWeightProblem& p, AccumulationModel model) {
  const std::vector<std::int64_t> order = reference_token_order(p);
  BackwardWeightResult r;
  r.dw.resize(static_cast<std::size_t>(p.N * p.K));
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t k = 0; k < p.K; ++k) {
      float acc = 0.0f;
      if (model == AccumulationModel::fma_chain) {
        for (const std::int64_t t : order) acc = std::fma(p.g_row(t)[n], p.x_row(t)[k], acc);
      } else {
        std::vector<float> a, b;
        for (const std::int64_t t : order) {
          a.push_back(p.g_row(t)[n]);
          b.push_back(p.x_row(t)[k]);
        }
        acc = tc_chain_from_zero(params_of(model), a, b);
      }
      r.dw[static_cast<std::size_t>(n * p.K + k)] = canonical(acc);
    }
  if (p.with_bias_grad) {
    r.db.emplace(static_cast<std::size_t>(p.N));
    for (std::int64_t n = 0; n < p.N; ++n) {
      float acc = 0.0f;
      for (const std::int64_t t : order) acc = acc + p.g_row(t)[n];
      (*r.db)[static_cast<std::size_t>(n)] = canonical(acc);
    }
  }
  return r;
}

}  // namespace ordo::oracle
