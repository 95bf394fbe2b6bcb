#include "oracle/exact_gemm.h"

#include <cmath>

#include "oracle/parallel_for.h"
#include "oracle/superaccumulator.h"

namespace ordo::oracle {

ExactForward exact_forward(const ForwardProblem& p, unsigned threads) {
  ExactForward r;
  r.f32.resize(static_cast<std::size_t>(p.M * p.N));
  r.f64.resize(r.f32.size());
  parallel_for(
      p.M,
      [&](std::int64_t m) {
        Superaccumulator acc;
        const float* x = p.x.data() + m * p.K;
        for (std::int64_t n = 0; n < p.N; ++n) {
          acc.clear();
          const float* w = p.w.data() + n * p.K;
          acc.add_products(x, w, p.K);
          if (p.bias) acc.add((*p.bias)[static_cast<std::size_t>(n)]);
          const auto i = static_cast<std::size_t>(m * p.N + n);
          r.f32[i] = acc.to_float();
          r.f64[i] = acc.to_double();
        }
      },
      threads);
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
