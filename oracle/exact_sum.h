#pragma once
#include <mpfr.h>

#include <cstdint>

#include "oracle/dot_kernel.h"

namespace ordo::oracle {

// The exact value of one dot product (its bias one more term, 1 * bias) from the batched engine (exact_dots.h), with
// Superaccumulator's special-value and signed-zero policy: a two's-complement integer of n 64-bit limbs
// times 2^(position - 298), position >= 0 (2^-298 is the lowest bit a binary32 product can have). The
// position is the row pair's lowest product exponent, so a dot product of 32 terms holds only the few limbs
// its exponent span needs (windows + 2), added with one short carry chain per block of terms and read out
// from whole words: no clearing, normalising or scanning of a 640-bit accumulator per output.
class ExactSum {
 public:
  static constexpr int kLimbs = 10;  // |sum| < 2^587 units of 2^-298 for K < 2^32 (superaccumulator.h)
  static constexpr int kLsbExponent = -298;
  enum class Special : std::uint8_t { none, nan, pos_inf, neg_inf };

  void clear() {  // the value +0; the limbs themselves need no clearing
    n_ = 0;
    position_ = 0;
    special_ = Special::none;
    zero_is_negative_ = false;
  }
  // += the kernel's window sums, window 0 at bit `position` (the row pair's P, dot_kernel.h; the same for
  // every block of one dot product).
  void add_windows(const dot_kernel::WindowSums& sums, int position);
  // The policy's inputs that the integer does not hold: a NaN or Inf result, and the sign of an exact zero
  // (-0 only if every term was -0).
  void set_special(Special s) { special_ = s; }
  void set_zero_is_negative(bool negative) { zero_is_negative_ = negative; }

  bool is_zero() const;
  float to_float() const;            // round to nearest even, binary32 (subnormals, overflow to +-Inf)
  float to_bf16() const;             // round to nearest even, bfloat16 (returned as the float of equal value)
  double to_double() const;          // round to nearest even, binary64
  void to_mpfr(mpfr_ptr out) const;  // the exact value; out needs >= kLimbs * 64 + 64 bits

  // The three roundings at once, from one normalisation (what exact_dots writes per output).
  void round_all(float* f32, float* bf16, double* f64) const;

 private:
  // += r[0..n) (two's complement, sign-extended) * 2^(position_ - 298).
  void add_aligned(const std::uint64_t* r, int n);
  void trim();  // drops top limbs that only repeat the sign; n_ = 0 for zero

  std::uint64_t limb_[kLimbs] = {};  // limbs [0, n_) hold the value; n_ = 0 is zero
  int n_ = 0;
  int position_ = 0;
  Special special_ = Special::none;
  bool zero_is_negative_ = false;
};

}  // namespace ordo::oracle
