#include "oracle/error_bound.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/float_bits.h"
#include "oracle/mpfr_value.h"

namespace ordo::oracle {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// 1 + 2^-k, exact at kBoundPrecisionBits.
void set_one_plus_pow2(mpfr_ptr v, long k) {
  mpfr_set_ui_2exp(v, 1, -k, MPFR_RNDU);
  mpfr_add_ui(v, v, 1, MPFR_RNDU);
}

}  // namespace

void fp32_rounding_error_bound(std::int64_t longest_path, std::int64_t total_roundings, mpfr_srcptr sum_abs,
                               mpfr_ptr out) {
  const unsigned long n = static_cast<unsigned long>(longest_path);
  MpfrValue one_plus_u(kBoundPrecisionBits), growth(kBoundPrecisionBits), gamma(kBoundPrecisionBits),
      underflow(kBoundPrecisionBits);
  // 1 + 2^-24 is exact at 128 bits; the powers are rounded up.
  set_one_plus_pow2(one_plus_u.get(), 24);
  // gamma_n = (1+u)^n - 1
  mpfr_pow_ui(gamma.get(), one_plus_u.get(), n, MPFR_RNDU);
  mpfr_sub_ui(gamma.get(), gamma.get(), 1, MPFR_RNDU);
  // N * eta * (1+u)^(n-1)
  mpfr_pow_ui(growth.get(), one_plus_u.get(), n == 0 ? 0 : n - 1, MPFR_RNDU);
  mpfr_mul_ui(underflow.get(), growth.get(), static_cast<unsigned long>(total_roundings), MPFR_RNDU);
  mpfr_mul_2si(underflow.get(), underflow.get(), -150, MPFR_RNDU);
  mpfr_mul(out, gamma.get(), sum_abs, MPFR_RNDU);
  mpfr_add(out, out, underflow.get(), MPFR_RNDU);
}

void fma_chain_error_bound(std::int64_t roundings, mpfr_srcptr sum_abs, mpfr_ptr out) {
  // In a chain every rounding lies on the longest path: N = n.
  fp32_rounding_error_bound(roundings, roundings, sum_abs, out);
}

std::int64_t blocked_chain_roundings(std::int64_t K, std::int64_t block, bool bias) {
  if (block < 1) throw std::invalid_argument("blocked_chain_roundings: block must be >= 1");
  const std::int64_t b = bias ? 1 : 0;
  if (K <= 0) return b;
  return std::min(K, block) + ceil_div(K, block) - 1 + b;
}

std::int64_t blocked_chain_total_roundings(std::int64_t K, std::int64_t block, bool bias) {
  if (block < 1) throw std::invalid_argument("blocked_chain_total_roundings: block must be >= 1");
  const std::int64_t b = bias ? 1 : 0;
  if (K <= 0) return b;
  return K + ceil_div(K, block) - 1 + b;
}

void blocked_chain_error_bound(std::int64_t K, std::int64_t block, bool bias, mpfr_srcptr sum_abs, mpfr_ptr out) {
  fp32_rounding_error_bound(blocked_chain_roundings(K, block, bias), blocked_chain_total_roundings(K, block, bias),
                            sum_abs, out);
}

std::int64_t tc_fdpa_steps(const TcFdpaParams& p, std::int64_t K) {
  validate_tc_fdpa_params(p);
  return K <= 0 ? 0 : ceil_div(K, p.L);
}

double tc_fdpa_alignment_weight(float a, float b) {
  // BF16/FP32 products are exact in double (<= 48 significant bits, exponent >= -298).
  const double product = std::fabs(static_cast<double>(a) * static_cast<double>(b));
  if (product == 0 || !std::isfinite(product)) return product;
  const auto exponent = [](float f) {
    const int field = static_cast<int>((bits_of(f) >> 23) & 0xFFu);
    return field == 0 ? -126 : field - 127;
  };
  const bool subnormal_factor = ((bits_of(a) >> 23) & 0xFFu) == 0 || ((bits_of(b) >> 23) & 0xFFu) == 0;
  if (!subnormal_factor) return product;  // significands >= 1 each: |a b| >= 2^(e_a+e_b) already
  return std::fmax(product, std::ldexp(1.0, exponent(a) + exponent(b)));
}

void tc_fdpa_steps_error_bound(const TcFdpaParams& params, std::int64_t steps, std::int64_t chains, mpfr_srcptr S,
                               mpfr_srcptr V, mpfr_ptr out) {
  validate_tc_fdpa_params(params);
  const mpfr_prec_t prec = kBoundPrecisionBits;
  // a = L 2^-F: per step, the L terms that do not set E each lose < 2^(E-F) (the one that sets E is
  // exact: F >= 23). u, eta: one FP32 truncation. All exact at 128 bits.
  MpfrValue a(prec), u(prec), one_plus_u(prec), g(prec), g_minus_1(prec), geo(prec), tmp(prec), per_step(prec);
  mpfr_set_ui_2exp(a.get(), static_cast<unsigned long>(params.L), -params.F, MPFR_RNDU);
  mpfr_set_ui_2exp(u.get(), 1, -23, MPFR_RNDU);
  set_one_plus_pow2(one_plus_u.get(), 23);
  // g = (1+u)(1+a) = 1 + u + a + ua: bits from 2^0 down to 2^-(23+F), exact; so is g - 1, which
  // divides below and therefore must not be rounded up.
  mpfr_add_ui(g.get(), a.get(), 1, MPFR_RNDU);
  mpfr_mul(g.get(), g.get(), one_plus_u.get(), MPFR_RNDU);
  mpfr_sub_ui(g_minus_1.get(), g.get(), 1, MPFR_RNDD);
  // (g^n - 1) / (g - 1) = sum_{j<n} g^j, rounded up.
  mpfr_pow_ui(geo.get(), g.get(), static_cast<unsigned long>(steps), MPFR_RNDU);
  mpfr_sub_ui(geo.get(), geo.get(), 1, MPFR_RNDU);
  mpfr_div(geo.get(), geo.get(), g_minus_1.get(), MPFR_RNDU);
  // per step: u S + (1+u) a V + chains * kappa, kappa = (1+u) a 2^-126 + 2^-149 (each chain's steps
  // add their own kappa; S and V are shared out among the chains).
  mpfr_mul(per_step.get(), u.get(), S, MPFR_RNDU);
  mpfr_mul(tmp.get(), one_plus_u.get(), a.get(), MPFR_RNDU);
  mpfr_mul(tmp.get(), tmp.get(), V, MPFR_RNDU);
  mpfr_add(per_step.get(), per_step.get(), tmp.get(), MPFR_RNDU);
  MpfrValue kappa(prec);
  mpfr_mul(kappa.get(), one_plus_u.get(), a.get(), MPFR_RNDU);
  mpfr_mul_2si(kappa.get(), kappa.get(), -126, MPFR_RNDU);
  mpfr_set_ui_2exp(tmp.get(), 1, -149, MPFR_RNDU);
  mpfr_add(kappa.get(), kappa.get(), tmp.get(), MPFR_RNDU);
  mpfr_mul_ui(kappa.get(), kappa.get(), static_cast<unsigned long>(chains), MPFR_RNDU);
  mpfr_add(per_step.get(), per_step.get(), kappa.get(), MPFR_RNDU);
  mpfr_mul(out, geo.get(), per_step.get(), MPFR_RNDU);
}

void tc_fdpa_chain_error_bound(const TcFdpaBoundQuery& q, mpfr_ptr out) {
  validate_tc_fdpa_params(q.params);
  if (q.sum_abs == nullptr) throw std::invalid_argument("tc_fdpa_chain_error_bound: sum_abs is required");
  const mpfr_prec_t prec = kBoundPrecisionBits;
  mpfr_srcptr S = q.sum_abs;
  mpfr_srcptr V = q.align_weight != nullptr ? q.align_weight : q.sum_abs;
  MpfrValue bound(prec);
  tc_fdpa_steps_error_bound(q.params, tc_fdpa_steps(q.params, q.K), 1, S, V, bound.get());
  // y = RN(C_n + b): |y - (s + b)| <= (1 + u') B_n + u' (S_products + |b|) + eta'.
  if (q.bias) add_bias_rounding_bound(bound.get(), S);
  if (q.bf16_output) add_bf16_output_rounding_bound(bound.get(), S, q.y_hat_abs);
  mpfr_set(out, bound.get(), MPFR_RNDU);
}

void add_bias_rounding_bound(mpfr_ptr bound, mpfr_srcptr sum_abs) {
  MpfrValue tmp(kBoundPrecisionBits);
  set_one_plus_pow2(tmp.get(), 24);
  mpfr_mul(bound, bound, tmp.get(), MPFR_RNDU);
  mpfr_mul_2si(tmp.get(), sum_abs, -24, MPFR_RNDU);
  mpfr_add(bound, bound, tmp.get(), MPFR_RNDU);
  mpfr_set_ui_2exp(tmp.get(), 1, -150, MPFR_RNDU);
  mpfr_add(bound, bound, tmp.get(), MPFR_RNDU);
}

void add_bf16_output_rounding_bound(mpfr_ptr bound, mpfr_srcptr sum_abs, mpfr_srcptr y_hat_abs) {
  // RNE to BF16 (8-bit significand): error <= 2^-8 |y_hat| in the normal range, <= 2^-134 below.
  MpfrValue tmp(kBoundPrecisionBits);
  if (y_hat_abs != nullptr) {
    mpfr_mul_2si(tmp.get(), y_hat_abs, -8, MPFR_RNDU);
  } else {
    // |y_fp32| <= |y| + B' <= S + B', and RN's error is <= 2^-8 of its argument too.
    mpfr_add(tmp.get(), sum_abs, bound, MPFR_RNDU);
    mpfr_mul_2si(tmp.get(), tmp.get(), -8, MPFR_RNDU);
  }
  mpfr_add(bound, bound, tmp.get(), MPFR_RNDU);
  mpfr_set_ui_2exp(tmp.get(), 1, -134, MPFR_RNDU);
  mpfr_add(bound, bound, tmp.get(), MPFR_RNDU);
}

}  // namespace ordo::oracle
