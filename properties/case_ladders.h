#pragma once
// The sizes `ordo cases` writes, and why each is there. Real kernels change their order at sizes: cuBLAS's
// heuristics pick another algorithm by M, N and K; split-K turns on above a K threshold (often 4096) at small
// batches; another tile or schedule takes the rows past 2048, 4096 or 8192 of a batch. A folder reaches those
// sizes at every level, and keeps its files small by keeping the other dimensions small.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "properties/value_families.h"

namespace ordo::properties {

// Row counts past which kernels commonly switch tile, tier or schedule (a 128- or 256-row tile grid reaching
// 16, 32 or 64 tiles, a wave of an SM count's worth of tiles). Anchors are placed just before, at and just
// after each in every batch that holds them.
inline constexpr std::int64_t kRowSwitches[] = {2048, 4096, 8192};
// The K past which split-K and long-reduction schedules commonly turn on.
inline constexpr std::int64_t kLongK = 4096;
// The N past which kernels commonly change tile width or split the columns.
inline constexpr std::int64_t kWideN = 4096;

// Where the anchor row (the row computed alone) is placed in a batch, and why ("first", "last", "random",
// "around 2048").
struct AnchorPlace {
  std::int64_t row = 0;
  std::string why;
};

// One batch of an invariance group: its rows, and the places of the anchor row in it (each a relation).
struct BatchRung {
  std::int64_t rows = 0;
  std::vector<AnchorPlace> places;
};

// The batches of a group of at most max_rows rows (>= 2): the small sizes where tile choice and split
// heuristics switch (one place each, first, last or random in turn), then the sizes past each of
// kRowSwitches (anchors around every switch the batch holds, its last row and a random row), then max_rows
// itself. `random` draws the random places.
std::vector<BatchRung> batch_ladder(int level, std::int64_t max_rows, Rng& random);

// The K of each value family's long-reduction cases, taken in turn: just below, at and just above kLongK,
// the K of the seed's projections (5376), and around 8192 (level 2 on to 16385).
std::vector<std::int64_t> long_k_ladder(int level);

// The output columns [begin, end) sharded off a group's W: one random shard; for a group wider than kWideN
// also the two halves of a two-way tensor-parallel split and a shard wider than kWideN at an offset (the whole
// and its shards then fall on different sides of a tile-width switch).
std::vector<std::pair<std::int64_t, std::int64_t>> shard_columns(std::int64_t N, Rng& random);

// A generated invariance group: N x K, batches up to M rows (capped by --max-batch).
struct GroupShape {
  std::int64_t M = 0, N = 0, K = 0;
};

// The groups of a folder written without --shape: a tall group (batches to 16384 rows), groups at the tile
// edges (to 1024 rows), a long-K group and a wide group; level 2 adds larger ones.
std::vector<GroupShape> default_groups(int level);

}  // namespace ordo::properties
