#include "oracle/superaccumulator.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

#include "core/float_bits.h"
#include "oracle/dot_kernel.h"

namespace ordo::oracle {
namespace {

constexpr std::uint32_t kNormalizeEvery = 1u << 29;  // each addition moves a chunk by < 2^33

struct Decoded {
  bool negative;
  std::uint32_t significand;  // 24 bits with the hidden bit, or the subnormal fraction
  int lsb_exponent;           // the exponent of the significand's bit 0
};

Decoded decode(float f) {
  const std::uint32_t u = bits_of(f);
  const std::uint32_t exp = (u >> 23) & 0xFF, frac = u & 0x7FFFFF;
  if (exp == 0) return {(u >> 31) != 0, frac, -149};
  return {(u >> 31) != 0, frac | 0x800000u, static_cast<int>(exp) - 150};
}

}  // namespace

struct Superaccumulator::Rounded {
  bool negative = false;
  bool zero = false;
  std::uint64_t significand = 0;  // <= precision bits
  int lsb_exponent = 0;
};

void Superaccumulator::clear() {
  std::memset(chunk_, 0, sizeof chunk_);
  pending_ = 0;
  nan_ = pos_inf_ = neg_inf_ = false;
  any_term_ = false;
  all_negative_zero_ = true;
}

void Superaccumulator::add_magnitude(bool negative, std::uint64_t significand, int lsb_index) {
  assert(lsb_index >= 0);
  const int c = lsb_index / kChunkBits, s = lsb_index % kChunkBits;
  // significand << s has up to 95 bits: shift its two 32-bit halves separately (each fits in 64).
  const std::uint64_t low = (significand & 0xFFFFFFFFu) << s;  // <= 63 bits, weight 2^0
  const std::uint64_t high = (significand >> 32) << s;         // <= 63 bits, weight 2^32
  const auto lo = static_cast<std::int64_t>(low & 0xFFFFFFFFu);
  const auto mid = static_cast<std::int64_t>((low >> 32) + (high & 0xFFFFFFFFu));  // < 2^33
  const auto hi = static_cast<std::int64_t>(high >> 32);                           // < 2^31
  if (negative) {
    chunk_[c] -= lo;
    chunk_[c + 1] -= mid;
    chunk_[c + 2] -= hi;
  } else {
    chunk_[c] += lo;
    chunk_[c + 1] += mid;
    chunk_[c + 2] += hi;
  }
  if (++pending_ == kNormalizeEvery) normalize();
}

void Superaccumulator::add_product(float a, float b) {
  any_term_ = true;
  if (std::isnan(a) || std::isnan(b)) {
    nan_ = true;
    return;
  }
  const bool negative = std::signbit(a) != std::signbit(b);
  if (std::isinf(a) || std::isinf(b)) {
    if (a == 0 || b == 0)
      nan_ = true;  // Inf * 0
    else
      (negative ? neg_inf_ : pos_inf_) = true;
    return;
  }
  if (a == 0 || b == 0) {
    all_negative_zero_ = all_negative_zero_ && negative;
    return;
  }
  all_negative_zero_ = false;
  const Decoded da = decode(a), db = decode(b);
  add_magnitude(negative, static_cast<std::uint64_t>(da.significand) * db.significand,
                da.lsb_exponent + db.lsb_exponent - kLsbExponent);
}

void Superaccumulator::add_products(const float* a, const float* b, std::int64_t K) {
  if (K <= 0) return;
  // The batched engine's kernel (dot_kernel.h): both vectors decoded, the products summed exactly in
  // 64-bit windows, then each window's three partial sums added here (3 additions per window per block
  // of 2^15 terms, instead of 3 per term).
  thread_local dot_kernel::DecodedRows da, db;
  da.decode(a, 1, K);
  db.decode(b, 1, K);
  const dot_kernel::DecodedRow ra = da.row(0), rb = db.row(0);
  if (ra.special || rb.special) {  // NaN or Inf: the rare per-term path keeps the policy in one place
    for (std::int64_t k = 0; k < K; ++k) add_product(a[k], b[k]);
    return;
  }
  any_term_ = true;
  all_negative_zero_ = all_negative_zero_ && dot_kernel::all_products_negative_zero(a, b, K);
  const int position = ra.min_exponent + rb.min_exponent;
  auto add_signed = [&](std::int64_t v, int lsb_index) {
    const auto u = static_cast<std::uint64_t>(v);
    if (v != 0) add_magnitude(v < 0, v < 0 ? 0 - u : u, lsb_index);
  };
  dot_kernel::WindowSums sums;
  for (std::int64_t begin = 0; begin < ra.padded_length; begin += dot_kernel::kBlock) {
    dot_kernel::dot_windows(ra, rb, begin, std::min(ra.padded_length, begin + dot_kernel::kBlock), sums);
    for (int j = 0; j < sums.windows; ++j) {
      add_signed(sums.low[j], position + 64 * j);
      add_signed(sums.mid[j], position + 64 * j + 32);
      add_signed(sums.high[j], position + 64 * j + 64);
    }
  }
}

void Superaccumulator::add(float v) {
  any_term_ = true;
  if (std::isnan(v)) {
    nan_ = true;
    return;
  }
  if (std::isinf(v)) {
    (v < 0 ? neg_inf_ : pos_inf_) = true;
    return;
  }
  if (v == 0) {
    all_negative_zero_ = all_negative_zero_ && std::signbit(v);
    return;
  }
  all_negative_zero_ = false;
  const Decoded d = decode(v);
  add_magnitude(d.negative, d.significand, d.lsb_exponent - kLsbExponent);
}

void Superaccumulator::normalize() {
  // Afterwards chunks 0..n-2 lie in [0, 2^32) and the top chunk carries the sign.
  for (int i = 0; i + 1 < kChunks; ++i) {
    const std::int64_t carry = chunk_[i] >> kChunkBits;  // arithmetic shift: floor division
    chunk_[i] -= carry * (std::int64_t(1) << kChunkBits);
    chunk_[i + 1] += carry;
  }
  pending_ = 0;
}

Superaccumulator::Rounded Superaccumulator::round(int precision, int min_lsb_exponent) const {
  Superaccumulator n = *this;
  n.normalize();
  Rounded r;
  r.negative = n.chunk_[kChunks - 1] < 0;
  if (r.negative) {  // magnitude = -value, renormalised
    for (std::int64_t& c : n.chunk_) c = -c;
    n.normalize();
  }
  std::uint32_t digit[kChunks];
  for (int i = 0; i < kChunks; ++i) digit[i] = static_cast<std::uint32_t>(n.chunk_[i]);
  int top = kChunks - 1;
  while (top >= 0 && digit[top] == 0) --top;
  if (top < 0) {
    r.zero = true;
    return r;
  }
  const int msb = top * kChunkBits + 31 - std::countl_zero(digit[top]);
  auto bit = [&](int i) { return i >= 0 && ((digit[i / kChunkBits] >> (i % kChunkBits)) & 1u) != 0; };
  // The kept bits are [q, msb]; q is raised to the format's smallest lsb for subnormal results.
  const int q = std::max(msb - (precision - 1), min_lsb_exponent - kLsbExponent);
  std::uint64_t kept = 0;
  for (int i = msb; i >= q; --i) kept = (kept << 1) | (bit(i) ? 1u : 0u);
  const bool round_bit = bit(q - 1);
  bool sticky = false;
  for (int i = q - 2; i >= 0 && !sticky; --i) {
    if (i % kChunkBits == kChunkBits - 1 && digit[i / kChunkBits] == 0) {
      i -= kChunkBits - 1;  // skip a whole zero chunk
      continue;
    }
    sticky = bit(i);
  }
  if (round_bit && (sticky || (kept & 1u))) ++kept;  // to nearest, ties to even
  int lsb = q;
  if (kept >> precision) {  // carried out of the precision: 1.000... x 2^(e+1)
    kept >>= 1;
    ++lsb;
  }
  r.significand = kept;
  r.lsb_exponent = lsb + kLsbExponent;
  return r;
}

namespace {

// Applies the special-value policy; returns true (and sets out) if the result is not finite-nonzero.
template <class T>
bool special_result(bool nan, bool pos_inf, bool neg_inf, T& out) {
  if (nan || (pos_inf && neg_inf)) {
    out = static_cast<T>(NAN);
    return true;
  }
  if (pos_inf || neg_inf) {
    out = pos_inf ? static_cast<T>(INFINITY) : -static_cast<T>(INFINITY);
    return true;
  }
  return false;
}

}  // namespace

float Superaccumulator::to_float() const {
  float out;
  if (special_result(nan_, pos_inf_, neg_inf_, out)) return std::isnan(out) ? canonical_nan() : out;
  const Rounded r = round(24, -149);
  if (r.zero) return (any_term_ && all_negative_zero_) ? -0.0f : 0.0f;
  const double magnitude = std::ldexp(static_cast<double>(r.significand), r.lsb_exponent);  // exact
  const float f = magnitude >= 0x1p128 ? INFINITY : static_cast<float>(magnitude);
  return r.negative ? -f : f;
}

float Superaccumulator::to_bf16() const {
  float out;
  if (special_result(nan_, pos_inf_, neg_inf_, out)) return std::isnan(out) ? canonical_nan() : out;
  const Rounded r = round(8, -133);
  if (r.zero) return (any_term_ && all_negative_zero_) ? -0.0f : 0.0f;
  const double magnitude = std::ldexp(static_cast<double>(r.significand), r.lsb_exponent);
  const float f = magnitude >= 0x1p128 ? INFINITY : static_cast<float>(magnitude);
  return r.negative ? -f : f;
}

double Superaccumulator::to_double() const {
  double out;
  if (special_result(nan_, pos_inf_, neg_inf_, out)) return out;
  const Rounded r = round(53, -1074);
  if (r.zero) return (any_term_ && all_negative_zero_) ? -0.0 : 0.0;
  const double magnitude = std::ldexp(static_cast<double>(r.significand), r.lsb_exponent);
  return r.negative ? -magnitude : magnitude;
}

void Superaccumulator::to_mpfr(mpfr_ptr out) const {
  if (nan_ || (pos_inf_ && neg_inf_)) {
    mpfr_set_nan(out);
    return;
  }
  if (pos_inf_ || neg_inf_) {
    mpfr_set_inf(out, pos_inf_ ? 1 : -1);
    return;
  }
  mpfr_set_zero(out, (any_term_ && all_negative_zero_) ? -1 : 1);
  mpfr_t term;
  mpfr_init2(term, 64);
  for (int i = 0; i < kChunks; ++i) {
    if (chunk_[i] == 0) continue;
    mpfr_set_si_2exp(term, chunk_[i], i * kChunkBits + kLsbExponent, MPFR_RNDN);  // exact: 64-bit integer
    [[maybe_unused]] const int t = mpfr_add(out, out, term, MPFR_RNDN);
    assert(t == 0);
  }
  mpfr_clear(term);
}

}  // namespace ordo::oracle
