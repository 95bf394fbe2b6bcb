#include "oracle/exact_sum.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "core/float_bits.h"

namespace ordo::oracle {
namespace {

__extension__ typedef __int128 Int128;

// |value| from its leading 1: what every rounding needs, found once per read-out.
struct Magnitude {
  bool negative = false;
  bool zero = false;
  int msb = 0;            // bit index of the leading 1 (units of 2^-298)
  std::uint64_t top = 0;  // bits msb .. msb-63, the leading 1 at bit 63 (zeros below bit 0)
  bool sticky = false;    // a 1 anywhere below those 64 bits
};

std::uint64_t sign_extension(std::uint64_t top_limb) { return 0 - (top_limb >> 63); }

// The magnitude's limbs m[0..n) of the two's-complement limbs[0..n); returns whether it is negative.
// -x = ~x + 1, and the +1 carries exactly through x's trailing zero limbs: so every limb is found
// independently (no serial carry chain), and branch-free (the sign of a random sum is unpredictable).
bool magnitude_limbs(const std::uint64_t* limb, int n, std::uint64_t* m) {
  const std::uint64_t negative = limb[n - 1] >> 63, flip = 0 - negative;
  std::uint32_t zero = 0;
  for (int i = 0; i < n; ++i) zero |= static_cast<std::uint32_t>(limb[i] == 0) << i;
  const int trailing_zero_limbs = std::countr_one(zero);
  for (int i = 0; i < n; ++i)
    m[i] = (limb[i] ^ flip) + (negative & static_cast<std::uint64_t>(i <= trailing_zero_limbs));
  return negative != 0;
}

// Branch-free too, apart from the loops over the n limbs (n is the same for every output of a row pair):
// the leading limb comes from a mask of the nonzero ones.
Magnitude magnitude_of(const std::uint64_t* limb, int n, int position) {
  Magnitude g;
  if (n == 0) {
    g.zero = true;
    return g;
  }
  std::uint64_t m[ExactSum::kLimbs + 1];  // m[0] = 0 below the value, so that m[t] always exists
  m[0] = 0;
  g.negative = magnitude_limbs(limb, n, m + 1);
  std::uint32_t nonzero = 0;
  for (int i = 0; i < n; ++i) nonzero |= static_cast<std::uint32_t>(m[i + 1] != 0) << i;
  if (nonzero == 0) {
    g.zero = true;
    return g;
  }
  const int t = 31 - std::countl_zero(nonzero);  // the leading limb, m[t + 1]
  const int lz = std::countl_zero(m[t + 1]);
  const std::uint64_t below = m[t];
  g.msb = position + 64 * t + 63 - lz;
  g.top = (m[t + 1] << lz) | ((below >> (63 - lz)) >> 1);  // (no shift by 64 when lz = 0)
  g.sticky = (below << lz) != 0 || (nonzero & ((1u << std::max(t - 1, 0)) - 1u)) != 0;
  return g;
}

// |value| rounded to nearest even with `precision` bits and no bit below 2^min_lsb_exponent (the format's
// subnormal lsb): the kept significand and the exponent of its lsb. Branch-free: the round bit of a random
// sum is a coin flip, which a branch would mispredict half the time.
struct Kept {
  std::uint64_t significand;  // <= 2^precision (the carry out of a round-up is kept, not renormalised)
  int lsb_exponent;
};

Kept round_magnitude(const Magnitude& g, int precision, int min_lsb_exponent) {
  const int msb_exponent = g.msb + ExactSum::kLsbExponent;
  const int q = std::max(msb_exponent - (precision - 1), min_lsb_exponent);
  const int kept_bits = msb_exponent - q + 1;  // <= precision < 64; < 0: below half the smallest step
  const int k = std::max(kept_bits, 0);
  const std::uint64_t valid = 0 - static_cast<std::uint64_t>(kept_bits >= 0);
  const std::uint64_t kept = ((g.top >> (63 - k)) >> 1) & valid;  // the top k bits (none for k = 0)
  const std::uint64_t rest = (g.top << k) & valid;                // the bits below, round bit first
  const std::uint64_t round_bit = rest >> 63;
  const std::uint64_t sticky = static_cast<std::uint64_t>((rest << 1) != 0) | static_cast<std::uint64_t>(g.sticky);
  return {kept + (round_bit & (sticky | kept)), q};  // ties to even: (kept & 1) is kept's lowest bit
}

// The IEEE bits of significand * 2^lsb_exponent: with a normal significand in [2^(p-1), 2^p] the biased
// exponent field is lsb_exponent + bias + p - 1 minus the hidden bit, i.e. (lsb_exponent + bias + p - 2)
// << (p - 1) plus the significand; a carry out (2^p) then lands in the exponent, and a subnormal (its lsb
// is the format's smallest) gets field 0. So one formula covers every case.
std::uint32_t float_bits(const Kept& r, int shift_to_binary32) {  // shift: 0 for binary32, 16 for bfloat16
  const std::int64_t bits = (std::int64_t{r.lsb_exponent - shift_to_binary32 + 149} << 23) +
                            static_cast<std::int64_t>(r.significand << shift_to_binary32);
  return static_cast<std::uint32_t>(std::min<std::int64_t>(bits, 0x7F800000));  // >= 2^128: +Inf
}

std::uint64_t double_bits(const Kept& r) {  // every sum is far inside binary64's normal range
  return (static_cast<std::uint64_t>(r.lsb_exponent + 1074) << 52) + r.significand;
}

}  // namespace

void ExactSum::trim() {
  while (n_ > 1 && limb_[n_ - 1] == sign_extension(limb_[n_ - 2])) --n_;
  if (n_ == 1 && limb_[0] == 0) n_ = 0;
}

void ExactSum::add_aligned(const std::uint64_t* r, int n) {
  // Both sign-extended to one limb above the longer: the sum and its sign fit there.
  const int words = std::min(std::max(n_, n) + 1, kLimbs);
  const std::uint64_t self_extension = n_ > 0 ? sign_extension(limb_[n_ - 1]) : 0,
                      r_extension = sign_extension(r[n - 1]);
  std::uint64_t carry = 0;
  for (int i = 0; i < words; ++i) {
    const std::uint64_t a = i < n_ ? limb_[i] : self_extension, b = i < n ? r[i] : r_extension;
    const std::uint64_t sum = a + b, out = sum + carry;
    carry = static_cast<std::uint64_t>(sum < b) | static_cast<std::uint64_t>(out < sum);
    limb_[i] = out;
  }
  n_ = words;
  trim();
}

void ExactSum::add_windows(const dot_kernel::WindowSums& sums, int position) {
  // One carry chain turns the windows into limbs; with n = windows + 2 limbs the sum (< 2^(64 w + 63))
  // and its sign fit, so no carry is lost. The first block of a row pair writes straight into the limbs
  // and sets the position; later blocks (K > kBlock) have the same position and are added limb by limb.
  assert(n_ == 0 || position == position_);
  const int w = sums.windows, n = w + 2;
  std::uint64_t buffer[dot_kernel::kMaxWindows + 2];
  std::uint64_t* r = n_ == 0 ? limb_ : buffer;
  Int128 acc = Int128{sums.low[0]} + (Int128{sums.mid[0]} << 32);
  r[0] = static_cast<std::uint64_t>(acc);
  for (int j = 1; j < w; ++j) {
    acc = (acc >> 64) + sums.low[j] + (Int128{sums.mid[j]} << 32) + sums.high[j - 1];
    r[j] = static_cast<std::uint64_t>(acc);
  }
  acc = (acc >> 64) + sums.high[w - 1];
  r[w] = static_cast<std::uint64_t>(acc);
  r[w + 1] = static_cast<std::uint64_t>(acc >> 64);  // the sign
  if (r == limb_) {
    n_ = n;
    position_ = position;
  } else {
    add_aligned(r, n);
  }
}

bool ExactSum::is_zero() const {
  for (int i = 0; i < n_; ++i)
    if (limb_[i] != 0) return false;
  return true;
}

float ExactSum::to_float() const {
  float f32;
  round_all(&f32, nullptr, nullptr);
  return f32;
}

float ExactSum::to_bf16() const {
  float bf16;
  round_all(nullptr, &bf16, nullptr);
  return bf16;
}

double ExactSum::to_double() const {
  double f64;
  round_all(nullptr, nullptr, &f64);
  return f64;
}

void ExactSum::round_all(float* f32, float* bf16, double* f64) const {
  if (special_ != Special::none) {
    const float f = special_ == Special::nan ? canonical_nan() : special_ == Special::pos_inf ? INFINITY : -INFINITY;
    if (f32) *f32 = f;
    if (bf16) *bf16 = f;
    if (f64) *f64 = special_ == Special::nan ? static_cast<double>(NAN) : static_cast<double>(f);
    return;
  }
  const Magnitude g = magnitude_of(limb_, n_, position_);
  if (g.zero) {
    if (f32) *f32 = zero_is_negative_ ? -0.0f : 0.0f;
    if (bf16) *bf16 = zero_is_negative_ ? -0.0f : 0.0f;
    if (f64) *f64 = zero_is_negative_ ? -0.0 : 0.0;
    return;
  }
  const std::uint32_t sign = static_cast<std::uint32_t>(g.negative) << 31;
  if (f32) *f32 = float_of(sign | float_bits(round_magnitude(g, 24, -149), 0));
  if (bf16) *bf16 = float_of(sign | float_bits(round_magnitude(g, 8, -133), 16));
  if (f64) *f64 = std::bit_cast<double>((std::uint64_t{sign} << 32) | double_bits(round_magnitude(g, 53, -1074)));
}

void ExactSum::to_mpfr(mpfr_ptr out) const {
  if (special_ == Special::nan) return mpfr_set_nan(out);
  if (special_ != Special::none) return mpfr_set_inf(out, special_ == Special::pos_inf ? 1 : -1);
  mpfr_set_zero(out, zero_is_negative_ ? -1 : 1);
  if (is_zero()) return;
  std::uint64_t m[kLimbs];
  const bool negative = magnitude_limbs(limb_, n_, m);
  mpfr_t term;
  mpfr_init2(term, 64);
  for (int i = 0; i < n_; ++i) {
    if (m[i] == 0) continue;
    mpfr_set_ui_2exp(term, m[i], 64 * i + position_ + kLsbExponent, MPFR_RNDN);  // exact: a 64-bit integer
    [[maybe_unused]] const int t = mpfr_add(out, out, term, MPFR_RNDN);
    assert(t == 0);
  }
  mpfr_clear(term);
  if (negative) mpfr_neg(out, out, MPFR_RNDN);
}

}  // namespace ordo::oracle
