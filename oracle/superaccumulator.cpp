#include "oracle/superaccumulator.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

#include "core/float_bits.h"

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

// True when every value is a normal binary32 (no zero, subnormal, Inf or NaN): then the fast path
// needs no per-term case analysis. A branch-free reduction the compiler vectorises.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) bool all_normal(const float* v,
                                                                                              std::int64_t n) {
  std::uint32_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t e = (bits_of(v[i]) >> 23) & 0xFFu;
    bad |= static_cast<std::uint32_t>(e - 1u >= 254u);
  }
  return bad == 0;
}

// For normal operands only: each product's bin (see add_products) and its signed 48-bit significand.
// Branch-free and vectorised (32x32 -> 64-bit multiplies); the scatter into bins stays scalar.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void decode_normal_products(
    const float* a, const float* b, int n, std::uint32_t* bin, std::int64_t* value, std::uint32_t* min_bin,
    std::uint32_t* max_bin) {
  std::uint32_t lo = *min_bin, hi = *max_bin;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t ua = bits_of(a[i]), ub = bits_of(b[i]);
    const std::uint64_t m = static_cast<std::uint64_t>((ua & 0x7FFFFFu) | 0x800000u) * ((ub & 0x7FFFFFu) | 0x800000u);
    const std::uint64_t negative = (ua ^ ub) >> 31;
    bin[i] = ((ua >> 23) & 0xFFu) + ((ub >> 23) & 0xFFu) - 2u;
    value[i] = static_cast<std::int64_t>((m ^ (0 - negative)) + negative);
    lo = std::min(lo, bin[i]);
    hi = std::max(hi, bin[i]);
  }
  *min_bin = lo;
  *max_bin = hi;
}

constexpr int kBins = 507;  // see add_products

// The exponent bins of add_products, per thread, all zero between calls: only the bins a call used
// are folded and re-zeroed, so short vectors do not pay for all 507.
struct BinScratch {
  std::int64_t even[kBins] = {};
  std::int64_t odd[kBins] = {};
};
thread_local BinScratch bin_scratch;

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
  // Short vectors: folding the bins below costs more than it saves.
  if (K < 256) {
    for (std::int64_t k = 0; k < K; ++k) add_product(a[k], b[k]);
    return;
  }
  // A product's lsb exponent is (max(e_a,1) - 150) + (max(e_b,1) - 150) for biased exponents e, so
  // bin = max(e_a,1) + max(e_b,1) - 2 in [0, 506] is its bit index above 2^-298. Each bin is an int64
  // of 48-bit significands: 2^15 additions cannot overflow it, then the bins are folded into chunks.
  constexpr std::int64_t kBlock = 1 << 15;
  std::int64_t* bins = bin_scratch.even;
  std::int64_t* odd_bins = bin_scratch.odd;
  any_term_ = true;
  bool any_nonzero = false, any_positive_zero = false;
  for (std::int64_t start = 0; start < K; start += kBlock) {
    std::uint32_t lo = kBins, hi = 0;
    const std::int64_t end = std::min(K, start + kBlock);
    if (all_normal(a + start, end - start) && all_normal(b + start, end - start)) {
      constexpr int kPiece = 512;  // decoded on the stack, then scattered
      std::uint32_t bin[kPiece];
      std::int64_t value[kPiece];
      for (std::int64_t k = start; k < end; k += kPiece) {
        const int n = static_cast<int>(std::min<std::int64_t>(kPiece, end - k));
        decode_normal_products(a + k, b + k, n, bin, value, &lo, &hi);
        // Two bin arrays, even and odd terms: consecutive products with the same exponent (common in
        // real data) would otherwise chain every read-modify-write on the previous one.
        int i = 0;
        for (; i + 1 < n; i += 2) {
          bins[bin[i]] += value[i];
          odd_bins[bin[i + 1]] += value[i + 1];
        }
        if (i < n) bins[bin[i]] += value[i];
      }
      any_nonzero = true;
    } else {
      for (std::int64_t k = start; k < end; ++k) {
        const std::uint32_t ua = bits_of(a[k]), ub = bits_of(b[k]);
        const std::uint32_t ea = (ua >> 23) & 0xFF, eb = (ub >> 23) & 0xFF;
        if (ea == 0xFF || eb == 0xFF) {  // NaN or Inf: the rare slow path keeps the policy in one place
          add_product(a[k], b[k]);
          continue;
        }
        const std::uint64_t ma = (ua & 0x7FFFFFu) | (ea ? 0x800000u : 0u);
        const std::uint64_t mb = (ub & 0x7FFFFFu) | (eb ? 0x800000u : 0u);
        const std::uint64_t m = ma * mb;
        const std::uint64_t negative = (ua ^ ub) >> 31;
        const std::uint32_t index = (ea ? ea : 1) + (eb ? eb : 1) - 2;
        bins[index] += static_cast<std::int64_t>((m ^ (0 - negative)) + negative);
        lo = std::min(lo, index);
        hi = std::max(hi, index);
        any_nonzero |= m != 0;
        any_positive_zero |= (m == 0) & (negative == 0);
      }
    }
    for (int i = static_cast<int>(lo); i <= static_cast<int>(hi); ++i) {
      const std::int64_t v = bins[i] + odd_bins[i];  // each < 2^14 significands below 2^48: no overflow
      bins[i] = odd_bins[i] = 0;
      if (v == 0) continue;
      const bool negative = v < 0;
      add_magnitude(negative, negative ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v), i);
    }
  }
  if (any_nonzero || any_positive_zero) all_negative_zero_ = false;
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
