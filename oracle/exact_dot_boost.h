#pragma once
#include <mpfr.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace ordo::oracle {

// The third exact engine, written apart from the other two so that a bug shared by them is unlikely
// to be shared by this one too: sum = sum_k x[k] * w[k] (+ bias) as a Boost.Multiprecision integer in
// units of 2^-298 (every binary32 product is an integer multiple of it, docs/numerics.md §3). Operands are taken
// apart with std::frexp (not by their bits, as the superaccumulator does), products are formed as
// integers (not in binary64, as the MPFR engine does), and the read-outs round from the integer with
// their own round-to-nearest-even code (not MPFR's, not the superaccumulator's).
//
// Special values and zeros follow the policy of superaccumulator.h and exact_dot_mpfr.h: NaN if any
// operand is NaN, a product is Inf * 0, or +Inf and -Inf terms both occur; else +-Inf if Inf terms of
// one sign occur; an exact zero is -0 only if there is a term and every term is -0.

// 640 bits of magnitude: products are below 2^256 = 2^554 units and K < 2^32 of them plus a bias need
// 587. Fixed width (no allocation per term) and checked: an overflow throws rather than wraps, the
// precision argument asserted as the MPFR engine asserts its ternary values.
using BoostExactInt = boost::multiprecision::number<
    boost::multiprecision::cpp_int_backend<640, 640, boost::multiprecision::signed_magnitude,
                                           boost::multiprecision::checked, void>,
    boost::multiprecision::et_off>;

inline constexpr int kBoostLsbExponent = -298;  // the value of one unit of BoostExactValue::scaled

struct BoostExactValue {
  enum class Kind { finite, nan, pos_inf, neg_inf };
  Kind kind = Kind::finite;
  BoostExactInt scaled = 0;    // finite: the value is scaled * 2^-298
  bool negative_zero = false;  // finite and scaled == 0 only: the zero is -0

  bool operator==(const BoostExactValue& o) const {
    return kind == o.kind && (kind != Kind::finite || (scaled == o.scaled && negative_zero == o.negative_zero));
  }
};

BoostExactValue boost_exact_dot(const float* x, const float* w, std::int64_t K, std::optional<float> bias);

// Round to nearest, ties to even, once, from the integer: binary32 and bfloat16 (returned as the float of
// equal value) with their subnormals and overflow to +-Inf at 2^128; binary64 (every finite sum lies in
// its normal range). NaN -> 0x7fffffff for the float formats, a quiet NaN for binary64.
float boost_round_to_float(const BoostExactValue& v);
float boost_round_to_bf16(const BoostExactValue& v);
double boost_round_to_double(const BoostExactValue& v);

// MPFR's value in this engine's representation, for comparing exact values; nullopt when it is not an
// integer multiple of 2^-298 or too large for BoostExactInt (then it equals no value of this engine).
std::optional<BoostExactValue> boost_exact_from_mpfr(mpfr_srcptr v);

// "NaN", "+Inf", "-0", or the exact value as "-0x1f * 2^-298 (~ -0x1.fp-294)".
std::string describe_exact(const BoostExactValue& v);

}  // namespace ordo::oracle
