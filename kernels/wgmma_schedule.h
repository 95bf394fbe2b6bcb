#pragma once
// The work schedule of the Hopper wgmma tile, host code without CUDA types (so that host tests check it
// too): which units of a persistent grid are whole 128x256 tiles and which are halves or quarters.
#include <cstdint>

namespace ordo::kernels::detail {

// How the wgmma tile (kernels/bf16_wgmma_128x256x64.cu) schedules `units_whole` units of whole
// 128x256 tiles on `clusters` resident clusters: units below full_units are whole tiles, the rest (units -
// full_units of them) pieces of 256 / pieces columns, `pieces` per tile: 128x128 halves (m64n128k16)
// when the last wave is at most half full, 128x64 quarters (m64n64k16; forward and dX) when it is at
// most a quarter full. That includes a grid of one partial wave (M = 64, N = 5376: 21 tiles run as 84
// quarters on 132 SMs): the tail then costs half or a quarter of a wave of whole tiles. Every output is one block's
// chain over all of K in every case; the split changes which block computes it, never its bits.
struct WgmmaSchedule {
  std::int64_t full_units, units, pieces;
};
// max_pieces: 4 (the forward and dX) or 2 (dW, halves only). units_whole >= 0, clusters >= 1.
inline WgmmaSchedule wgmma_schedule(std::int64_t units_whole, std::int64_t clusters, std::int64_t max_pieces = 4) {
  const std::int64_t tail = units_whole % clusters;
  if (tail == 0 || 2 * tail > clusters) return {units_whole, units_whole, 1};
  const std::int64_t pieces = max_pieces >= 4 && 4 * tail <= clusters ? 4 : 2;
  return {units_whole - tail, units_whole - tail + pieces * tail, pieces};
}

// The forward's other unit width: 168 columns (m64n168k16), for grids whose 256-column tiles fill their
// last wave badly and that no split fixes. M = 1024 with N = 5376 is 168 tiles on 132 SMs: 132 whole and 72
// halves take 1.5 tile times; 8 x 32 units of 128x168 take two waves of 168/256 of a tile, 1.31 tile times
// (and 5376 = 32 x 168). A unit's time is taken as proportional to its width (the tile is tensor-bound at
// these sizes), and 168 is chosen where that model predicts at least 10% less time than the 256-column
// schedule, so that the narrower unit's extra X traffic per output cannot eat the gain.
constexpr std::int64_t kWgmmaUnit168 = 168;

// The time of a schedule on `clusters` clusters, in whole-tile times: rounds of whole tiles, plus one round
// of pieces (each a 1 / pieces of a tile) where the last wave is split.
inline double wgmma_schedule_tile_times(const WgmmaSchedule& s, std::int64_t clusters) {
  if (s.pieces == 1) return static_cast<double>((s.units + clusters - 1) / clusters);
  return static_cast<double>(s.full_units / clusters) + 1.0 / static_cast<double>(s.pieces);
}

// The forward's unit width for an M x N output on `clusters` single-block clusters: 256 (then
// wgmma_schedule with quarters says which units are whole) or kWgmmaUnit168 (every unit whole).
inline std::int64_t wgmma_forward_unit_width(std::int64_t M, std::int64_t N, std::int64_t clusters) {
  const std::int64_t tiles_m = (M + 127) / 128;
  const double wide = wgmma_schedule_tile_times(wgmma_schedule(tiles_m * ((N + 255) / 256), clusters), clusters);
  const std::int64_t units_168 = tiles_m * ((N + kWgmmaUnit168 - 1) / kWgmmaUnit168);
  const double narrow = static_cast<double>((units_168 + clusters - 1) / clusters) * kWgmmaUnit168 / 256.0;
  return narrow < 0.9 * wide ? kWgmmaUnit168 : 256;
}

// The forward's small-M unit width (M <= 64, a grid that is all 64-column quarters; kernels/bf16_wgmma_128x256x64.cu
// runs it in clusters of four blocks sharing the A tile): 48 columns where ceil(N / 48) units, rounded up to whole
// clusters, fit on the `clusters_of_four` resident clusters at once and outnumber the quarters, else the 64-column
// quarters. M = 64 with N = 5376 is 112 units of 48 against 84 quarters on 132 SMs, which measured 8-12% faster
// on the H200 (evidence/h200-5d57533-small-m-48/): each block streams its own columns of W, and more blocks
// stream more of it at once.
constexpr std::int64_t kWgmmaSmallMUnit48 = 48;
inline std::int64_t wgmma_small_m_units_48(std::int64_t N) { return ((N + 47) / 48 + 3) / 4 * 4; }
inline std::int64_t wgmma_small_m_unit_width(std::int64_t N, std::int64_t clusters_of_four) {
  const std::int64_t quarters = 4 * ((N + 255) / 256);
  const std::int64_t units_48 = wgmma_small_m_units_48(N);
  return units_48 <= 4 * clusters_of_four && units_48 > quarters ? kWgmmaSmallMUnit48 : 64;
}

}  // namespace ordo::kernels::detail
