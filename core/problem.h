#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/checked_size.h"

namespace ordo {

// A forward problem on the host: Y = X * W^T + b, row-major. The backends copy it wherever they run.
struct ForwardProblem {
  std::int64_t M = 0, N = 0, K = 0;
  std::vector<float> x;                    // [M, K]
  std::vector<float> w;                    // [N, K]
  std::optional<std::vector<float>> bias;  // [N]
  // Y is written as bfloat16: one round-to-nearest-even cast of each FP32 result at the store (BF16
  // contracts). Backends still return floats; a bf16 output is the float of equal value (bits << 16).
  bool bf16_output = false;

  float x_at(std::int64_t m, std::int64_t k) const { return x[static_cast<std::size_t>(m * K + k)]; }
  const float* x_row(std::int64_t m) const { return x.data() + m * K; }
  const float* w_row(std::int64_t n) const { return w.data() + n * K; }
  std::optional<float> bias_at(std::int64_t n) const {
    return bias ? std::optional<float>((*bias)[static_cast<std::size_t>(n)]) : std::nullopt;
  }
  float w_at(std::int64_t n, std::int64_t k) const { return w[static_cast<std::size_t>(n * K + k)]; }
  // M, N, K >= 1 and every vector exactly its shape, with overflow-safe size arithmetic.
  bool shapes_consistent() const {
    return M >= 1 && N >= 1 && K >= 1 && holds_exactly(x.size(), M, K) && holds_exactly(w.size(), N, K) &&
           checked_product(M, N).has_value() && (!bias || holds_exactly(bias->size(), 1, N));
  }
};

// The same problem restricted to one row of X (m), everything else unchanged.
ForwardProblem single_row(const ForwardProblem& p, std::int64_t m);

}  // namespace ordo
