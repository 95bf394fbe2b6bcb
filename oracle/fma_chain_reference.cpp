#include <cmath>

#include "core/float_bits.h"
#include "oracle/fma_chain_emulator.h"

namespace ordo::oracle {

float reference_fma_chain_element(const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  float acc = 0.0f;  // +0: the contract's start value
  for (std::int64_t k = 0; k < p.K; ++k) acc = std::fma(p.x_at(m, k), p.w_at(n, k), acc);
  float y = p.bias ? acc + (*p.bias)[static_cast<std::size_t>(n)] : acc;
  return std::isnan(y) ? canonical_nan() : y;
}

std::vector<float> reference_forward_fma_chain(const ForwardProblem& p) {
  std::vector<float> y(static_cast<std::size_t>(p.M * p.N));
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) y[static_cast<std::size_t>(m * p.N + n)] = reference_fma_chain_element(p, m, n);
  return y;
}

}  // namespace ordo::oracle
