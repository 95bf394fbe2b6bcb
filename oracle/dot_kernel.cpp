#include "oracle/dot_kernel.h"

#include <algorithm>
#include <cassert>

#include "core/float_bits.h"
#include "oracle/window_accumulate.h"

namespace ordo::oracle::dot_kernel {
namespace {

struct Range {
  std::int32_t lo, hi;  // lo > hi if every value is zero
  bool special;
};

// Pass 1: signed significands and absolute exponents max(e,1)-1 (255 for a zero), the exponent range of
// the nonzero values and whether a NaN or Inf occurs. Branch-free and written so that GCC vectorises it
// (its min/max reductions vectorise on signed keys, not on a select of unsigned ones).
__attribute__((target_clones("arch=x86-64-v3", "default"))) Range decode_absolute_portable(const float* v,
                                                                                           std::int64_t K,
                                                                                           std::int32_t* significand,
                                                                                           std::uint8_t* exponent) {
  std::int32_t lo = 256, hi = -1;
  std::uint32_t special = 0;
  for (std::int64_t k = 0; k < K; ++k) {
    const std::uint32_t u = bits_of(v[k]);
    const std::uint32_t e = (u >> 23) & 0xFFu;
    const std::uint32_t m = (u & 0x7FFFFFu) | (e != 0 ? 0x800000u : 0u);
    const auto s = static_cast<std::int32_t>(m);
    significand[k] = (u >> 31) != 0 ? -s : s;
    const std::int32_t ee = (e != 0 ? static_cast<std::int32_t>(e) : 1) - 1;  // <= 254
    const std::int32_t zero = m == 0 ? 256 : 0;
    exponent[k] = static_cast<std::uint8_t>(std::min(ee + zero, 255));
    special |= static_cast<std::uint32_t>(e == 0xFFu);
    lo = std::min(lo, ee + zero);
    hi = std::max(hi, ee - zero);
  }
  return {lo, hi, special != 0};
}

// The same, 16 values per step in AVX-512 (GCC's vectorisation of the loop above, with its int32 and
// uint8 stores mixed, runs at a third of this speed; decoding is a visible share when rows are long and
// each is used only a few times).
__attribute__((target("avx512f"))) Range decode_absolute_avx512(const float* v, std::int64_t K,
                                                                std::int32_t* significand, std::uint8_t* exponent) {
  const __m512i exponent_mask = _mm512_set1_epi32(0xFF), fraction_mask = _mm512_set1_epi32(0x7FFFFF);
  const __m512i hidden = _mm512_set1_epi32(0x800000), one = _mm512_set1_epi32(1), all_ones = _mm512_set1_epi32(255);
  __m512i lo = _mm512_set1_epi32(256), hi = _mm512_set1_epi32(-1);
  __mmask16 special = 0;
  for (std::int64_t k = 0; k < K; k += 16) {
    const auto in = static_cast<__mmask16>(K - k >= 16 ? 0xFFFF : (1u << (K - k)) - 1u);
    const __m512i u = _mm512_maskz_loadu_epi32(in, v + k);
    const __m512i e = _mm512_and_si512(_mm512_srli_epi32(u, 23), exponent_mask);
    const __m512i fraction = _mm512_and_si512(u, fraction_mask);
    const __m512i m = _mm512_mask_or_epi32(fraction, _mm512_test_epi32_mask(e, e), fraction, hidden);
    const __m512i s =
        _mm512_mask_sub_epi32(m, _mm512_cmplt_epi32_mask(u, _mm512_setzero_si512()), _mm512_setzero_si512(), m);
    const __m512i ee = _mm512_sub_epi32(_mm512_max_epu32(e, one), one);
    const __mmask16 nonzero = _mm512_test_epi32_mask(m, m);
    special = static_cast<__mmask16>(special | _mm512_mask_cmpeq_epi32_mask(in, e, exponent_mask));
    lo = _mm512_mask_min_epi32(lo, nonzero, lo, ee);
    hi = _mm512_mask_max_epi32(hi, nonzero, hi, ee);
    _mm512_mask_storeu_epi32(significand + k, in, s);
    _mm512_mask_cvtepi32_storeu_epi8(exponent + k, in, _mm512_mask_mov_epi32(all_ones, nonzero, ee));
  }
  return {_mm512_reduce_min_epi32(lo), _mm512_reduce_max_epi32(hi), special != 0};
}

Range decode_absolute(const float* v, std::int64_t K, std::int32_t* significand, std::uint8_t* exponent) {
  return have_simd_kernel() ? decode_absolute_avx512(v, K, significand, exponent)
                            : decode_absolute_portable(v, K, significand, exponent);
}

// Pass 2: exponents relative to the row's smallest; zeros (255) get 0, so that their zero products stay
// in the windows the nonzero products need.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void make_relative(std::int64_t K,
                                                                                                 std::uint8_t* exponent,
                                                                                                 std::uint8_t lo) {
  for (std::int64_t k = 0; k < K; ++k)
    exponent[k] = exponent[k] != 255 ? static_cast<std::uint8_t>(exponent[k] - lo) : std::uint8_t{0};
}

// The lane sums of v[0..8) as out[0..8): a transposing tree of 21 operations instead of 8 separate
// horizontal reductions (which matters when the loop itself ran only 4 times, K = 32).
// Inlined, so that the accumulators stay in registers (a call would put them, and their clearing, in memory).
__attribute__((target("avx512f"), always_inline)) inline void reduce8(const __m512i (&v)[8], std::int64_t* out) {
  __m512i t[4];
  for (std::size_t i = 0; i < 4; ++i)  // per 128-bit block: (v[2i] pair sum, v[2i+1] pair sum)
    t[i] =
        _mm512_add_epi64(_mm512_unpacklo_epi64(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_epi64(v[2 * i], v[2 * i + 1]));
  __m512i u[2];
  for (std::size_t i = 0; i < 2; ++i)  // blocks 0,1 of t[2i] summed, blocks 2,3, then the same of t[2i+1]
    u[i] = _mm512_add_epi64(_mm512_shuffle_i64x2(t[2 * i], t[2 * i + 1], 0x88),
                            _mm512_shuffle_i64x2(t[2 * i], t[2 * i + 1], 0xDD));
  _mm512_storeu_si512(out,
                      _mm512_add_epi64(_mm512_shuffle_i64x2(u[0], u[1], 0x88), _mm512_shuffle_i64x2(u[0], u[1], 0xDD)));
}

// 16 terms per step: the even ones in the low halves of the 64-bit lanes, the odd ones in the high
// halves, so that the 32-bit significands and exponents need no widening (_mm512_mul_epi32 multiplies
// the low halves, signed).
template <int W>
__attribute__((target("avx512f"))) void windows_avx512(const std::int32_t* sa, const std::uint8_t* ea,
                                                       const std::int32_t* sb, const std::uint8_t* eb, std::int64_t n,
                                                       WindowSums& out) {
  constexpr int kUsed = 3 * W, kVectors = (kUsed + 7) / 8 * 8;
  __m512i acc[kUsed];
  for (__m512i& a : acc) a = _mm512_setzero_si512();
  const __m512i mask32 = _mm512_set1_epi64(0xFFFFFFFFll);
  for (std::int64_t k = 0; k < n; k += kLanes) {
    const __m512i a = _mm512_loadu_si512(sa + k), b = _mm512_loadu_si512(sb + k);
    const __m512i sh =
        _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ea + k))),
                         _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(eb + k))));
    accumulate<W>(acc, _mm512_mul_epi32(a, b), _mm512_and_si512(sh, mask32));
    accumulate<W>(acc, _mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), _mm512_srli_epi64(sh, 32));
  }
  for (int j = 0; j < W; ++j)  // the low digits' exact sums, lane by lane (see accumulate)
    acc[j] = _mm512_sub_epi64(acc[j], _mm512_slli_epi64(acc[W + j], 32));
  std::int64_t sums[kVectors];
  for (int i = 0; i < kVectors; i += 8) {
    __m512i group[8];
    for (int g = 0; g < 8; ++g) group[g] = i + g < kUsed ? acc[i + g] : _mm512_setzero_si512();
    reduce8(group, sums + i);
  }
  out.windows = W;
  std::copy(sums, sums + W, out.low);
  std::copy(sums + W, sums + 2 * W, out.mid);
  std::copy(sums + 2 * W, sums + 3 * W, out.high);
}

bool cpu_has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

}  // namespace

void DecodedRows::decode(const float* values, std::int64_t rows, std::int64_t K, const float* appended,
                         std::int64_t appended_stride) {
  const std::int64_t length = K + (appended ? 1 : 0);
  stride_ = (length + kLanes - 1) / kLanes * kLanes;
  const auto total = static_cast<std::size_t>(rows * stride_);
  if (significand_.size() < total) {
    significand_.resize(total);
    exponent_.resize(total);
  }
  info_.resize(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int32_t* s = significand_.data() + r * stride_;
    std::uint8_t* e = exponent_.data() + r * stride_;
    Range range = decode_absolute(values + r * K, K, s, e);
    if (appended) {
      const Range tail = decode_absolute(appended + r * appended_stride, 1, s + K, e + K);
      range = {std::min(range.lo, tail.lo), std::max(range.hi, tail.hi), range.special || tail.special};
    }
    if (range.lo > range.hi) range.lo = range.hi = 0;  // no nonzero value
    make_relative(length, e, static_cast<std::uint8_t>(range.lo));
    std::fill(s + length, s + stride_, 0);  // padding: zero products in window 0
    std::fill(e + length, e + stride_, std::uint8_t{0});
    info_[static_cast<std::size_t>(r)] = {static_cast<int>(range.lo), static_cast<int>(range.hi - range.lo),
                                          range.special};
  }
}

DecodedRow DecodedRows::row(std::int64_t r) const {
  const Info& i = info_[static_cast<std::size_t>(r)];
  return {
      significand_.data() + r * stride_, exponent_.data() + r * stride_, stride_, i.min_exponent, i.span, i.special};
}

int window_count(const DecodedRow& a, const DecodedRow& b) { return (a.span + b.span) / 64 + 1; }

bool have_simd_kernel() {
  static const bool has = cpu_has_avx512();
  return has;
}

void dot_windows(const DecodedRow& a, const DecodedRow& b, std::int64_t begin, std::int64_t end, WindowSums& out) {
  assert(!a.special && !b.special && end - begin <= kBlock && begin % kLanes == 0 && end % kLanes == 0);
  if (!have_simd_kernel()) return dot_windows_portable(a, b, begin, end, out);
  const std::int32_t *sa = a.significand + begin, *sb = b.significand + begin;
  const std::uint8_t *ea = a.exponent + begin, *eb = b.exponent + begin;
  const std::int64_t n = end - begin;
  with_window_count(window_count(a, b), [&](auto w) { windows_avx512<decltype(w)::value>(sa, ea, sb, eb, n, out); });
}

void dot_windows_portable(const DecodedRow& a, const DecodedRow& b, std::int64_t begin, std::int64_t end,
                          WindowSums& out) {
  out.windows = window_count(a, b);
  std::fill(out.low, out.low + kMaxWindows, 0);
  std::fill(out.mid, out.mid + kMaxWindows, 0);
  std::fill(out.high, out.high + kMaxWindows, 0);
  for (std::int64_t k = begin; k < end; ++k) {
    const std::int64_t p = std::int64_t{a.significand[k]} * b.significand[k];
    const unsigned sh = unsigned{a.exponent[k]} + b.exponent[k];
    const unsigned j = sh >> 6, s = sh & 63u;
    const std::uint64_t t_low = static_cast<std::uint64_t>(p) << s;
    out.low[j] += static_cast<std::int64_t>(t_low & 0xFFFFFFFFu);
    out.mid[j] += static_cast<std::int64_t>(t_low >> 32);
    out.high[j] += (p >> 1) >> (63 - s);
  }
}

bool all_products_negative_zero(const float* a, const float* b, std::int64_t K) {
  for (std::int64_t k = 0; k < K; ++k) {
    const std::uint32_t ua = bits_of(a[k]), ub = bits_of(b[k]);
    const bool zero = (ua & 0x7FFFFFFFu) == 0 || (ub & 0x7FFFFFFFu) == 0;
    if (!zero || ((ua ^ ub) >> 31) == 0) return false;
  }
  return true;
}

}  // namespace ordo::oracle::dot_kernel
