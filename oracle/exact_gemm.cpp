#include "oracle/exact_gemm.h"

#include <cmath>

#include "oracle/exact_dots.h"

namespace ordo::oracle {

ExactForward exact_forward(const ForwardProblem& p, unsigned threads) {
  // The batched engine: rows decoded once, each output exact and rounded once to both formats.
  ExactForward r;
  r.f32.resize(static_cast<std::size_t>(p.M * p.N));
  r.f64.resize(r.f32.size());
  ExactDotsOutput out;
  out.f32 = r.f32.data();
  out.f64 = r.f64.data();
  exact_dots(p.x.data(), p.w.data(), p.bias ? p.bias->data() : nullptr, p.M, p.N, p.K, out, threads);
  return r;
}

ErrorSummary summarize_errors(const std::vector<float>& got, const ExactForward& exact) {
  ErrorSummary s;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double y = got[i], e = exact.f64[i];
    if (!std::isfinite(y) || !std::isfinite(e)) {
      ++s.skipped_nonfinite;
      continue;
    }
    ++s.compared;
    const double d = std::fabs(y - e);
    s.max_abs_error = std::max(s.max_abs_error, d);
    if (e != 0) s.max_relative_error = std::max(s.max_relative_error, d / std::fabs(e));
    diff2 += d * d;
    ref2 += e * e;
  }
  s.normwise_relative_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0.0);
  return s;
}

}  // namespace ordo::oracle
