#include "core/problem.h"

#include <cassert>

namespace ordo {

ForwardProblem single_row(const ForwardProblem& p, std::int64_t m) {
  assert(m >= 0 && m < p.M);
  ForwardProblem r;
  r.M = 1;
  r.N = p.N;
  r.K = p.K;
  r.x.assign(p.x.begin() + m * p.K, p.x.begin() + (m + 1) * p.K);
  r.w = p.w;
  r.bias = p.bias;
  r.bf16_output = p.bf16_output;
  return r;
}

}  // namespace ordo
