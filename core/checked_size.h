#pragma once
// Overflow-safe sizes: every problem constructor and loader computes element counts through these, so a
// file that claims M = 2^62 + 1 is refused with a status instead of wrapping into a small allocation.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace ordo {

// The largest element count ordo accepts for one tensor (2^40: 4 TiB of f32), far above any real case
// and far below the 64-bit limit, so that sums of a few such counts cannot overflow either.
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

// a * b when both are in [0, kMaxElements] and so is the product; nullopt otherwise.
inline std::optional<std::int64_t> checked_product(std::int64_t a, std::int64_t b) {
  if (a < 0 || b < 0 || a > kMaxElements || b > kMaxElements) return std::nullopt;
  if (a != 0 && b > kMaxElements / a) return std::nullopt;
  return a * b;
}

// Whether a vector of `size` elements holds exactly rows * cols.
inline bool holds_exactly(std::size_t size, std::int64_t rows, std::int64_t cols) {
  const std::optional<std::int64_t> n = checked_product(rows, cols);
  return n && static_cast<std::uint64_t>(*n) == size;
}

}  // namespace ordo
