#pragma once
#include <cstdint>

#include <mpfr.h>

namespace ordo::oracle {

// A-priori forward error bounds for recursive FP32 summation structures; derivation in
// oracle/error_bounds.md. Every quantity is evaluated with upward rounding, so the computed bound is
// never smaller than the true bound.
inline constexpr long kBoundPrecisionBits = 128;

// The number of roundings on the longest path of one term through an FMA chain of length K,
// plus one for a bias added after the chain.
inline std::int64_t fma_chain_roundings(std::int64_t K, bool bias) { return K + (bias ? 1 : 0); }

// bound = ((1+u)^n - 1) * S + n * eta * (1+u)^(n-1), u = 2^-24, eta = 2^-150 (binary32, round to
// nearest). `sum_abs` is S = sum |x_k w_k| (+ |b|), exact. `out` must be initialised by the caller.
void fma_chain_error_bound(std::int64_t roundings, mpfr_srcptr sum_abs, mpfr_ptr out);

}  // namespace ordo::oracle
