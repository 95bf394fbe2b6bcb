// The decomposition and packing of the lane kernel's operands (oracle/tc_fdpa_lanes.h); the kernel
// itself is oracle/tc_fdpa_lane_kernel.cpp.
#include "oracle/tc_fdpa_lanes.h"

#include <algorithm>
#include <cmath>

#include "core/float_bits.h"
#include "oracle/parallel_for.h"

namespace ordo::oracle {

std::int32_t tc_operand_exponent(float v) {
  const std::uint32_t u = bits_of(v);
  if ((u & 0x7FFFFFFFu) == 0) return kTcZeroExponent;
  return std::max(static_cast<std::int32_t>((u >> 23) & 0xFFu), 1) - 127;
}

float tc_operand_significand(float v) {
  return (bits_of(v) & 0x7FFFFFFFu) == 0 ? 0.0f : std::ldexp(v, -tc_operand_exponent(v));
}

std::int32_t tc_effective_e_zero(int e_zero) { return std::max(e_zero, -300); }

bool tc_lane_kernel_is_narrow(const TcFdpaParams& p) {
  return static_cast<std::int64_t>(p.L) * 65025 * (std::int64_t{1} << (p.F - 14)) < (std::int64_t{1} << 31);
}

bool any_non_finite(const float* v, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return true;
  return false;
}

TcPanels pack_tc_panels(const ForwardProblem& p, std::int64_t k_len, unsigned threads) {
  TcPanels t;
  t.panels = (p.N + kTcLanes - 1) / kTcLanes;
  t.k_len = k_len;
  const auto size = static_cast<std::size_t>(t.panels * k_len * kTcLanes);
  t.sig.assign(size, 0.0f);
  t.exp.assign(size, kTcZeroExponent);
  parallel_for(
      t.panels,
      [&](std::int64_t panel) {
        for (int j = 0; j < kTcLanes; ++j) {
          const std::int64_t n = panel * kTcLanes + j;
          if (n >= p.N) break;
          const float* b = p.w_row(n);
          const auto base = static_cast<std::size_t>(panel * k_len * kTcLanes + j);
          for (std::int64_t k = 0; k < p.K; ++k) {
            const float v = std::isfinite(b[k]) ? b[k] : 0.0f;
            t.sig[base + static_cast<std::size_t>(k * kTcLanes)] = tc_operand_significand(v);
            t.exp[base + static_cast<std::size_t>(k * kTcLanes)] = tc_operand_exponent(v);
          }
        }
      },
      threads);
  return t;
}

TcRowsPacked pack_tc_rows(const ForwardProblem& p, std::int64_t k_len, unsigned threads) {
  TcRowsPacked t;
  t.rows = p.M;
  t.k_len = k_len;
  const auto size = static_cast<std::size_t>((p.M + 1) * k_len);  // one more: the zero row
  t.sig.assign(size, 0.0f);
  t.exp.assign(size, kTcZeroExponent);
  parallel_for(
      p.M,
      [&](std::int64_t m) {
        const float* a = p.x_row(m);
        float* sig = t.sig.data() + m * k_len;
        std::int32_t* exp = t.exp.data() + m * k_len;
        for (std::int64_t k = 0; k < p.K; ++k) {
          const float v = std::isfinite(a[k]) ? a[k] : 0.0f;
          sig[k] = tc_operand_significand(v);
          exp[k] = tc_operand_exponent(v);
        }
      },
      threads);
  return t;
}

}  // namespace ordo::oracle
