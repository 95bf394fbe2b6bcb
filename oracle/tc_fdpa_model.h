#pragma once
#include <cstdint>

namespace ordo::oracle {

// Host model of the BF16 tensor-core "truncated fused dot-product-add" (T-FDPA), written from the
// published description in docs/numerics.md §2 (MMA-Sim, Khattak & Mikaitis, Fasi et al.).
// One step fuses L exact products and the FP32 accumulator C:
//   1. special values first: any NaN, Inf*0, or +Inf and -Inf both present -> NaN (0x7FFFFFFF);
//      any other Inf -> that Inf;
//   2. every product is exact, unnormalised (significand in [0,4)) with exponent e_a + e_b;
//      subnormal inputs decompose with e = -126; a zero product or a zero C gets exponent e_zero;
//   3. E = max exponent over the products and C; every term is truncated toward zero to F fraction
//      bits relative to 2^E (sign-magnitude, no sticky bit); the integers are summed exactly;
//   4. the sum is normalised once and rounded toward zero to FP32 (subnormals kept).
struct TcFdpaParams {
  int L;       // products fused per step
  int F;       // fraction bits kept relative to 2^E
  int e_zero;  // exponent given to a zero product or a zero accumulator
};

// docs/numerics.md §2 table. sm_90's set reproduced 2.56M mma.sync and 196,608 wgmma outputs on an H200.
inline constexpr TcFdpaParams tc_fdpa_params_sm80() { return {8, 24, -132}; }
inline constexpr TcFdpaParams tc_fdpa_params_sm90() { return {16, 25, -133}; }

// Throws std::invalid_argument unless 1 <= L <= 64, 23 <= F <= 40 and e_zero <= -126: the range in
// which the model's 64-bit integer sum is exact and error_bound.cpp's derivation holds (F >= 23
// keeps C's 23 fraction bits, so the term that sets E is never truncated).
void validate_tc_fdpa_params(const TcFdpaParams& p);

// One T-FDPA step: C' = T-FDPA(a[0..n) * b[0..n), c). a[i], b[i] are BF16 values held in floats
// (any FP32 value is handled exactly, but only BF16 inputs model the hardware). 0 <= n <= p.L; the
// missing products are zero products, which never change E (see tc_fdpa_model.cpp), so a short step
// equals a zero-padded one.
//
// Signed zeros: an exact zero sum gives +0 whatever the signs of the terms (docs/numerics.md §2: the
// hardware's sign of an exact zero, as `ordo probe` measured it on an H200). A non-zero sum that
// truncates to zero is +0 too (not -0, as IEEE round-toward-zero would give): measured on an H200.
// Overflow: a sum with |x| >= 2^128 gives +-Inf, following docs/numerics.md §2, although IEEE
// round-toward-zero would give +-FLT_MAX; values in [FLT_MAX, 2^128) truncate to FLT_MAX.
float tc_fdpa_step(const TcFdpaParams& p, const float* a, const float* b, int n, float c);

// One output of a BF16 tensor-core GEMM as one chain of steps: C = +0, then for k0 = 0, L, 2L, ...:
// C = tc_fdpa_step(x[k0 .. k0+L), w[k0 .. k0+L), C). The last step of a K that is not a multiple of
// L is padded with zero products (+0 * +0), as a kernel's zero-filled K tail does.
float tc_fdpa_chain(const TcFdpaParams& p, const float* x, const float* w, std::int64_t K);

// FP32 -> BF16 with round to nearest even (the cvt.rn.bf16.f32 conversion), returned as a float
// whose low 16 bits are zero. Overflow rounds to +-Inf. Every NaN becomes BF16 0x7FFF (float bits
// 0x7FFF0000), the NaN cuda_bf16.hpp's __float2bfloat16_rn returns.
float round_to_bf16(float f);

// Whether f is exactly representable in bfloat16 (low 16 bits zero), NaN excluded.
bool is_bf16_value(float f);

}  // namespace ordo::oracle
