#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <stdexcept>
#include <string>
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

// A path for a test's files that no other process uses: a fresh folder under the test temp dir made
// with mkdtemp, and `name` inside it (not created). Concurrent ctest runs (several checkouts on one machine,
// or -j) never meet in it, as they did in fixed paths like /tmp/ordo-files-cache.
inline std::string unique_temp_path(const std::string& name) {
  std::string pattern = ::testing::TempDir() + "/ordo-" + name + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern + " failed");
  return pattern + "/" + name;
}

inline const float kTwoM24 = std::ldexp(1.0f, -24);

}  // namespace ordo::testing
