#pragma once
#include <cmath>
#include <vector>

#include "core/problem.h"

namespace ordo::testing {

// A one-row, one-column problem: y = sum_k x[k] * w[k] (+ b).
inline ForwardProblem dot_problem(std::vector<float> x, std::vector<float> w, std::optional<float> bias = {}) {
  ForwardProblem p;
  p.M = 1;
  p.N = 1;
  p.K = static_cast<std::int64_t>(x.size());
  p.x = std::move(x);
  p.w = std::move(w);
  if (bias) p.bias = std::vector<float>{*bias};
  return p;
}

inline const float kTwoM24 = std::ldexp(1.0f, -24);

}  // namespace ordo::testing
