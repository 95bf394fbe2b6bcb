#include "oracle/fma_chain_emulator.h"

#include <cmath>
#include <cstring>

#include "core/float_bits.h"
#include "oracle/parallel_for.h"

namespace ordo::oracle {
namespace {

constexpr int kLanes = 16;  // output columns per panel: one AVX-512 register, two AVX2 registers
constexpr int kRows = 4;    // rows of X per micro-kernel call: reuses each loaded W vector 4 times

// W [N,K] repacked k-major in panels of kLanes columns: panel[p][k][j] = W[p*kLanes + j, k].
// Columns past N are zero; their lanes are computed and thrown away.
std::vector<float> pack_w_panels(const ForwardProblem& p, std::int64_t panels) {
  std::vector<float> packed(static_cast<std::size_t>(panels * p.K * kLanes), 0.0f);
  for (std::int64_t n = 0; n < p.N; ++n) {
    const std::int64_t panel = n / kLanes, lane = n % kLanes;
    float* dst = packed.data() + panel * p.K * kLanes + lane;
    for (std::int64_t k = 0; k < p.K; ++k) dst[k * kLanes] = p.w_at(n, k);
  }
  return packed;
}

// kRows x kLanes independent FMA chains over ascending k. target_clones compiles it for AVX-512,
// AVX2+FMA and a generic x86-64 (where std::fma is the correctly rounded library call): the same
// bits on every path, only the speed differs.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void fma_chain_micro_kernel(const float* const* x_rows, const float* panel, std::int64_t K,
                            float (*out)[kLanes]) {
  float acc[kRows][kLanes];
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < kLanes; ++j) acc[r][j] = 0.0f;  // +0: the contract's start value
  const float* x0 = x_rows[0];
  const float* x1 = x_rows[1];
  const float* x2 = x_rows[2];
  const float* x3 = x_rows[3];
  for (std::int64_t k = 0; k < K; ++k) {
    const float* wk = panel + k * kLanes;
    const float a0 = x0[k], a1 = x1[k], a2 = x2[k], a3 = x3[k];
    for (int j = 0; j < kLanes; ++j) acc[0][j] = std::fma(a0, wk[j], acc[0][j]);
    for (int j = 0; j < kLanes; ++j) acc[1][j] = std::fma(a1, wk[j], acc[1][j]);
    for (int j = 0; j < kLanes; ++j) acc[2][j] = std::fma(a2, wk[j], acc[2][j]);
    for (int j = 0; j < kLanes; ++j) acc[3][j] = std::fma(a3, wk[j], acc[3][j]);
  }
  std::memcpy(out, acc, sizeof acc);
}

}  // namespace

std::vector<float> emulate_forward_fma_chain(const ForwardProblem& p, unsigned threads) {
  const std::int64_t panels = (p.N + kLanes - 1) / kLanes;
  const std::int64_t row_blocks = (p.M + kRows - 1) / kRows;
  const std::vector<float> packed = pack_w_panels(p, panels);
  const std::vector<float> zero_row(static_cast<std::size_t>(p.K), 0.0f);  // stands in for rows past M
  std::vector<float> y(static_cast<std::size_t>(p.M * p.N));

  parallel_for(
      row_blocks * panels,
      [&](std::int64_t task) {
        const std::int64_t rb = task / panels, panel = task % panels;
        const float* x_rows[kRows];
        for (int r = 0; r < kRows; ++r) {
          const std::int64_t m = rb * kRows + r;
          x_rows[r] = m < p.M ? p.x.data() + m * p.K : zero_row.data();
        }
        float out[kRows][kLanes];
        fma_chain_micro_kernel(x_rows, packed.data() + panel * p.K * kLanes, p.K, out);
        for (int r = 0; r < kRows; ++r) {
          const std::int64_t m = rb * kRows + r;
          if (m >= p.M) break;
          for (int j = 0; j < kLanes; ++j) {
            const std::int64_t n = panel * kLanes + j;
            if (n >= p.N) break;
            float v = out[r][j];
            if (p.bias) v = v + (*p.bias)[static_cast<std::size_t>(n)];  // one RN add (-ffp-contract=off)
            y[static_cast<std::size_t>(m * p.N + n)] = std::isnan(v) ? canonical_nan() : v;
          }
        }
      },
      threads);
  return y;
}

}  // namespace ordo::oracle
