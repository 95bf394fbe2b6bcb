#pragma once
// A model of the clocks one reduction step of an FP32 SIMT tile takes on a shape, on the SM that does most
// of the work: the by-shape dW variant chooses its tile by it (choose_dw_by_shape_tile), and the tile sweep
// prints it next to each measured time. Every output is one whole FMA chain under the FP32 contracts, so the
// model moves only the speed, never a bit.
//
// Three limits, per step (docs/fp32-kernels.md, "Operand delivery"):
//   * delivery: an SM returns at most 32 registers per clock from shared memory (one 32-bit lane of a warp
//     per clock and lane); a thread owning TM x TN chains reads TM + TN operands per step, so its SM needs
//     lanes x (TM + TN) / 32 clocks. Fitted on the H200 against the tile sweep of every tile on the seed's
//     shapes (reports/evidence/h200-7fbabab-fp32-tiles/sweep-candidates/): within -25% .. +35% of the
//     measured time for every tile that shared memory limits.
//   * issue: a scheduler issues one instruction per clock; a warp issues TM x TN FMAs, about (TM + TN) / 4
//     loads and one more per step; with one warp or fewer per scheduler and 16 chains or more per thread the
//     loads' latency is not hidden and the measured steps were about 1.3 times longer (the 4x4 tiles).
//   * latency: a chain's FMA waits for the one before, 4.14 clocks measured (bench/physical_floors.cu), and
//     a little more in a real loop.
// When the grid fits on the GPU at once, its most loaded SM sets the time (ceil of blocks per SM); with
// several waves the block scheduler evens them out (the mean).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/forward_internal.h"  // ByShapeTile, ceil_div

namespace ordo::kernels::detail {

struct TileCost {
  double delivery = 0;  // clocks per step of shared-memory returns
  double issue = 0;     // clocks per step of the busiest scheduler
  double per_step = 0;  // the largest of the limits
  std::int64_t blocks = 0;
};

inline TileCost by_shape_tile_cost(const ByShapeTile& t, std::int64_t rows, std::int64_t cols, int sm_count) {
  constexpr double kRegistersPerClock = 32, kSchedulers = 4, kChainStep = 4.14 * 1.2, kHiddenLoadsMiss = 1.3;
  TileCost c;
  const double sms = std::max(1, sm_count);
  c.blocks = ceil_div(rows, t.bm) * ceil_div(cols, t.bn);
  const int resident = t.resident > 0 ? t.resident : std::min(32, 2048 / t.threads);
  const double per_sm = c.blocks <= static_cast<std::int64_t>(sms) * resident
                            ? static_cast<double>(ceil_div(c.blocks, static_cast<std::int64_t>(sms)))
                            : static_cast<double>(c.blocks) / sms;
  const double lanes = per_sm * t.threads;
  c.delivery = lanes * (t.tm + t.tn) / kRegistersPerClock;
  const double warps_per_scheduler = lanes / 32 / kSchedulers;
  const double chains = static_cast<double>(t.tm) * t.tn;
  c.issue = std::max(1.0, std::ceil(warps_per_scheduler - 1e-9)) * (chains + (t.tm + t.tn) / 4.0 + 1);
  if (warps_per_scheduler <= 1 && chains >= 16) c.issue *= kHiddenLoadsMiss;
  c.per_step = std::max({c.delivery, c.issue, kChainStep});
  return c;
}

// The index of the tile with the fewest clocks per step on [rows, cols] (the first of equals), among those
// the rule may choose.
inline int cheapest_by_shape_tile(const std::vector<ByShapeTile>& tiles, std::int64_t rows, std::int64_t cols,
                                  int sm_count) {
  int best = -1;
  double best_step = 0;
  for (int i = 0; i < static_cast<int>(tiles.size()); ++i) {
    const ByShapeTile& t = tiles[static_cast<std::size_t>(i)];
    if (t.sweep_only) continue;
    const double step = by_shape_tile_cost(t, rows, cols, sm_count).per_step;
    if (best < 0 || step < best_step) best = i, best_step = step;
  }
  return best;
}

}  // namespace ordo::kernels::detail
