#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/contract.h"
#include "core/problem.h"
#include "oracle/plan_error_bound.h"

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

// A folder for a test's files that no other process uses: made fresh under the test temp dir with mkdtemp,
// its name starting "ordo-" + tag. Concurrent ctest runs (several checkouts on one machine, or -j) never meet
// in it, as they did in fixed paths like /tmp/ordo-files-cache.
inline std::string unique_temp_dir(const std::string& tag) {
  // Joined as paths: TempDir() ends in '/', and a "//" in the folder would not match paths listed inside it.
  std::string pattern = (std::filesystem::path(::testing::TempDir()) / ("ordo-" + tag + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern + " failed");
  return pattern;
}

// A path for a test's files that no other process uses: `name` (not created) inside a fresh unique_temp_dir.
inline std::string unique_temp_path(const std::string& name) { return unique_temp_dir(name) + "/" + name; }

// A unique_temp_dir for the running test, named after it ("ordo-" + tag + "-" + the test's name, a '/' of
// a parametrised test's name made '_').
inline std::string test_temp_dir(const std::string& tag) {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(name.begin(), name.end(), '/', '_');
  return unique_temp_dir(tag + "-" + name);
}

// `name` (not created) in a unique_temp_dir made on the first call and shared by the rest of this process:
// the same name is the same file within a run, and two runs never share it.
inline std::string process_temp_path(const std::string& name) {
  static const std::string dir = unique_temp_dir("test");
  return dir + "/" + name;
}

// Element (0, 0) of p judged against the bound of fwd.f32.fma-chain/1's plan.
inline oracle::ElementVerdict judge(const ForwardProblem& p, float candidate) {
  return oracle::judge_plan_element(contract_fwd_f32_fma_chain().plan, p.x_row(0), p.w_row(0), p.K, p.bias_at(0),
                                    candidate, false);
}

inline const float kTwoM24 = std::ldexp(1.0f, -24);

}  // namespace ordo::testing
