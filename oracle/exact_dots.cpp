#include "oracle/exact_dots.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/float_bits.h"
#include "oracle/dot_kernel.h"
#include "oracle/dot_lanes.h"
#include "oracle/parallel_for.h"

namespace ordo::oracle {
namespace {

using dot_kernel::DecodedRow;
using dot_kernel::DecodedRows;

// The policy's result when a NaN or Inf is among the terms (superaccumulator.h): decided by the terms'
// classes alone, so a plain scan of the rare rows that have one.
ExactSum::Special special_result(const float* a, const float* b, std::int64_t K, const float* bias) {
  bool nan = false, pos_inf = false, neg_inf = false;
  for (std::int64_t k = 0; k < K; ++k) {
    const float x = a[k], y = b[k];
    if (std::isfinite(x) && std::isfinite(y)) continue;
    if (std::isnan(x) || std::isnan(y) || x == 0 || y == 0)
      nan = true;  // NaN operand or Inf * 0
    else
      (std::signbit(x) != std::signbit(y) ? neg_inf : pos_inf) = true;
  }
  if (bias && !std::isfinite(*bias)) (std::isnan(*bias) ? nan : *bias < 0 ? neg_inf : pos_inf) = true;
  if (nan || (pos_inf && neg_inf)) return ExactSum::Special::nan;
  if (pos_inf) return ExactSum::Special::pos_inf;
  if (neg_inf) return ExactSum::Special::neg_inf;
  return ExactSum::Special::none;
}

// One output from two decoded rows, the bias (if any) already among their terms (1 * bias); a, b and
// bias are the same values undecoded, for the rare cases that need the terms' classes (a NaN or Inf
// somewhere, or an exact zero whose sign is to be decided).
void dot_element(const DecodedRow& ra, const DecodedRow& rb, const float* a, const float* b, std::int64_t K,
                 const float* bias, ExactSum& s) {
  s.clear();
  if (ra.special || rb.special) {
    s.set_special(special_result(a, b, K, bias));
    return;
  }
  const int position = ra.min_exponent + rb.min_exponent;
  dot_kernel::WindowSums sums;
  for (std::int64_t begin = 0; begin < ra.padded_length; begin += dot_kernel::kBlock) {
    dot_kernel::dot_windows(ra, rb, begin, std::min(ra.padded_length, begin + dot_kernel::kBlock), sums);
    s.add_windows(sums, position);
  }
  if (s.is_zero()) {
    // -0 only if every term is -0; no term at all is +0 (an empty sum).
    const bool bias_negative_zero = bias && *bias == 0 && std::signbit(*bias);
    const bool negative =
        (K > 0 || bias) && (!bias || bias_negative_zero) && dot_kernel::all_products_negative_zero(a, b, K);
    s.set_zero_is_negative(negative);
  }
}

void write(const ExactSum& s, const ExactDotsOutput& out, std::size_t i) {
  s.round_all(out.f32 ? out.f32 + i : nullptr, out.bf16 ? out.bf16 + i : nullptr, out.f64 ? out.f64 + i : nullptr);
  if (out.exact) out.exact[i] = s;
}

// A task's tile: rows of x decoded once and reused over a block of columns (w rows decoded up front).
constexpr std::int64_t kColumnsPerTask = 64;  // a multiple of the lane group (8)

std::int64_t rows_per_task(std::int64_t K) {  // about 256 KiB of decoded x rows: they stay in cache
  return std::clamp<std::int64_t>((std::int64_t{1} << 16) / std::max<std::int64_t>(K, 1), 1, 16);
}

const float kOne = 1.0f;  // x's side of the bias term
constexpr std::int64_t kLaneMaxK = 512;

}  // namespace

void exact_dots(const float* x, const float* w, const float* bias, std::int64_t M, std::int64_t N, std::int64_t K,
                const ExactDotsOutput& out, unsigned threads) {
  if (M <= 0 || N <= 0) return;
  const float* x_tail = bias ? &kOne : nullptr;
  const std::int64_t length = K + (bias ? 1 : 0);
  DecodedRows wd;
  wd.decode(w, N, K, bias, 1);
  // Eight outputs at a time in SIMD lanes where the CPU allows (dot_lanes.h); the exact values, when
  // wanted, and the lanes it leaves unfinished come from the per-output path. The lanes pay where the
  // per-output carry and read-out dominate: short K (measured on Zen 4: 3x faster at K = 32, even at
  // K = 512, slower beyond, where the per-output loop's 16 terms per step win) and at least half a group
  // of columns.
  const bool lanes = dot_kernel::have_lane_kernel() && (out.f32 || out.bf16 || out.f64) && K <= kLaneMaxK &&
                     N >= dot_kernel::kGroup / 2;
  dot_kernel::DecodedGroups wg;
  if (lanes) wg.build(wd, length);
  const std::int64_t row_block = rows_per_task(K);
  const std::int64_t row_tasks = (M + row_block - 1) / row_block;
  const std::int64_t column_tasks = (N + kColumnsPerTask - 1) / kColumnsPerTask;
  parallel_for(
      row_tasks * column_tasks,
      [&](std::int64_t task) {
        thread_local DecodedRows xd;
        const std::int64_t m0 = task / column_tasks * row_block, rows = std::min(row_block, M - m0);
        const std::int64_t n0 = task % column_tasks * kColumnsPerTask, n1 = std::min(N, n0 + kColumnsPerTask);
        xd.decode(x + m0 * K, rows, K, x_tail, 0);
        ExactSum s;
        auto per_output = [&](std::int64_t m, std::int64_t n, const ExactDotsOutput& to) {
          dot_element(xd.row(m - m0), wd.row(n), x + m * K, w + n * K, K, bias ? bias + n : nullptr, s);
          write(s, to, static_cast<std::size_t>(m * N + n));
        };
        if (!lanes) {
          for (std::int64_t n = n0; n < n1; ++n)
            for (std::int64_t m = m0; m < m0 + rows; ++m) per_output(m, n, out);
          return;
        }
        const ExactDotsOutput exact_only{nullptr, nullptr, nullptr, out.exact};
        dot_kernel::LaneResults r;
        for (std::int64_t n = n0; n < n1; n += dot_kernel::kGroup) {
          const dot_kernel::DecodedGroups::Group group = wg.group(n / dot_kernel::kGroup);
          const int count = static_cast<int>(std::min<std::int64_t>(dot_kernel::kGroup, n1 - n));
          for (std::int64_t m = m0; m < m0 + rows; ++m) {
            if (xd.row(m - m0).special) {
              for (int i = 0; i < count; ++i) per_output(m, n + i, out);
              continue;
            }
            dot_kernel::dot_lanes(xd.row(m - m0), group, r);
            for (int i = 0; i < count; ++i) {
              if ((r.unfinished >> i) & 1u) {
                per_output(m, n + i, out);
                continue;
              }
              const auto at = static_cast<std::size_t>(m * N + n + i);
              if (out.f32) out.f32[at] = float_of(r.f32[i]);
              if (out.bf16) out.bf16[at] = float_of(r.bf16[i]);
              if (out.f64) out.f64[at] = std::bit_cast<double>(r.f64[i]);
              if (out.exact) per_output(m, n + i, exact_only);
            }
          }
        }
      },
      threads);
}

ExactSum exact_dot(const float* a, const float* b, std::int64_t K, std::optional<float> bias) {
  thread_local DecodedRows da, db;
  da.decode(a, 1, K, bias ? &kOne : nullptr, 0);
  db.decode(b, 1, K, bias ? &*bias : nullptr, 0);
  ExactSum s;
  dot_element(da.row(0), db.row(0), a, b, K, bias ? &*bias : nullptr, s);
  return s;
}

}  // namespace ordo::oracle
