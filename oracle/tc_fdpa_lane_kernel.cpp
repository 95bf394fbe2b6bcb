// The T-FDPA lane kernel (oracle/tc_fdpa_lanes.h): every (row, column) lane of a tile its own chain of
// steps, with the model's integers (oracle/tc_fdpa_model.h, steps 2-4) reproduced exactly:
//   - an operand is a' * 2^e: e the model's exponent (subnormals at -126, never renormalised), a' its
//     significand in [0, 2) with 7 fraction bits. A product's significand a'b' has 16 bits: exact in FP32;
//   - E is the model's maximum exponent, in integers (zero factors never reach it: kTcZeroExponent);
//   - the model aligns a product to trunc(|a'b'| * 2^q) units of 2^(E - F), with its sign, where
//     q = F - (E - e_a - e_b) <= F. For q >= -30, v = a'b' * 2^q is an exact FP32 value in
//     [2^-44, 2^42); for q < -2 every v is below 1 and truncates to 0, so q is raised to -30 first.
//     The conversion of v to an integer rounds toward zero: sign-magnitude truncation, no sticky bit;
//   - narrow parameters (tc_lane_kernel_is_narrow: sm_80's and sm_90's) sum the product terms in int32,
//     exactly: one term is at most 65025 * 2^(F - 14) (a'b' <= (255/128)^2), L of them stay below 2^31.
//     C's term (mantissa << (F - 23)) >> (E - e_c) is below 2^30, so the step's sum lies in
//     (-2^32, 2^32): its sign and magnitude are recovered from the wrapped 32-bit sum, and the one
//     truncating normalisation is tc_fdpa_model.cpp's round_toward_zero, in 32-bit lanes;
//   - wide parameters split no such hair: each term (below 2^42) is truncated in FP32 and summed in
//     binary64 (exact below 2^53), C's term is trunc(c * 2^(F - E)) in binary64, and the sum times
//     2^(E - F), exact too, is truncated to FP32 on its binary64 bits.
//
// The kernel is written once with GCC vector extensions (portable to Clang) over native vectors of W
// bytes and compiled three times: AVX-512 (x86-64-v4, W = 64), AVX2 (x86-64-v3, W = 32) and the x86-64
// baseline (SSE2, W = 16). Every operation is exact, so the three give the same bits.
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "oracle/tc_fdpa_lanes.h"

namespace ordo::oracle {
namespace {

constexpr int R = kTcRows;
constexpr int J = kTcLanes;

// Native vectors of W bytes (GCC lowers comparisons of vectors wider than the ISA's element by
// element): F, I, U hold W / 4 lanes; D, L the W / 8 lanes of half of them; HF, HI that half.
template <int W>
struct Vec;
#define ORDO_TC_VEC(BYTES)                                           \
  template <>                                                        \
  struct Vec<BYTES> {                                                \
    using F = float __attribute__((vector_size(BYTES)));             \
    using I = std::int32_t __attribute__((vector_size(BYTES)));      \
    using U = std::uint32_t __attribute__((vector_size(BYTES)));     \
    using D = double __attribute__((vector_size(BYTES)));            \
    using L = std::int64_t __attribute__((vector_size(BYTES)));      \
    using HF = float __attribute__((vector_size(BYTES / 2)));        \
    using HI = std::int32_t __attribute__((vector_size(BYTES / 2))); \
  };
ORDO_TC_VEC(64)
ORDO_TC_VEC(32)
ORDO_TC_VEC(16)
#undef ORDO_TC_VEC

// The helpers return vectors but are always inlined into an ISA's entry point: no vector crosses a
// call, so the warning that returning one would differ between ISAs does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
#define ORDO_INLINE inline __attribute__((always_inline))

template <class V>
ORDO_INLINE V load(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The low and high halves of a vector of 32-bit lanes, and two halves joined: register shuffles.
template <int W>
struct Halves;
template <>
struct Halves<64> {
  template <class V> static ORDO_INLINE auto lo(const V& v) { return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7); }
  template <class V> static ORDO_INLINE auto hi(const V& v) { return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15); }
  template <class H> static ORDO_INLINE auto join(const H& a, const H& b) {
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }
};
template <>
struct Halves<32> {
  template <class V> static ORDO_INLINE auto lo(const V& v) { return __builtin_shufflevector(v, v, 0, 1, 2, 3); }
  template <class V> static ORDO_INLINE auto hi(const V& v) { return __builtin_shufflevector(v, v, 4, 5, 6, 7); }
  template <class H> static ORDO_INLINE auto join(const H& a, const H& b) { return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7); }
};
template <>
struct Halves<16> {
  template <class V> static ORDO_INLINE auto lo(const V& v) { return __builtin_shufflevector(v, v, 0, 1); }
  template <class V> static ORDO_INLINE auto hi(const V& v) { return __builtin_shufflevector(v, v, 2, 3); }
  template <class H> static ORDO_INLINE auto join(const H& a, const H& b) { return __builtin_shufflevector(a, b, 0, 1, 2, 3); }
};

template <int W, bool kWide>
struct LaneKernel {
  using F = typename Vec<W>::F;
  using I = typename Vec<W>::I;
  using U = typename Vec<W>::U;
  using D = typename Vec<W>::D;
  using L = typename Vec<W>::L;
  using HF = typename Vec<W>::HF;
  using HI = typename Vec<W>::HI;
  using H = Halves<W>;
  static constexpr int kN = W / 4;  // 32-bit lanes per vector
  static constexpr int G = J / kN;  // vectors per row of the tile

  static ORDO_INLINE I max(const I& a, const I& b) { return a > b ? a : b; }
  static ORDO_INLINE I min(const I& a, const I& b) { return a < b ? a : b; }

  // The model's exponent of C (finite FP32 lanes): the field minus 127, -126 for a subnormal, e_zero for +-0.
  static ORDO_INLINE I c_exponent(const F& c, std::int32_t e_zero) {
    const U u = std::bit_cast<U>(c);
    const I e = max(std::bit_cast<I>((u >> 23) & 0xFFu), I{} + 1) - 127;
    return (u & 0x7FFFFFFFu) == 0u ? I{} + e_zero : e;
  }

  // Narrow epilogue: sum = isum + C's term, then the model's round_toward_zero(sign, |sum|, E - F),
  // all in 32-bit lanes. Sets the overflow mark where |value| >= 2^128 (the model's +-Inf; C then 0).
  static ORDO_INLINE F finish_narrow(const F& c, const I& ec, const I& E, const I& isum, int F_, I& overflow) {
    const U cu = std::bit_cast<U>(c);
    const I c_sign = std::bit_cast<I>(cu) >> 31;  // 0 or -1
    const I hidden = std::bit_cast<I>((cu & 0x7F800000u) != 0u) & 0x800000;
    const I c_mant = std::bit_cast<I>(cu & 0x7FFFFFu) | hidden;
    // C aligned: (mant << (F - 23)) >> (E - e_c), below 2^30; a shift of 31 or more leaves 0.
    I c_term = (c_mant << (F_ - 23)) >> min(E - ec, I{} + 31);
    c_term = (c_term ^ c_sign) - c_sign;
    // The true sum is in (-2^32, 2^32): negative when both terms are, or when they differ in sign (no
    // wrap then) and the wrapped sum is; its magnitude is the wrapped sum or its negation, mod 2^32.
    const U wrapped = std::bit_cast<U>(isum) + std::bit_cast<U>(c_term);
    const I neg = ((isum & c_term) | ((isum ^ c_term) & std::bit_cast<I>(wrapped))) >> 31;
    const U mag = (wrapped ^ std::bit_cast<U>(neg)) - std::bit_cast<U>(neg);
    // The index of mag's leading bit: mag >> 8 (or mag, if that is 0) is below 2^24, an exact FP32 value.
    const U top = mag >> 8;
    const I top_zero = std::bit_cast<I>(top == 0u);
    const F exact = __builtin_convertvector(std::bit_cast<I>(top_zero ? mag : top), F);
    const I msb = (std::bit_cast<I>(exact) >> 23) - 127 + (~top_zero & 8);  // -127 for mag == 0
    // round_toward_zero: |x| in [2^ex, 2^(ex+1)); keep bits from 2^(ex-23) (normal) or 2^-149.
    const I scale = E - F_;
    const I ex = msb + scale;
    const I shift = max(ex, I{} - 126) - 23 - scale;  // mag's bit index of the kept LSB, >= -23
    const U kept = (mag >> std::bit_cast<U>(min(max(shift, I{}), I{} + 31))) << std::bit_cast<U>(max(-shift, I{}));
    const U m = shift > 31 ? U{} : kept;
    const I normal = ex >= -126;
    const I big = ~((ex - 128) >> 31);  // ex >= 128 (as a comparison, GCC 12 lowers this one lane by lane)
    const I field = normal & ((ex + 127) << 23);
    const I bits = std::bit_cast<I>(m & 0x7FFFFFu) | field | (neg & std::int32_t{-0x7FFFFFFF - 1});
    overflow |= big & 1;
    // A sum that truncates to zero (or is zero) is +0.
    return std::bit_cast<F>((m == 0u) | big ? I{} : bits);
  }

  // Wide epilogue, 8 lanes at a time: C's term trunc(c * 2^(F - E)) (an integer from 2^24 up, below it
  // truncated through int32), the binary64 sum, and round_toward_zero on sum * 2^(E - F).
  static ORDO_INLINE D pow2(const L& e) { return std::bit_cast<D>((e + 1023) << 52); }
  static ORDO_INLINE HF finish_wide_half(const HF& c, const HI& E, const D& dsum, int F_, HI& overflow) {
    const L e = __builtin_convertvector(E, L);
    const D x = __builtin_convertvector(c, D) * pow2(F_ - e);
    const L small = std::bit_cast<D>(std::bit_cast<L>(x) & 0x7FFFFFFFFFFFFFFF) < 0x1p24;
    const D c_term = small ? __builtin_convertvector(__builtin_convertvector(small ? x : D{}, HI), D) : x;
    const D v = (dsum + c_term) * pow2(e - F_);
    const L bits = std::bit_cast<L>(v);
    const D mag = std::bit_cast<D>(bits & 0x7FFFFFFFFFFFFFFF);
    const L big = mag >= 0x1p128, normal = mag >= 0x1p-126;
    overflow |= __builtin_convertvector(big, HI) & 1;
    // Normal range: the 24 leading significand bits, an FP32 value ([FLT_MAX, 2^128) -> FLT_MAX).
    const D truncated = std::bit_cast<D>(bits & ~std::int64_t{(1 << 29) - 1});
    // Subnormal range: whole units of 2^-149 through int32 (an integer 0 converts to +0).
    const HI units = __builtin_convertvector(normal ? D{} : v * 0x1p149, HI);
    const D sub = __builtin_convertvector(units, D) * 0x1p-149;
    return __builtin_convertvector(big ? D{} : normal ? truncated : sub, HF);
  }

  // One step of every lane at term k.
  static ORDO_INLINE void step(int L_, int F_, std::int32_t e_zero, const TcTileOperands& t, std::int64_t k,
                               F (&c)[R][G], I (&overflow)[R][G]) {
    // 1. E per lane: C's exponent and every product's e_a + e_b.
    I ec[R][G], E[R][G];
    for (int r = 0; r < R; ++r)
      for (int g = 0; g < G; ++g) E[r][g] = ec[r][g] = c_exponent(c[r][g], e_zero);
    for (int i = 0; i < L_; ++i) {
      I eb[G];
      for (int g = 0; g < G; ++g) eb[g] = load<I>(t.panel_exp + (k + i) * J + g * kN);
      for (int r = 0; r < R; ++r)
        for (int g = 0; g < G; ++g) E[r][g] = max(E[r][g], eb[g] + t.row_exp[r][k + i]);
    }
    // 2. The products' terms trunc(a'b' * 2^max(q, -30)), q = F - E + e_a + e_b: the biased FP32
    // exponent field of 2^q is e_b + e_a + (F + 127 - E).
    I bias[R][G];
    for (int r = 0; r < R; ++r)
      for (int g = 0; g < G; ++g) bias[r][g] = (F_ + 127) - E[r][g];
    I isum[R][G] = {};
    D dsum[R][G][2] = {};
    for (int i = 0; i < L_; ++i) {
      I eb[G];
      F b[G];
      for (int g = 0; g < G; ++g) {
        eb[g] = load<I>(t.panel_exp + (k + i) * J + g * kN);
        b[g] = load<F>(t.panel_sig + (k + i) * J + g * kN);
      }
      for (int r = 0; r < R; ++r)
        for (int g = 0; g < G; ++g) {
          const I q = max((eb[g] + t.row_exp[r][k + i]) + bias[r][g], I{} + (127 - 30));
          const F v = b[g] * t.row_sig[r][k + i] * std::bit_cast<F>(q << 23);
          if constexpr (kWide) {
            // From 2^23 up an FP32 value is an integer; below, trunc through int32.
            const I small = std::bit_cast<F>(std::bit_cast<I>(v) & 0x7FFFFFFF) < 0x1p23f;
            const F tv = small ? __builtin_convertvector(__builtin_convertvector(small ? v : F{}, I), F) : v;
            dsum[r][g][0] += __builtin_convertvector(H::lo(tv), D);
            dsum[r][g][1] += __builtin_convertvector(H::hi(tv), D);
          } else {
            isum[r][g] += __builtin_convertvector(v, I);
          }
        }
    }
    // 3. C's term, the exact sum and the one truncating normalisation.
    for (int r = 0; r < R; ++r)
      for (int g = 0; g < G; ++g) {
        if constexpr (kWide) {
          HI lo = H::lo(overflow[r][g]), hi = H::hi(overflow[r][g]);
          const HF c_lo = finish_wide_half(H::lo(c[r][g]), H::lo(E[r][g]), dsum[r][g][0], F_, lo);
          const HF c_hi = finish_wide_half(H::hi(c[r][g]), H::hi(E[r][g]), dsum[r][g][1], F_, hi);
          c[r][g] = H::join(c_lo, c_hi);
          overflow[r][g] = H::join(lo, hi);
        } else {
          c[r][g] = finish_narrow(c[r][g], ec[r][g], E[r][g], isum[r][g], F_, overflow[r][g]);
        }
      }
  }

  static ORDO_INLINE void steps(const TcFdpaParams& p, std::int32_t e_zero, const TcTileOperands& t, std::int64_t k0,
                                std::int64_t k1, TcLaneState& st) {
    F c[R][G];
    I overflow[R][G];
    for (int r = 0; r < R; ++r)
      for (int g = 0; g < G; ++g) {
        c[r][g] = load<F>(&st.c[r][g * kN]);
        overflow[r][g] = load<I>(&st.overflow[r][g * kN]);
      }
    for (std::int64_t k = k0; k < k1; k += p.L) step(p.L, p.F, e_zero, t, k, c, overflow);
    for (int r = 0; r < R; ++r)
      for (int g = 0; g < G; ++g) {
        std::memcpy(&st.c[r][g * kN], &c[r][g], sizeof c[r][g]);
        std::memcpy(&st.overflow[r][g * kN], &overflow[r][g], sizeof overflow[r][g]);
      }
  }
};

// One entry point per ISA and kind of sum, each compiled for its ISA with the kernel inlined.
#define ORDO_TC_ENTRY(NAME, TARGET, W, WIDE)                                                               \
  TARGET void NAME(const TcFdpaParams& p, std::int32_t e_zero, const TcTileOperands& t, std::int64_t k0, \
                   std::int64_t k1, TcLaneState& st) {                                                     \
    LaneKernel<W, WIDE>::steps(p, e_zero, t, k0, k1, st);                                                \
  }
#define ORDO_V4 __attribute__((target("arch=x86-64-v4")))
#define ORDO_V3 __attribute__((target("arch=x86-64-v3")))
ORDO_TC_ENTRY(steps_avx512, ORDO_V4, 64, false)
ORDO_TC_ENTRY(steps_avx512_wide, ORDO_V4, 64, true)
ORDO_TC_ENTRY(steps_avx2, ORDO_V3, 32, false)
ORDO_TC_ENTRY(steps_avx2_wide, ORDO_V3, 32, true)
ORDO_TC_ENTRY(steps_generic, , 16, false)
ORDO_TC_ENTRY(steps_generic_wide, , 16, true)
#undef ORDO_TC_ENTRY
#undef ORDO_V4
#undef ORDO_V3
#undef ORDO_INLINE

}  // namespace

std::string_view tc_lane_isa_name(TcLaneIsa isa) {
  switch (isa) {
    case TcLaneIsa::avx512: return "avx512 (x86-64-v4)";
    case TcLaneIsa::avx2: return "avx2 (x86-64-v3)";
    case TcLaneIsa::generic: return "generic x86-64 (sse2)";
  }
  return "?";
}

bool tc_lane_isa_supported(TcLaneIsa isa) {
  __builtin_cpu_init();
  switch (isa) {
    case TcLaneIsa::avx512: return __builtin_cpu_supports("x86-64-v4") != 0;
    case TcLaneIsa::avx2: return __builtin_cpu_supports("x86-64-v3") != 0;
    case TcLaneIsa::generic: return true;
  }
  return false;
}

TcLaneIsa tc_lane_isa_best() {
  for (TcLaneIsa isa : {TcLaneIsa::avx512, TcLaneIsa::avx2})
    if (tc_lane_isa_supported(isa)) return isa;
  return TcLaneIsa::generic;
}

TcLaneKernel tc_lane_kernel(TcLaneIsa isa, const TcFdpaParams& p) {
  if (!tc_lane_isa_supported(isa))
    throw std::invalid_argument("tc_lane_kernel: this CPU cannot run " + std::string(tc_lane_isa_name(isa)));
  const bool wide = !tc_lane_kernel_is_narrow(p);
  switch (isa) {
    case TcLaneIsa::avx512: return wide ? steps_avx512_wide : steps_avx512;
    case TcLaneIsa::avx2: return wide ? steps_avx2_wide : steps_avx2;
    case TcLaneIsa::generic: break;
  }
  return wide ? steps_generic_wide : steps_generic;
}

}  // namespace ordo::oracle
