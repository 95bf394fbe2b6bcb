#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/logical_keys.h"
#include "core/status.h"

namespace ordo {

// The backward problems of Y = X * W^T + b on the host, row-major. Values are floats; with
// bf16_operands every operand value must be exactly a bfloat16 (low 16 bits zero), as the BF16
// contracts take them, the way ForwardProblem holds the forward BF16 operands.

// dX = G * W: G [M, N] is the gradient of Y, W [N, K] the forward weight, dX [M, K].
struct BackwardDataProblem {
  std::int64_t M = 0, N = 0, K = 0;
  std::vector<float> g;  // [M, N]
  std::vector<float> w;  // [N, K]
  bool bf16_operands = false;

  float g_at(std::int64_t m, std::int64_t n) const { return g[static_cast<std::size_t>(m * N + n)]; }
  float w_at(std::int64_t n, std::int64_t k) const { return w[static_cast<std::size_t>(n * K + k)]; }
};

// dW = G^T * X and db = sum_t G over the active tokens t, in the order the keys fix (call order
// without keys): X [T, K] the forward input, G [T, N], dW [N, K], db [N].
struct BackwardWeightProblem {
  std::int64_t T = 0, N = 0, K = 0;
  std::vector<float> x;             // [T, K]
  std::vector<float> g;             // [T, N]
  std::optional<LogicalKeys> keys;  // [T, 2] or [T, 3]
  bool with_bias_grad = false;
  bool bf16_operands = false;

  const float* x_row(std::int64_t t) const { return x.data() + t * K; }
  const float* g_row(std::int64_t t) const { return g.data() + t * N; }
};

struct BackwardWeightResult {
  std::vector<float> dw;                 // [N, K]
  std::optional<std::vector<float>> db;  // [N] when with_bias_grad
};

// Fail-closed checks, first failure wins: bad_size (M, N or K < 1, T < 0, or an output of more than 2^40
// elements), inconsistent_size (vector
// lengths), wrong_dtype (a value that is not a bfloat16 with bf16_operands), then the keys
// (bad_keys, duplicate_key, padding_gradient_nonzero; core/logical_keys.h).
Status validate(const BackwardDataProblem& p);
Status validate(const BackwardWeightProblem& p);

// The rows dW and db reduce over, in order: canonical_order(keys), or call_order(T) without keys.
// The keys must have a valid shape.
CanonicalOrder token_order(const BackwardWeightProblem& p);

// The problem made of the given rows of p (X, G and keys together), in the given order: permutations,
// microbatches and padding insertions are built from it.
BackwardWeightProblem select_rows(const BackwardWeightProblem& p, const std::vector<std::int64_t>& rows);

}  // namespace ordo
