#include "oracle/tc_fdpa_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/float_bits.h"

namespace ordo::oracle {
namespace {

// A finite FP32 value as sign * mant * 2^(e - 23): mant < 2^24 is the significand scaled by 2^23,
// e the exponent of the model. Subnormals keep e = -126 with mant < 2^23 (no renormalisation: §2.2).
struct Decomposed {
  bool negative;
  std::uint64_t mant;
  int e;
};

Decomposed decompose(float f) {
  const std::uint32_t u = bits_of(f);
  const int field = static_cast<int>((u >> 23) & 0xFFu);
  const std::uint64_t frac = u & 0x7FFFFFu;
  if (field == 0) return {(u >> 31) != 0, frac, -126};
  return {(u >> 31) != 0, frac | (1u << 23), field - 127};
}

// One term before alignment: |value| = mag * 2^(e - frac_bits).
struct Term {
  bool negative;
  std::uint64_t mag;
  int e;
  int frac_bits;
};

// trunc(|value| * 2^(F - E)): the term's magnitude in units of 2^(E - F), truncated toward zero.
std::int64_t aligned(const Term& t, int E, int F) {
  if (t.mag == 0) return 0;
  // |value| * 2^(F-E) = mag * 2^-(frac_bits + E - e - F). Products (frac_bits 46) always shift right;
  // C (frac_bits 23) shifts left by F - 23 when it sets E.
  const int shift = t.frac_bits + (E - t.e) - F;
  std::uint64_t m;
  if (shift >= 64) m = 0;
  else if (shift >= 0) m = t.mag >> shift;
  else m = t.mag << (-shift);  // shift >= 23 - F >= -17, mag < 2^24: no overflow
  const auto v = static_cast<std::int64_t>(m);
  return t.negative ? -v : v;
}

// sign * mag * 2^(scale) rounded toward zero to FP32, mag != 0.
float round_toward_zero(bool negative, std::uint64_t mag, int scale) {
  const std::uint32_t sign = negative ? 0x80000000u : 0u;
  const int msb = 63 - std::countl_zero(mag);
  const int ex = msb + scale;  // |x| in [2^ex, 2^(ex+1))
  // docs/numerics.md §2 step 4: |x| >= 2^128 -> +-Inf (IEEE RZ would give FLT_MAX; see the header).
  if (ex >= 128) return float_of(sign | 0x7F800000u);
  std::uint64_t m;
  std::uint32_t field;
  // Keep the bits at and above 2^(ex-23) (normal) or 2^-149 (subnormal); drop the rest (truncation).
  const int lsb = ex >= -126 ? ex - 23 : -149;
  const int shift = lsb - scale;  // mag's bit index of the kept LSB
  if (shift >= 64) m = 0;
  else if (shift >= 0) m = mag >> shift;
  else m = mag << (-shift);  // mag < 2^(ex - scale + 1), so m < 2^24: no overflow
  if (ex >= -126) {
    field = static_cast<std::uint32_t>(ex + 127) << 23;
    m &= 0x7FFFFFu;  // the hidden bit
  } else {
    field = 0;  // subnormal, or a non-zero sum below 2^-149 that truncates to zero
    // A sum that truncates to zero gives +0 whatever its sign: measured on an H200 (sm_90) by
    // `ordo verify` (a tiny negative chain step read back as +0) and pinned by probe.underflow_to_zero_sign.
    if (m == 0) return 0.0f;
  }
  return float_of(sign | field | static_cast<std::uint32_t>(m));
}

}  // namespace

void validate_tc_fdpa_params(const TcFdpaParams& p) {
  // The integer sum: each aligned term is < 2^(F+2) (significand < 4), n + 1 <= 65 terms: < 2^(F+9)
  // <= 2^49 for F <= 40, far inside int64.
  if (p.L < 1 || p.L > 64 || p.F < 23 || p.F > 40 || p.e_zero > -126)
    throw std::invalid_argument("T-FDPA parameters out of the modelled range: L=" + std::to_string(p.L) +
                                " F=" + std::to_string(p.F) + " e_zero=" + std::to_string(p.e_zero));
}

float tc_fdpa_step(const TcFdpaParams& p, const float* a, const float* b, int n, float c) {
  validate_tc_fdpa_params(p);
  if (n < 0 || n > p.L) throw std::invalid_argument("tc_fdpa_step: n must be in [0, L]");

  // 1. Special values, before any arithmetic.
  bool nan = std::isnan(c), pos_inf = c == INFINITY, neg_inf = c == -INFINITY;
  for (int i = 0; i < n; ++i) {
    const float x = a[i], y = b[i];
    if (std::isnan(x) || std::isnan(y)) nan = true;
    if (std::isinf(x) || std::isinf(y)) {
      if (x == 0.0f || y == 0.0f) nan = true;  // Inf * 0
      else if (std::signbit(x) != std::signbit(y)) neg_inf = true;
      else pos_inf = true;
    }
  }
  if (nan || (pos_inf && neg_inf)) return canonical_nan();
  if (pos_inf) return INFINITY;
  if (neg_inf) return -INFINITY;

  // 2. Exact unnormalised terms. A product of two 24-bit significands has 46 fraction bits and a
  // value < 4; C keeps its 23. Zero terms take e_zero.
  Term terms[65];
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const Decomposed x = decompose(a[i]), y = decompose(b[i]);
    const std::uint64_t mag = x.mant * y.mant;
    terms[count++] = {x.negative != y.negative, mag, mag == 0 ? p.e_zero : x.e + y.e, 46};
  }
  const Decomposed cd = decompose(c);
  terms[count++] = {cd.negative, cd.mant, cd.mant == 0 ? p.e_zero : cd.e, 23};

  // 3. Align to 2^E with F fraction bits, truncating each term toward zero, and sum exactly. The
  // zero products that pad a short step take e_zero, and e_zero < -126 <= the exponent of any
  // non-zero C, while a zero C has e_zero itself: padding never raises E, so it changes nothing.
  int E = terms[0].e;
  for (int i = 1; i < count; ++i) E = std::max(E, terms[i].e);
  std::int64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += aligned(terms[i], E, p.F);

  // 4. Normalise once, round toward zero. Exact zero: +0 by this model's policy (see the header).
  if (sum == 0) return 0.0f;
  const bool negative = sum < 0;
  const std::uint64_t mag = negative ? 0 - static_cast<std::uint64_t>(sum) : static_cast<std::uint64_t>(sum);
  return round_toward_zero(negative, mag, E - p.F);
}

float tc_fdpa_chain(const TcFdpaParams& p, const float* x, const float* w, std::int64_t K) {
  validate_tc_fdpa_params(p);
  float c = 0.0f;
  for (std::int64_t k0 = 0; k0 < K; k0 += p.L) {
    // A short last step is the zero-padded step (see tc_fdpa_step).
    const int n = static_cast<int>(std::min<std::int64_t>(p.L, K - k0));
    c = tc_fdpa_step(p, x + k0, w + k0, n, c);
  }
  return c;
}

float round_to_bf16(float f) {
  const std::uint32_t u = bits_of(f);
  if (is_nan_bits(u)) return float_of(0x7FFF0000u);
  // Add half an ulp of BF16 minus one, plus the current LSB (ties to even), then truncate. A carry
  // into the exponent field is the correct rounding up to the next binade, or to Inf.
  const std::uint32_t lsb = (u >> 16) & 1u;
  return float_of((u + 0x7FFFu + lsb) & 0xFFFF0000u);
}

bool is_bf16_value(float f) { return !std::isnan(f) && (bits_of(f) & 0xFFFFu) == 0; }

}  // namespace ordo::oracle
