#include "oracle/tc_chain_emulator.h"

#include <cmath>

#include "core/float_bits.h"
#include "oracle/parallel_for.h"

namespace ordo::oracle {

std::vector<float> emulate_forward_tc_chain(const ForwardProblem& p, const TcFdpaParams& params, unsigned threads) {
  // The instruction is 16 wide: with L = 8 (sm_80) a K tail of 1..8 still runs the instruction's second,
  // all-zero step, which can turn a -0 accumulator into +0; padding to 16 reproduces that.
  const std::int64_t padded_k = (p.K + 15) / 16 * 16;
  std::vector<float> y(static_cast<std::size_t>(p.M * p.N));
  parallel_for(
      p.M,
      [&](std::int64_t m) {
        std::vector<float> x(static_cast<std::size_t>(padded_k), 0.0f), w(x.size(), 0.0f);
        std::copy(p.x_row(m), p.x_row(m) + p.K, x.begin());
        for (std::int64_t n = 0; n < p.N; ++n) {
          std::copy(p.w_row(n), p.w_row(n) + p.K, w.begin());
          float v = tc_fdpa_chain(params, x.data(), w.data(), padded_k);
          if (const std::optional<float> b = p.bias_at(n)) v = v + *b;  // one RN add (-ffp-contract=off)
          y[static_cast<std::size_t>(m * p.N + n)] = std::isnan(v) ? canonical_nan() : v;
        }
      },
      threads);
  return y;
}

}  // namespace ordo::oracle
