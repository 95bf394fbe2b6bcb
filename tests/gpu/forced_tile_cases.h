#pragma once
// The random cases of the forced-tile GPU tests (LaunchOptions::fp32.tile): shared by the forward, dX and dW tests so that
// each draws its shapes the same way around the tile it forces.
#include <cstddef>
#include <vector>

#include "kernels/forward_internal.h"
#include "properties/forward_case.h"
#include "properties/value_families.h"

namespace ordo::testing {

// Case i of a forced tile: M and N up to two of its tiles plus two (partial tiles in both), a reduction across its
// ring of slabs with a tail, value family i (round robin), a fresh seed. The backward tests read (M, N, K) as
// their own axes (properties/backward_case.h). Draws from `rng` in the order M, N, K, seed.
inline properties::ForwardCase case_around_tile(properties::Rng& rng, const kernels::detail::ByShapeTile& tile, int i,
                                                const std::vector<properties::ValueFamily>& families) {
  properties::ForwardCase c;
  c.M = rng.in_range(1, 2 * tile.bm + 2);
  c.N = rng.in_range(1, 2 * tile.bn + 2);
  c.K = rng.in_range(1, tile.bk * (tile.stages + 2) + 5);
  c.family = families[static_cast<std::size_t>(i) % families.size()];
  c.seed = rng.next();
  return c;
}

}  // namespace ordo::testing
