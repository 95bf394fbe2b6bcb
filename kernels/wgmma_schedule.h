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

}  // namespace ordo::kernels::detail
