// The Hopper wgmma tile's work schedule (kernels/wgmma_schedule.h) on the H200's 132 SMs, on the shapes
// docs/bf16-wgmma.md tabulates: which units are whole tiles, halves or quarters. The GPU test
// KernelProperties.WgmmaRowBitsDoNotChangeAcrossTheScheduleSwitchPoints checks that none of it changes bits.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/wgmma_schedule.h"

namespace ordo::kernels::detail {
namespace {

constexpr std::int64_t kSms = 132;

void expect_schedule(std::int64_t units_whole, std::int64_t max_pieces, std::int64_t full, std::int64_t units,
                     std::int64_t pieces) {
  const WgmmaSchedule s = wgmma_schedule(units_whole, kSms, max_pieces);
  EXPECT_EQ(s.full_units, full) << units_whole << " whole units";
  EXPECT_EQ(s.units, units) << units_whole << " whole units";
  EXPECT_EQ(s.pieces, pieces) << units_whole << " whole units";
}

TEST(WgmmaSchedule, SplitsOnlyALastWaveAtMostHalfFull) {
  expect_schedule(21, 4, 0, 84, 4);       // M = 64, N = 5376: one wave of 21 tiles, 84 quarters
  expect_schedule(21, 2, 0, 42, 2);       // the same grid in dW: halves at most
  expect_schedule(63, 4, 0, 126, 2);      // M = 384 (or M = 64, N = 16128): 126 halves
  expect_schedule(84, 4, 84, 84, 1);      // more than half the GPU: whole tiles
  expect_schedule(132, 4, 132, 132, 1);   // one full wave
  expect_schedule(147, 4, 132, 192, 4);   // a tail of 15 in quarters
  expect_schedule(168, 4, 132, 204, 2);   // M = 1024, N = 5376: a tail of 36 in halves
  expect_schedule(336, 4, 336, 336, 1);   // a tail of 72, more than half: whole
  expect_schedule(672, 4, 660, 708, 4);   // M = 4096, N = 5376: a tail of 12 in quarters
  expect_schedule(672, 2, 660, 684, 2);
  expect_schedule(0, 4, 0, 0, 1);         // no tile (validation never launches it)
}

// The forward's 128x168 units where the 256-column schedule fills its last wave badly (docs/bf16-wgmma.md).
TEST(WgmmaSchedule, TheForwardPicks168ColumnUnitsWhereTheyTakeAtLeastATenthLessTime) {
  EXPECT_EQ(wgmma_forward_unit_width(1024, 5376, kSms), 168);  // 1.5 tile times -> 2 waves of 168/256
  EXPECT_EQ(wgmma_forward_unit_width(2048, 5376, kSms), 168);  // 3 -> 4 x 168/256
  EXPECT_EQ(wgmma_forward_unit_width(512, 5376, kSms), 168);   // 84 tiles (one wave) -> 128 units
  EXPECT_EQ(wgmma_forward_unit_width(64, 5376, kSms), 256);    // quarters: a quarter of a tile time
  EXPECT_EQ(wgmma_forward_unit_width(768, 5376, kSms), 256);   // one full wave of 126 tiles
  EXPECT_EQ(wgmma_forward_unit_width(4096, 5376, kSms), 256);  // 5.25 either way
  EXPECT_EQ(wgmma_forward_unit_width(16384, 5376, kSms), 256);
  EXPECT_EQ(wgmma_forward_unit_width(1024, 16128, kSms), 256);  // 4 -> 3.94: under a tenth
  EXPECT_EQ(wgmma_forward_unit_width(64, 256, kSms), 256);
  EXPECT_DOUBLE_EQ(wgmma_schedule_tile_times(wgmma_schedule(168, kSms), kSms), 1.5);
  EXPECT_DOUBLE_EQ(wgmma_schedule_tile_times(wgmma_schedule(21, kSms), kSms), 0.25);
  EXPECT_DOUBLE_EQ(wgmma_schedule_tile_times(wgmma_schedule(336, kSms), kSms), 3.0);
}

// Every output belongs to exactly one unit: whole units plus pieces cover the tiles once.
TEST(WgmmaSchedule, UnitsCoverEveryTileOnce) {
  for (std::int64_t whole = 1; whole <= 2000; ++whole)
    for (const std::int64_t max_pieces : {2, 4}) {
      const WgmmaSchedule s = wgmma_schedule(whole, kSms, max_pieces);
      ASSERT_TRUE(s.pieces == 1 || s.pieces == 2 || s.pieces == 4);
      ASSERT_LE(s.pieces, max_pieces);
      ASSERT_EQ(s.full_units + (s.units - s.full_units) / s.pieces, whole);
      ASSERT_EQ((s.units - s.full_units) % s.pieces, 0);
      // Pieces are the last wave only, whole waves before it, and they fit in one wave of the GPU.
      if (s.pieces == 1) continue;
      ASSERT_LE(s.units - s.full_units, kSms);
      ASSERT_EQ(s.full_units % kSms, 0);
    }
}

// The forward's small-M unit width (M <= 64, all quarters): 48-column units where they outnumber the quarters
// and fit on the resident clusters of four at once (30 on the H200).
TEST(WgmmaSchedule, TheSmallMForwardPicks48ColumnUnitsWhereTheyAddBlocksInOneRound) {
  EXPECT_EQ(wgmma_small_m_units_48(5376), 112);
  EXPECT_EQ(wgmma_small_m_unit_width(5376, 30), 48);  // 112 units of 48 against 84 quarters
  EXPECT_EQ(wgmma_small_m_unit_width(4096, 30), 48);  // 88 (86 rounded up to whole clusters) against 64
  EXPECT_EQ(wgmma_small_m_unit_width(5376, 27), 64);  // 112 blocks do not fit on 108 SMs' clusters
  EXPECT_EQ(wgmma_small_m_unit_width(8448, 30), 64);  // 33 tiles: 176 units of 48 would take two rounds
  EXPECT_EQ(wgmma_small_m_units_48(64), 4);
  EXPECT_EQ(wgmma_small_m_unit_width(64, 30), 64);    // one tile: 4 quarters, 4 units of 48 (rounded), no gain
  EXPECT_EQ(wgmma_small_m_unit_width(1, 30), 64);
  EXPECT_EQ(wgmma_small_m_unit_width(300, 30), 64);   // 2 tiles: 8 quarters against 7 units of 48, rounded to 8
  EXPECT_EQ(wgmma_small_m_unit_width(700, 30), 48);   // 3 tiles: 12 quarters against 15 units of 48, rounded to 16
}

}  // namespace
}  // namespace ordo::kernels::detail
