#pragma once
#include <cstdint>
#include <optional>

#include <mpfr.h>

namespace ordo::oracle {

// The judge among the exact engines: MPFR, deliberately simple. sum = sum_k x[k] * w[k] (+ bias), each
// product formed exactly in binary64 (a binary32 product has <= 48 significant bits and lies in
// [2^-298, 2^256)) and added at kExactPrecisionBits, asserting that no addition rounds. The sum starts
// from the first term, not from +0, so that the sign of an exact zero follows IEEE addition of the
// terms (-0 only if all are -0) and NaN/Inf follow MPFR's IEEE rules (Inf * 0 and Inf - Inf are NaN):
// the policy documented in superaccumulator.h. `sum_abs`, if given, receives sum |x[k] w[k]| (+ |bias|).
void mpfr_exact_dot(const float* x, const float* w, std::int64_t K, std::optional<float> bias, mpfr_ptr sum,
                    mpfr_ptr sum_abs = nullptr);

// Correct rounding of an exact value, written independently of the superaccumulator's integer code:
// binary32 through mpfr_get_flt; bfloat16 by rounding to the precision the value's binade allows
// (8 bits, fewer below 2^-126); both round to nearest even and overflow to +-Inf. NaN -> 0x7fffffff.
float mpfr_round_to_float(mpfr_srcptr v);
float mpfr_round_to_bf16(mpfr_srcptr v);

// The exact value's precision: FP32 products lie in [2^-298, 2^256) and the bias in [2^-149, 2^128),
// so a sum of K < 2^32 of them fits in 554 + 32 + 1 bits of fixed point; 640 leaves margin.
inline constexpr long kExactPrecisionBits = 640;

}  // namespace ordo::oracle
