#pragma once
#include <cstdint>
#include <vector>

#include "core/problem.h"

namespace ordo::oracle {

// The exact forward GEMM through the batched exact engine (exact_dots.h, the superaccumulator's policy and
// bits): every output's exact value, rounded once to binary32 and to binary64, threaded over tiles on all
// cores. Fast enough for the seed's shapes (bench/exact_throughput.cpp measures it); MPFR stays the judge
// that validates it.
struct ExactForward {
  std::vector<float> f32;   // correctly rounded (RNE), [M, N]
  std::vector<double> f64;  // correctly rounded (RNE), [M, N]: for relative errors
};
ExactForward exact_forward(const ForwardProblem& p, unsigned threads = 0);

// Errors of a backend's output against the exact result, over the elements whose exact value and
// output are both finite.
struct ErrorSummary {
  std::int64_t compared = 0;
  std::int64_t skipped_nonfinite = 0;
  double max_abs_error = 0;
  double max_relative_error = 0;    // max |y - exact| / |exact| over exact != 0
  double normwise_relative_error = 0;  // ||y - exact||_F / ||exact||_F
};
ErrorSummary summarize_errors(const std::vector<float>& got, const ExactForward& exact);

}  // namespace ordo::oracle
