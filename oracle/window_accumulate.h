#pragma once
// The AVX-512 step both exact dot kernels share (dot_kernel.cpp: one dot product over all lanes;
// dot_lanes.cpp: one dot product per lane): adding 8 terms p * 2^sh into fixed-point windows.
#include <cstdint>
#include <type_traits>
#include <utility>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on their own _mm512_undefined placeholders when
// inlined at -O3 (GCC bug 105593, fixed in 13); the warnings are about the headers, not this code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

namespace ordo::oracle::dot_kernel {

// Adds 8 terms p * 2^sh (64-bit lanes) to the windows: acc[j] gathers t mod 2^64 of window j's terms
// (wrapping), acc[W + j] their (t mod 2^64) div 2^32 and acc[2W + j] their floor(t / 2^64). The first
// sum is exact modulo 2^64 only, but with the second it gives the exact sum of the low 32-bit digits
// (below 2^64): low = acc[j] - acc[W + j] * 2^32 (mod 2^64). That saves one operation per 8 terms.
// Inlined, so that the accumulators stay in registers.
template <int W>
__attribute__((target("avx512f"), always_inline)) inline void accumulate(__m512i (&acc)[3 * W], __m512i p, __m512i sh) {
  const __m512i c63 = _mm512_set1_epi64(63), c64 = _mm512_set1_epi64(64);
  const __m512i s = _mm512_and_si512(sh, c63);
  // t = p * 2^s as 128 bits: t mod 2^64, and floor(t / 2^64) = p >> (64 - s), an arithmetic shift that
  // AVX-512 defines for a count of 64 too (all sign bits: the s = 0 case).
  const __m512i t_low = _mm512_sllv_epi64(p, s);
  const __m512i t_high = _mm512_srav_epi64(p, _mm512_sub_epi64(c64, s));
  const __m512i digit1 = _mm512_srli_epi64(t_low, 32);
  if constexpr (W == 1) {
    acc[0] = _mm512_add_epi64(acc[0], t_low);
    acc[1] = _mm512_add_epi64(acc[1], digit1);
    acc[2] = _mm512_add_epi64(acc[2], t_high);
  } else {
    // Every lane adds into all windows under a mask: no scatter, no conflicts between lanes.
    const __m512i window = _mm512_srli_epi64(sh, 6);
    for (int j = 0; j < W; ++j) {
      const __mmask8 in_j = _mm512_cmpeq_epi64_mask(window, _mm512_set1_epi64(j));
      acc[j] = _mm512_mask_add_epi64(acc[j], in_j, acc[j], t_low);
      acc[W + j] = _mm512_mask_add_epi64(acc[W + j], in_j, acc[W + j], digit1);
      acc[2 * W + j] = _mm512_mask_add_epi64(acc[2 * W + j], in_j, acc[2 * W + j], t_high);
    }
  }
}

// Calls kernel(std::integral_constant<int, W>{}) for the number of 64-bit windows a dot product spans: W
// is a template parameter of both kernels (their accumulators are arrays in registers), 1 to 7 as given and
// 8 for anything else.
template <class Kernel, int... W>
void with_window_count(int windows, const Kernel& kernel, std::integer_sequence<int, W...> /*1..8*/) {
  const int w = windows >= 1 && windows <= 7 ? windows : 8;
  static_cast<void>(((w == W ? (kernel(std::integral_constant<int, W>{}), true) : false) || ...));
}
template <class Kernel>
void with_window_count(int windows, const Kernel& kernel) {
  with_window_count(windows, kernel, std::integer_sequence<int, 1, 2, 3, 4, 5, 6, 7, 8>{});
}

}  // namespace ordo::oracle::dot_kernel
