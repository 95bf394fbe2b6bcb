#pragma once
#include <cstdint>
#include <vector>

#include "oracle/dot_kernel.h"

// The batched engine's fast path (exact_dots.h), internal to the oracle: eight dot products at once, one
// per 64-bit SIMD lane, x[m] against eight rows of w. Each lane accumulates its own product's windows
// (dot_kernel.h), so nothing is reduced across lanes, and the carrying, the sign, the leading bit and
// the three roundings are done in the lanes too: the per-output cost that dominates at K = 32 (a scalar
// carry chain and read-out) is shared by eight outputs. AVX-512 only; exact_dots falls back to the
// per-output path elsewhere.
namespace ordo::oracle::dot_kernel {

inline constexpr int kGroup = 8;  // dot products per lane group

// Rows of w decoded (DecodedRows) and interleaved in groups of eight, term by term: lane i of term k of
// group g at [(g * length + k) * 8 + i]. A last group with fewer rows is padded with zero rows.
class DecodedGroups {
 public:
  void build(const DecodedRows& rows, std::int64_t length);  // length: the rows' terms (K, + 1 with a bias)
  std::int64_t groups() const { return static_cast<std::int64_t>(info_.size()); }

  struct Group {
    const std::int32_t* significand;  // [length][8]
    const std::uint8_t* exponent;     // [length][8]
    std::int64_t length;
    const std::int64_t* min_exponent;  // [8]
    int max_span;                      // over the lanes whose row is not special
    std::uint8_t special;              // lanes whose row has a NaN or Inf
  };
  Group group(std::int64_t g) const;

 private:
  struct Info {
    std::int64_t min_exponent[kGroup];
    int max_span;
    std::uint8_t special;
  };
  std::int64_t length_ = 0;
  std::vector<std::int32_t> significand_;
  std::vector<std::uint8_t> exponent_;
  std::vector<Info> info_;
};

// The three correctly rounded results of each lane (IEEE bits), and the lanes whose exact sum is zero
// (their sign needs the terms' classes) or that were not computed (special rows): those the caller
// finishes on the per-output path.
struct LaneResults {
  std::uint32_t f32[kGroup], bf16[kGroup];
  std::uint64_t f64[kGroup];
  std::uint8_t unfinished;
};

bool have_lane_kernel();  // AVX-512F and AVX-512CD (for the leading-zero count)
// x: one decoded row (not special) of the same length as the group's rows.
void dot_lanes(const DecodedRow& x, const DecodedGroups::Group& w, LaneResults& out);

}  // namespace ordo::oracle::dot_kernel
