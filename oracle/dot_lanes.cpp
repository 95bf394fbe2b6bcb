#include "oracle/dot_lanes.h"

#include <algorithm>
#include <cassert>

#include "oracle/window_accumulate.h"

#define ORDO_LANES __attribute__((target("avx512f,avx512cd")))

namespace ordo::oracle::dot_kernel {
namespace {

bool cpu_has_lane_kernel() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd");
}

// Carries every 64-bit digit down to 32 bits (arithmetic shifts: digits may be negative), the top digit
// keeping the sign. Every digit is below 2^63 in magnitude on entry.
template <int D>
ORDO_LANES inline void normalize(__m512i (&digit)[D]) {
  const __m512i mask32 = _mm512_set1_epi64(0xFFFFFFFFll);
  for (int i = 0; i + 1 < D; ++i) {
    digit[i + 1] = _mm512_add_epi64(digit[i + 1], _mm512_srai_epi64(digit[i], 32));
    digit[i] = _mm512_and_si512(digit[i], mask32);
  }
}

// One format's rounding of every lane (superaccumulator.h's rule, as ExactSum::round_all does it in
// scalar code): msb is the leading 1's bit index (units of 2^-298), top the 64 bits from it down,
// sticky whether anything below is 1. Returns the magnitudes' IEEE bits (binary32 bits for the float
// formats: shift 0 for binary32, 16 for bfloat16).
ORDO_LANES inline __m512i rounded_bits(__m512i msb, __m512i top, __mmask8 sticky, int precision, int min_lsb_exponent,
                                       int shift, bool binary64) {
  const __m512i msb_exponent = _mm512_sub_epi64(msb, _mm512_set1_epi64(298));
  const __m512i q = _mm512_max_epi64(_mm512_sub_epi64(msb_exponent, _mm512_set1_epi64(precision - 1)),
                                     _mm512_set1_epi64(min_lsb_exponent));
  const __m512i kept_bits = _mm512_add_epi64(_mm512_sub_epi64(msb_exponent, q), _mm512_set1_epi64(1));
  const __m512i k = _mm512_max_epi64(kept_bits, _mm512_setzero_si512());
  const __mmask8 valid = _mm512_cmpge_epi64_mask(kept_bits, _mm512_setzero_si512());
  __m512i kept = _mm512_maskz_mov_epi64(
      valid, _mm512_srli_epi64(_mm512_srlv_epi64(top, _mm512_sub_epi64(_mm512_set1_epi64(63), k)), 1));
  const __m512i rest = _mm512_maskz_mov_epi64(valid, _mm512_sllv_epi64(top, k));
  const __m512i round_bit = _mm512_srli_epi64(rest, 63);
  const __mmask8 below = _mm512_test_epi64_mask(_mm512_slli_epi64(rest, 1), _mm512_slli_epi64(rest, 1)) | sticky;
  const __m512i odd_or_sticky = _mm512_or_si512(_mm512_maskz_mov_epi64(below, _mm512_set1_epi64(1)), kept);
  kept = _mm512_add_epi64(kept, _mm512_and_si512(round_bit, odd_or_sticky));
  // The bits formula of exact_sum.cpp (float_bits, double_bits): exponent field from the lsb, plus kept.
  if (binary64) return _mm512_add_epi64(_mm512_slli_epi64(_mm512_add_epi64(q, _mm512_set1_epi64(1074)), 52), kept);
  const __m512i bits = _mm512_add_epi64(_mm512_slli_epi64(_mm512_add_epi64(q, _mm512_set1_epi64(149 - shift)), 23),
                                        _mm512_sllv_epi64(kept, _mm512_set1_epi64(shift)));
  return _mm512_min_epi64(bits, _mm512_set1_epi64(0x7F800000));  // >= 2^128: +Inf
}

template <int W>
ORDO_LANES void lanes(const DecodedRow& x, const DecodedGroups::Group& g, LaneResults& out) {
  constexpr int kDigits = 2 * W + 4;  // 32-bit digits: |sum| < 2^(64 W + 80) for K < 2^32, plus the sign
  __m512i digit[kDigits];
  for (__m512i& d : digit) d = _mm512_setzero_si512();
  for (std::int64_t begin = 0; begin < g.length; begin += kBlock) {
    const std::int64_t end = std::min(g.length, begin + kBlock);
    // Window sums as in dot_kernel.cpp (accumulate, window_accumulate.h), but each lane its own dot product: t mod 2^64
    // (wrapping), its high 32 bits and floor(t / 2^64) of window j at acc[j], acc[W + j], acc[2W + j].
    // Per lane at most kBlock terms: the last two stay below 2^47 and 2^62.
    __m512i acc[3 * W];
    for (__m512i& a : acc) a = _mm512_setzero_si512();
    for (std::int64_t k = begin; k < end; ++k) {
      const __m512i w_significand =
          _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.significand + k * kGroup)));
      const __m512i w_exponent =
          _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(g.exponent + k * kGroup)));
      const __m512i p = _mm512_mul_epi32(_mm512_set1_epi64(x.significand[k]), w_significand);
      const __m512i sh = _mm512_add_epi64(_mm512_set1_epi64(x.exponent[k]), w_exponent);
      accumulate<W>(acc, p, sh);
    }
    for (int j = 0; j < W; ++j)  // the exact sums of the low 32-bit digits: below 2^47, so mod 2^64 is exact
      acc[j] = _mm512_sub_epi64(acc[j], _mm512_slli_epi64(acc[W + j], 32));
    // Window j's parts are the 32-bit digits 2j, 2j + 1 and 2j + 2 (and up) of the lane's sum.
    for (int j = 0; j < W; ++j) {
      digit[2 * j] = _mm512_add_epi64(digit[2 * j], acc[j]);
      digit[2 * j + 1] = _mm512_add_epi64(digit[2 * j + 1], acc[W + j]);
      digit[2 * j + 2] = _mm512_add_epi64(digit[2 * j + 2], acc[2 * W + j]);
    }
    normalize(digit);
  }

  // Sign and magnitude: negate the negative lanes' digits and carry again.
  const __m512i zero = _mm512_setzero_si512();
  const __mmask8 negative = _mm512_cmplt_epi64_mask(digit[kDigits - 1], zero);
  if (negative != 0) {
    for (__m512i& d : digit) d = _mm512_mask_sub_epi64(d, negative, zero, d);
    normalize(digit);
  }
  // The leading nonzero digit of each lane, the two below it, and whether anything lies further down.
  __m512i below[kDigits];  // below[i] = OR of digits 0 .. i-1
  below[0] = zero;
  for (int i = 1; i < kDigits; ++i) below[i] = _mm512_or_si512(below[i - 1], digit[i - 1]);
  __mmask8 found = 0;
  __m512i t = zero, hi = zero, mid = zero, lo = zero, rest = zero;
  for (int i = kDigits - 1; i >= 0; --i) {
    const __mmask8 nonzero = _mm512_test_epi64_mask(digit[i], digit[i]);
    const auto first = static_cast<__mmask8>(nonzero & ~found);
    t = _mm512_mask_mov_epi64(t, first, _mm512_set1_epi64(i));
    hi = _mm512_mask_mov_epi64(hi, first, digit[i]);
    if (i >= 1) mid = _mm512_mask_mov_epi64(mid, first, digit[i - 1]);
    if (i >= 2) lo = _mm512_mask_mov_epi64(lo, first, digit[i - 2]);
    if (i >= 2) rest = _mm512_mask_mov_epi64(rest, first, below[i - 2]);
    found = static_cast<__mmask8>(found | nonzero);
  }
  const __m512i c32 = _mm512_set1_epi64(32);
  const __m512i lz = _mm512_sub_epi64(_mm512_lzcnt_epi64(hi), c32);  // in [0, 31] where found
  const __m512i lz32 = _mm512_add_epi64(lz, c32);
  const __m512i top = _mm512_or_si512(_mm512_or_si512(_mm512_sllv_epi64(hi, lz32), _mm512_sllv_epi64(mid, lz)),
                                      _mm512_srlv_epi64(lo, _mm512_sub_epi64(c32, lz)));
  const __m512i lo_rest = _mm512_sllv_epi64(lo, lz32);  // lo's bits not taken into top
  const auto sticky =
      static_cast<__mmask8>(_mm512_test_epi64_mask(lo_rest, lo_rest) | _mm512_test_epi64_mask(rest, rest));
  // msb = P + 32 t + 31 - lz, P the lane's position (x's and the row's lowest exponents).
  const __m512i position = _mm512_add_epi64(_mm512_set1_epi64(x.min_exponent), _mm512_loadu_si512(g.min_exponent));
  const __m512i msb = _mm512_sub_epi64(
      _mm512_add_epi64(_mm512_add_epi64(position, _mm512_slli_epi64(t, 5)), _mm512_set1_epi64(31)), lz);

  const __m512i sign32 = _mm512_maskz_mov_epi64(negative, _mm512_set1_epi64(0x80000000ll));
  const __m512i f32 = _mm512_or_si512(rounded_bits(msb, top, sticky, 24, -149, 0, false), sign32);
  const __m512i bf16 = _mm512_or_si512(rounded_bits(msb, top, sticky, 8, -133, 16, false), sign32);
  const __m512i f64 =
      _mm512_or_si512(rounded_bits(msb, top, sticky, 53, -1074, 0, true), _mm512_slli_epi64(sign32, 32));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.f32), _mm512_cvtepi64_epi32(f32));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.bf16), _mm512_cvtepi64_epi32(bf16));
  _mm512_storeu_si512(out.f64, f64);
  out.unfinished = static_cast<std::uint8_t>(~found | g.special);
}

}  // namespace

void DecodedGroups::build(const DecodedRows& rows, std::int64_t length) {
  length_ = length;
  const std::int64_t count = rows.rows(), groups = (count + kGroup - 1) / kGroup;
  const auto total = static_cast<std::size_t>(groups * length * kGroup);
  significand_.assign(total, 0);
  exponent_.assign(total, 0);
  info_.assign(static_cast<std::size_t>(groups), Info{});
  for (std::int64_t r = 0; r < count; ++r) {
    const DecodedRow row = rows.row(r);
    const std::int64_t g = r / kGroup, lane = r % kGroup;
    std::int32_t* s = significand_.data() + g * length * kGroup + lane;
    std::uint8_t* e = exponent_.data() + g * length * kGroup + lane;
    for (std::int64_t k = 0; k < length; ++k) {
      s[k * kGroup] = row.significand[k];
      e[k * kGroup] = row.exponent[k];
    }
    Info& info = info_[static_cast<std::size_t>(g)];
    info.min_exponent[lane] = row.min_exponent;
    if (row.special)
      info.special = static_cast<std::uint8_t>(info.special | (1u << lane));
    else
      info.max_span = std::max(info.max_span, row.span);
  }
}

DecodedGroups::Group DecodedGroups::group(std::int64_t g) const {
  const Info& info = info_[static_cast<std::size_t>(g)];
  const std::size_t offset = static_cast<std::size_t>(g * length_ * kGroup);
  return {
      significand_.data() + offset, exponent_.data() + offset, length_, info.min_exponent, info.max_span, info.special};
}

bool have_lane_kernel() {
  static const bool has = cpu_has_lane_kernel();
  return has;
}

void dot_lanes(const DecodedRow& x, const DecodedGroups::Group& w, LaneResults& out) {
  assert(have_lane_kernel() && !x.special && x.padded_length >= w.length);
  with_window_count((x.span + w.max_span) / 64 + 1, [&](auto windows) { lanes<decltype(windows)::value>(x, w, out); });
}

}  // namespace ordo::oracle::dot_kernel
