#pragma once
// The defects of the dW/db mutants of contract bwd.dw.f32.fma-chain/1, in two parts that both the GPU
// mutants (bwd_dw_mutants.cu) and their host twins (subjects/mutants/host_bwd_dw_mutants.cpp) use:
//   - which token rows dW and db reduce, in which order (bwd_dw_orders.h, host code: keys are read on the
//     host in every implementation);
//   - how one element's chain runs over them (here, compiled by both compilers).
// The contract: dW[n,k] = one fma_rn chain of G[t,n] X[t,k] over the active tokens in ascending key order
// (padding dropped, duplicate keys refused; call order without keys) from +0, or, with accumulate, from
// the current dW; db[n] the add_rn chain of G[t,n] over the same tokens.
#include <cstddef>

#include "kernels/mutants/mutant_arith.h"

namespace ordo::mutants {

enum class DwDefect {
  atomics,                  // token chunks' partials added with atomics: no fixed order
  call_order,               // the active rows in call order, never sorted by key
  padding_reduced,          // padding rows reduced (sorted with the rest) instead of dropped
  duplicate_keys_accepted,  // two rows with one key are reduced instead of refused
  accumulate_restarts,      // accumulate: a chain from +0, added to dW once, instead of continuing dW's chain
  db_call_order,            // dW in key order, db over the active rows in call order
};

// Tokens per chunk of the atomics mutant: one block's share of the reduction.
constexpr int kDwChunk = 16;

// Steps r0 .. r1-1 of the order `rows` for element (n, k) of dW, and of db[n], continuing `acc`.
ORDO_MUTANT_HD float dw_chain(const float* g, const float* x, const int* rows, int r0, int r1, int N, int K, int n,
                              int k, float acc) {
  for (int r = r0; r < r1; ++r) {
    const std::size_t t = static_cast<std::size_t>(rows[r]);
    acc = fma_rn(g[t * static_cast<std::size_t>(N) + static_cast<std::size_t>(n)],
                 x[t * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)], acc);
  }
  return acc;
}
ORDO_MUTANT_HD float db_chain(const float* g, const int* rows, int r0, int r1, int N, int n, float acc) {
  for (int r = r0; r < r1; ++r)
    acc = add_rn(acc, g[static_cast<std::size_t>(rows[r]) * static_cast<std::size_t>(N) + static_cast<std::size_t>(n)]);
  return acc;
}

// One element of a call over the whole order, for every defect but atomics (whose order is not fixed):
// `current` is the element's value before the call (read only with accumulate).
ORDO_MUTANT_HD float dw_element(DwDefect d, const float* g, const float* x, const int* rows, int R, int N, int K, int n,
                                int k, bool accumulate, float current) {
  if (d == DwDefect::accumulate_restarts && accumulate)
    return add_rn(current, dw_chain(g, x, rows, 0, R, N, K, n, k, 0.0f));
  return dw_chain(g, x, rows, 0, R, N, K, n, k, accumulate ? current : 0.0f);
}
ORDO_MUTANT_HD float db_element(DwDefect d, const float* g, const int* rows, int R, int N, int n, bool accumulate,
                                float current) {
  if (d == DwDefect::accumulate_restarts && accumulate) return add_rn(current, db_chain(g, rows, 0, R, N, n, 0.0f));
  return db_chain(g, rows, 0, R, N, n, accumulate ? current : 0.0f);
}

}  // namespace ordo::mutants
