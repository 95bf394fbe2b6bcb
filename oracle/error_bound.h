#pragma once
#include <cstdint>

#include <mpfr.h>

#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {

// A-priori forward error bounds, one per accumulation structure; derivations in
// oracle/error_bounds.md. Every quantity is evaluated with upward rounding, so the computed bound is
// never smaller than the true bound. Common premise: nothing overflows (a finite result from finite
// inputs implies that; the harness judges only that case).
inline constexpr long kBoundPrecisionBits = 128;

// ---- FP32 round-to-nearest structures: FMA chain and blocked accumulation -------------------------

// The number of roundings on the longest path of one term through an FMA chain of length K,
// plus one for a bias added after the chain.
inline std::int64_t fma_chain_roundings(std::int64_t K, bool bias) { return K + (bias ? 1 : 0); }

// bound = ((1+u)^n - 1) * S + n * eta * (1+u)^(n-1), u = 2^-24, eta = 2^-150 (binary32, round to
// nearest). `sum_abs` is S = sum |x_k w_k| (+ |b|), exact. `out` must be initialised by the caller.
// For the FMA chain n = fma_chain_roundings(K, bias). Equals fp32_rounding_error_bound(n, n, ...).
void fma_chain_error_bound(std::int64_t roundings, mpfr_srcptr sum_abs, mpfr_ptr out);

// Blocked accumulation: runs of `block` consecutive terms, each an FMA chain from +0, then the run
// partials added in ascending order (+0 + p_1 is exact, then ceil(K/block) - 1 rounded adds), then
// the optional bias add. Longest path: the first term of the first run,
//   n = min(K, block) + ceil(K/block) - 1  (+1 with the bias),
// which is block + ceil(K/block) - 1 whenever K >= block. K = 0 gives 0 (+1).
std::int64_t blocked_chain_roundings(std::int64_t K, std::int64_t block, bool bias);

// Every rounding of the blocked structure: K FMAs, ceil(K/block) - 1 partial adds (+1 bias add).
// Each may add an absolute underflow error, so this, not the longest path, counts the eta terms:
// with K >= block the underflow part of the bound is not n * eta (see error_bounds.md).
std::int64_t blocked_chain_total_roundings(std::int64_t K, std::int64_t block, bool bias);

// The general FP32 round-to-nearest bound
//   ((1+u)^n - 1) * S + N * eta * (1+u)^(n-1),
// n = longest-path roundings, N = all roundings that may incur an absolute underflow error.
void fp32_rounding_error_bound(std::int64_t longest_path, std::int64_t total_roundings, mpfr_srcptr sum_abs,
                               mpfr_ptr out);

// fp32_rounding_error_bound with the blocked structure's n and N.
void blocked_chain_error_bound(std::int64_t K, std::int64_t block, bool bias, mpfr_srcptr sum_abs, mpfr_ptr out);

// ---- BF16 tensor-core T-FDPA chain (oracle/tc_fdpa_model.h) ------------------------------------

// Number of T-FDPA steps for K products: ceil(K / L).
std::int64_t tc_fdpa_steps(const TcFdpaParams& p, std::int64_t K);

// The alignment weight of one product: |a b| when both factors are normal (or the product is zero),
// else max(|a b|, 2^(e_a + e_b)) with e = -126 for a subnormal factor (the product's exponent in the
// model). It bounds 2^E whenever this product sets a step's E; a subnormal factor makes |a b| as small
// as 2^-7 * 2^E for BF16, which is why S alone cannot bound the alignment loss. Exact in double.
double tc_fdpa_alignment_weight(float a, float b);

struct TcFdpaBoundQuery {
  TcFdpaParams params = tc_fdpa_params_sm90();
  std::int64_t K = 0;
  bool bias = false;         // y = RN_fp32(C_n + b) after the chain
  bool bf16_output = false;  // the FP32 result then cast to BF16 with round to nearest even
  // S = sum_k |x_k w_k| (+ |b| with the bias), exact: the same S as the FMA chain's. Required.
  mpfr_srcptr sum_abs = nullptr;
  // V = sum_k tc_fdpa_alignment_weight(x_k, w_k) (+ |b|), exact; V >= S. nullptr means V = S, which
  // is valid only when no input x_k, w_k is subnormal.
  mpfr_srcptr align_weight = nullptr;
  // |y_hat|, the BF16 output's magnitude: used only with bf16_output. nullptr bounds it via S.
  mpfr_srcptr y_hat_abs = nullptr;
};

// The T-FDPA recurrence's sum over `chains` chains from C = +0 (or an exact C_0 counted in S and V), each
// of at most `steps` steps: (g^n - 1)/(g - 1) * (u S + (1+u) a V + chains * kappa), the terms below.
// tc_fdpa_chain_error_bound is one chain of it; segmented plans are several (oracle/plan_error_bound.cpp).
void tc_fdpa_steps_error_bound(const TcFdpaParams& params, std::int64_t steps, std::int64_t chains, mpfr_srcptr S,
                               mpfr_srcptr V, mpfr_ptr out);

// Error bound of the T-FDPA chain, n = tc_fdpa_steps(K) steps from C = +0, BF16 inputs:
//   a = L 2^-F, u = 2^-23, eta = 2^-149, g = (1+u)(1+a), kappa = (1+u) a 2^-126 + eta
//   B_n = (g^n - 1)/(g - 1) * (u S + (1+u) a V + kappa)
//   bias:   B' = (1 + 2^-24) B_n + 2^-24 S + 2^-150            (else B' = B_n)
//   BF16:   B'' = B' + 2^-8 |y_hat| + 2^-134, or B' + 2^-8 (S + B') + 2^-134 without y_hat
// Throws std::invalid_argument on parameters outside validate_tc_fdpa_params or a null sum_abs.
void tc_fdpa_chain_error_bound(const TcFdpaBoundQuery& q, mpfr_ptr out);

// The last roundings of an output, added in place to the bound B of the value before them (S = sum of the
// terms' magnitudes), upward, for every plan alike:
// a bias added in FP32 after the reduction, y = RN(r + b): B' = (1 + 2^-24) B + 2^-24 S + 2^-150;
void add_bias_rounding_bound(mpfr_ptr bound, mpfr_srcptr sum_abs);
// the output rounded to BF16 (RNE, an 8-bit significand): B' = B + 2^-8 |y_hat| + 2^-134, with |y_hat| taken
// as S + B when `y_hat_abs` is null (|y_fp32| <= |y| + B <= S + B).
void add_bf16_output_rounding_bound(mpfr_ptr bound, mpfr_srcptr sum_abs, mpfr_srcptr y_hat_abs);

}  // namespace ordo::oracle
