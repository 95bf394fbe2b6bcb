#include "properties/case_ladders.h"

#include <algorithm>
#include <iterator>

namespace ordo::properties {
namespace {

bool holds_row(const std::vector<AnchorPlace>& places, std::int64_t row) {
  return std::any_of(places.begin(), places.end(), [row](const AnchorPlace& p) { return p.row == row; });
}

// A batch past the first row switch: the anchor just before, at and just after every switch it holds (a
// kernel that changes tile at row 2048 gives rows 2047 and 2048 different orders), its last row, and one
// random row.
std::vector<AnchorPlace> places_past_switches(std::int64_t rows, Rng& random) {
  std::vector<AnchorPlace> places;
  for (const std::int64_t at : kRowSwitches)
    for (const std::int64_t row : {at - 1, at, at + 1})
      if (row < rows) places.push_back({row, "around " + std::to_string(at)});
  if (!holds_row(places, rows - 1)) places.push_back({rows - 1, "last"});
  const auto row = static_cast<std::int64_t>(random.next() % static_cast<std::uint64_t>(rows));
  if (!holds_row(places, row)) places.push_back({row, "random"});
  return places;
}

}  // namespace

std::vector<BatchRung> batch_ladder(int level, std::int64_t max_rows, Rng& random) {
  // Below the first row switch: sizes where tile choice and split heuristics switch by M (a tile of 8, 16, 64 or
  // 128 rows filling, and one row over it); level 2 has more of them.
  const std::vector<std::int64_t> small =
      level >= 2 ? std::vector<std::int64_t>{2, 3, 7, 8, 16, 17, 31, 64, 65, 127, 128, 129, 256, 257, 512, 1000, 1024}
                 : std::vector<std::int64_t>{2, 3, 8, 17, 64, 128, 129, 256, 1024};
  // At and one row past each row switch, up to the 16384 tokens of the seed's largest batches; level 2 also
  // batches between the switches, which no power-of-two heuristic rounds to.
  const std::vector<std::int64_t> large =
      level >= 2 ? std::vector<std::int64_t>{2048, 2049, 3000, 4096, 4097, 6000, 8192, 8193, 12288, 16384}
                 : std::vector<std::int64_t>{2048, 2049, 4096, 4097, 8192, 8193, 16384};
  std::vector<std::int64_t> sizes;
  for (const auto* list : {&small, &large})
    std::copy_if(list->begin(), list->end(), std::back_inserter(sizes),
                 [max_rows](std::int64_t s) { return s <= max_rows; });
  if (sizes.empty() || sizes.back() != max_rows) sizes.push_back(max_rows);
  std::vector<BatchRung> ladder;
  const char* small_places[] = {"first", "last", "random"};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t rows = sizes[i];
    if (rows >= kRowSwitches[0]) {
      ladder.push_back({rows, places_past_switches(rows, random)});
      continue;
    }
    const std::string why = small_places[i % 3];
    const std::int64_t row = why == "first" ? 0
                             : why == "last"
                                 ? rows - 1
                                 : static_cast<std::int64_t>(random.next() % static_cast<std::uint64_t>(rows));
    ladder.push_back({rows, {{row, why}}});
  }
  return ladder;
}

std::vector<std::int64_t> long_k_ladder(int level) {
  if (level >= 2) return {4095, 4096, 4097, 5376, 6144, 8192, 8193, 12288, 16384, 16385};
  return {4095, 4096, 4097, 5376, 8192, 8193};
}

std::vector<std::pair<std::int64_t, std::int64_t>> shard_columns(std::int64_t N, Rng& random) {
  std::vector<std::pair<std::int64_t, std::int64_t>> shards;
  if (N < 2) return shards;
  const auto n0 = static_cast<std::int64_t>(random.next() % static_cast<std::uint64_t>(N - 1));
  const std::int64_t n1 = n0 + 1 + static_cast<std::int64_t>(random.next() % static_cast<std::uint64_t>(N - n0));
  shards.push_back({n0, n1});
  if (N > kWideN) {
    shards.push_back({0, N / 2});
    shards.push_back({N / 2, N});
    shards.push_back({std::min<std::int64_t>(64, N - kWideN - 1), N});
  }
  return shards;
}

std::vector<GroupShape> default_groups(int level) {
  std::vector<GroupShape> groups{
      {16384, 16, 64},   // tall: every batch size and anchor row past the row switches, at a small N x K
      {1024, 96, 129},   // tile edges: K one past a 128-step, N a multiple of 32 but not of 64
      {1024, 33, 1024},  // one column past a 32-wide tile, a K of many 64-steps
      {1024, 130, 17},   // short K: one step past a 16-step, two columns past a 128-wide tile
      {256, 16, 5376},   // the seed's K, past kLongK: a split-K taken at small batches only breaks invariance here
      {64, 8320, 32},    // N past 8192: a tile width chosen by N; its halves and a shard wider than kWideN
  };
  if (level >= 2) {
    groups.push_back({1024, 1024, 2048});  // many tiles in both directions at a K of a few thousand
    groups.push_back({128, 12, 8192});     // K of 8192 at batches of up to 128 rows
  }
  return groups;
}

}  // namespace ordo::properties
