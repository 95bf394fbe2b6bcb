#pragma once
#include <cstdint>

#include <mpfr.h>

namespace ordo::oracle {

// The exact sum of products of binary32 values (bfloat16 values are a subset) and of binary32
// addends, held as a fixed-point integer in units of 2^-298, the lowest bit a product of two binary32
// subnormals can have (docs/numerics.md §3). A product is a 48-bit integer times 2^(e_a + e_b), so adding it
// touches three 32-bit chunks; chunks are 64-bit with ample headroom and carries are propagated
// only every 2^29 additions (the "small superaccumulator" of Neal, arXiv 1505.05571, adapted to
// products). Nothing is ever rounded until a result is read out, and each read-out rounds once.
//
// Special values and zeros (the policy, shared with the MPFR engine):
//   - NaN if any operand is NaN, a product is Inf * 0, or +Inf and -Inf terms both occur;
//   - otherwise +-Inf if Inf terms of one sign occur;
//   - an exact zero is -0 only if every term (every product and addend) is -0, else +0
//     (what IEEE round-to-nearest addition of the terms in any order gives).
// Finite terms whose exact sum is >= 2^128 in magnitude read out as +-Inf in binary32 and bfloat16.
class Superaccumulator {
 public:
  static constexpr int kChunkBits = 32;
  static constexpr int kChunks = 20;          // 640 bits; 554 + 32 (K < 2^32) + sign are needed
  static constexpr int kLsbExponent = -298;   // the value of bit 0 of chunk 0

  Superaccumulator() { clear(); }
  void clear();
  void add_product(float a, float b);  // exact a * b
  // exact sum_k a[k] * b[k]: the fast path (the batched engine's kernel, exact_dots.h), for any K
  void add_products(const float* a, const float* b, std::int64_t K);
  void add(float v);                   // exact v

  float to_float() const;   // round to nearest even, binary32 (subnormals, overflow to +-Inf)
  float to_bf16() const;    // round to nearest even, bfloat16 (returned as the float of equal value)
  double to_double() const; // round to nearest even, binary64 (every finite sum is in its normal range)
  void to_mpfr(mpfr_ptr out) const;  // the exact value; out needs >= kChunks * kChunkBits + 64 bits

 private:
  struct Rounded;
  void add_magnitude(bool negative, std::uint64_t significand, int lsb_index);  // significand < 2^64
  void normalize();
  Rounded round(int precision, int min_lsb_exponent) const;

  std::int64_t chunk_[kChunks];
  std::uint32_t pending_ = 0;  // additions since the last carry propagation
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  bool any_term_ = false, all_negative_zero_ = true;
};

}  // namespace ordo::oracle
