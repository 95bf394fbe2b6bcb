#pragma once
// A model of the clocks one reduction step of an FP32 SIMT tile takes on a shape, on the SM that does most
// of the work: the by-shape dW variant chooses its tile by it (choose_dw_by_shape_tile), and the tile sweep
// (bench/tile_sweep.cu) prints its prediction next to each measured time. Every output is one whole FMA chain
// under the FP32 contracts, so the model moves only the speed, never a bit.
//
// Three limits per step (docs/fp32-kernels.md, "What a tile costs"):
//   * delivery: an SM returns at most 32 registers per clock from shared memory (one 32-bit lane of a warp
//     per clock and lane, whatever the addresses); a thread owning TM x TN chains reads TM + TN operands per
//     step, so its SM needs lanes x (TM + TN) / 32 clocks;
//   * issue: a warp issues TM x TN FMAs, about (TM + TN) / 4 loads and one more instruction per step, and the
//     compiled loops sustained about half an instruction per clock and scheduler (kIssuePerClock) whatever the
//     tile (one warp per scheduler or several): 16-chain threads alone on their scheduler took 36-41 clocks
//     for 19 instructions, the 128x128 tile reaches 54-66% of the FMA peak. Measured without global memory
//     (bench/issue_rate.cu), the loop of a lone 4 x 4 warp issues 0.73 per clock, and from two such warps per
//     block the SM's shared-memory returns (34-38 registers per clock) bind; the fitted constants stand;
//   * latency: a chain's FMA waits 4.14 clocks for the one before (bench/physical_floors.cu), a little more
//     in a real loop.
// When the grid fits on the GPU at once, its most loaded SM sets the time (the ceiling of blocks per SM); with
// several waves the block scheduler evens them out (the mean). Measured on the H200 (tile sweeps of 9 to 15
// tiles on the seed's forward, dX and dW shapes, evidence/h200-91d06eb-dw-tiles/): the predicted time of
// every tile that is not latency-bound lies within -25% .. +40% of the measured one.
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
  constexpr double kRegistersPerClock = 32, kSchedulers = 4, kIssuePerClock = 0.5, kChainStep = 4.14 * 1.2;
  TileCost c;
  const double sms = std::max(1, sm_count);
  c.blocks = ceil_div(rows, t.bm) * ceil_div(cols, t.bn);
  const int resident = t.resident > 0 ? t.resident : std::min(32, 2048 / t.threads);
  const double per_sm = c.blocks <= static_cast<std::int64_t>(sms) * resident
                            ? static_cast<double>(ceil_div(c.blocks, static_cast<std::int64_t>(sms)))
                            : static_cast<double>(c.blocks) / sms;
  const double lanes = per_sm * t.threads;
  c.delivery = lanes * (t.tm + t.tn) / kRegistersPerClock;
  const double warps_per_scheduler = std::max(1.0, std::ceil(lanes / 32 / kSchedulers - 1e-9));
  c.issue = warps_per_scheduler * (static_cast<double>(t.tm) * t.tn + (t.tm + t.tn) / 4.0 + 1) / kIssuePerClock;
  c.per_step = std::max({c.delivery, c.issue, kChainStep});
  return c;
}

// The index of the tile with the fewest clocks per step on [rows, cols]. Among tiles within 2% of the
// cheapest, the one with the most threads per block: at equal modelled cost the larger blocks measured up to
// 15% faster (one loader and one barrier for more chains; sweep of dW [32, 5376] and [5376, 32]).
inline int cheapest_by_shape_tile(const std::vector<ByShapeTile>& tiles, std::int64_t rows, std::int64_t cols,
                                  int sm_count) {
  double cheapest = 0;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const double step = by_shape_tile_cost(tiles[i], rows, cols, sm_count).per_step;
    if (i == 0 || step < cheapest) cheapest = step;
  }
  int best = -1;
  for (int i = 0; i < static_cast<int>(tiles.size()); ++i) {
    const ByShapeTile& t = tiles[static_cast<std::size_t>(i)];
    if (by_shape_tile_cost(t, rows, cols, sm_count).per_step > cheapest * 1.02) continue;
    if (best < 0 || t.threads > tiles[static_cast<std::size_t>(best)].threads) best = i;
  }
  return best;
}

}  // namespace ordo::kernels::detail
