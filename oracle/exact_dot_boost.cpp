#include "oracle/exact_dot_boost.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <ios>
#include <limits>
#include <sstream>
#include <vector>

#include "core/float_bits.h"

namespace ordo::oracle {
namespace {

using Kind = BoostExactValue::Kind;

// |f| = significand * 2^exponent for finite non-zero f, significand in [2^23, 2^24). std::frexp
// normalises subnormals too, so their significands carry trailing zeros and their exponents go below
// -149: the scaled product may then need a right shift, which is exact (checked below).
struct Split {
  std::uint32_t significand;
  int exponent;
};

Split split(float f) {
  int e = 0;
  const float fraction = std::frexp(std::fabs(f), &e);  // in [1/2, 1)
  return {static_cast<std::uint32_t>(std::ldexp(fraction, 24)), e - 24};
}

// significand * 2^exponent in units of 2^-298. A product or addend of binary32 values is a multiple of
// 2^-298, so a right shift only drops zero bits; the assert checks exactly that claim of docs/numerics.md §3.
BoostExactInt to_units(std::uint64_t significand, int exponent) {
  BoostExactInt v = significand;
  const int shift = exponent - kBoostLsbExponent;
  if (shift >= 0) return v << shift;
  assert(static_cast<int>(boost::multiprecision::lsb(v)) >= -shift);
  return v >> -shift;
}

struct Format {
  int precision;          // significant bits, the hidden one included
  int min_lsb_exponent;   // the exponent of the smallest subnormal
  int overflow_exponent;  // a rounded magnitude >= 2^this is +-Inf
};
constexpr Format kBinary32{24, -149, 128};
constexpr Format kBfloat16{8, -133, 128};
constexpr Format kBinary64{53, -1074, 1024};

struct Rounded {
  bool overflow = false;
  std::uint64_t significand = 0;  // < 2^precision
  int lsb_exponent = 0;           // the result is significand * 2^lsb_exponent
};

// Rounds magnitude * 2^-298 (magnitude > 0) to nearest, ties to even, in format f: the kept bits are those
// at and above the result's lsb, which is precision - 1 bits below the msb, or the format's smallest
// subnormal exponent if that is higher; the rest is compared with half an ulp of the result.
Rounded round_magnitude(const BoostExactInt& magnitude, Format f) {
  const int msb_exponent = static_cast<int>(boost::multiprecision::msb(magnitude)) + kBoostLsbExponent;
  const int lsb_exponent = std::max(msb_exponent - (f.precision - 1), f.min_lsb_exponent);
  const int dropped = lsb_exponent - kBoostLsbExponent;  // low bits that do not fit
  Rounded r;
  if (dropped <= 0) {  // at most `precision` bits above the unit: exact (binary64 only; its e_min is below -298)
    r.significand = magnitude.convert_to<std::uint64_t>();
    r.lsb_exponent = kBoostLsbExponent;
    return r;
  }
  BoostExactInt kept = magnitude >> dropped;
  const BoostExactInt rest = magnitude - (kept << dropped);
  const BoostExactInt half = BoostExactInt(1) << (dropped - 1);
  if (rest > half || (rest == half && boost::multiprecision::bit_test(kept, 0))) ++kept;
  r.lsb_exponent = lsb_exponent;
  if (kept == 0) return r;  // below half the smallest subnormal: a zero of the value's sign
  if (boost::multiprecision::msb(kept) == static_cast<unsigned>(f.precision)) {  // rounded up to 2^precision
    kept >>= 1;
    ++r.lsb_exponent;
  }
  r.overflow = static_cast<int>(boost::multiprecision::msb(kept)) + r.lsb_exponent >= f.overflow_exponent;
  r.significand = kept.convert_to<std::uint64_t>();
  return r;
}

// The special cases shared by every format; returns false for a finite non-zero value.
template <class T>
bool special(const BoostExactValue& v, T nan, T& out) {
  switch (v.kind) {
    case Kind::nan:
      out = nan;
      return true;
    case Kind::pos_inf:
      out = std::numeric_limits<T>::infinity();
      return true;
    case Kind::neg_inf:
      out = -std::numeric_limits<T>::infinity();
      return true;
    case Kind::finite:
      break;
  }
  if (v.scaled != 0) return false;
  out = v.negative_zero ? -T(0) : T(0);
  return true;
}

template <class T>
T round_to(const BoostExactValue& v, Format f, T nan) {
  T out;
  if (special(v, nan, out)) return out;
  const Rounded r = round_magnitude(boost::multiprecision::abs(v.scaled), f);
  // significand < 2^precision converts exactly, and significand * 2^lsb_exponent is representable.
  const T magnitude =
      r.overflow ? std::numeric_limits<T>::infinity() : std::ldexp(static_cast<T>(r.significand), r.lsb_exponent);
  return v.scaled < 0 ? -magnitude : magnitude;
}

}  // namespace

BoostExactValue boost_exact_dot(const float* x, const float* w, std::int64_t K, std::optional<float> bias) {
  bool nan = false, pos_inf = false, neg_inf = false;
  bool any_term = false, all_negative_zero = true;
  BoostExactInt sum = 0;
  // One term (a product or the bias): its sign and class, and how to get its magnitude in units, which is
  // asked only of a finite non-zero term.
  auto add = [&](bool negative, bool is_nan, bool is_inf, bool is_zero, auto to_units_magnitude) {
    any_term = true;
    if (is_nan)
      nan = true;
    else if (is_inf)
      (negative ? neg_inf : pos_inf) = true;
    else if (is_zero)
      all_negative_zero = all_negative_zero && negative;
    else {
      all_negative_zero = false;
      if (negative)
        sum -= to_units_magnitude();
      else
        sum += to_units_magnitude();
    }
  };
  for (std::int64_t k = 0; k < K; ++k) {
    const float a = x[k], b = w[k];
    const bool zero = a == 0 || b == 0, inf = std::isinf(a) || std::isinf(b);
    add(std::signbit(a) != std::signbit(b), std::isnan(a) || std::isnan(b) || (inf && zero), inf, zero, [&] {
      const Split sa = split(a), sb = split(b);
      return to_units(static_cast<std::uint64_t>(sa.significand) * sb.significand, sa.exponent + sb.exponent);
    });
  }
  if (bias) {
    const float b = *bias;
    add(std::signbit(b), std::isnan(b), std::isinf(b), b == 0, [&] {
      const Split sb = split(b);
      return to_units(sb.significand, sb.exponent);
    });
  }
  BoostExactValue v;
  if (nan || (pos_inf && neg_inf))
    v.kind = Kind::nan;
  else if (pos_inf || neg_inf)
    v.kind = pos_inf ? Kind::pos_inf : Kind::neg_inf;
  else {
    v.scaled = sum;
    v.negative_zero = sum == 0 && any_term && all_negative_zero;
  }
  return v;
}

float boost_round_to_float(const BoostExactValue& v) { return round_to(v, kBinary32, canonical_nan()); }
float boost_round_to_bf16(const BoostExactValue& v) { return round_to(v, kBfloat16, canonical_nan()); }
double boost_round_to_double(const BoostExactValue& v) {
  return round_to(v, kBinary64, std::numeric_limits<double>::quiet_NaN());
}

std::optional<BoostExactValue> boost_exact_from_mpfr(mpfr_srcptr v) {
  BoostExactValue r;
  if (mpfr_nan_p(v)) {
    r.kind = Kind::nan;
    return r;
  }
  if (mpfr_inf_p(v)) {
    r.kind = mpfr_signbit(v) ? Kind::neg_inf : Kind::pos_inf;
    return r;
  }
  if (mpfr_zero_p(v)) {
    r.negative_zero = mpfr_signbit(v) != 0;
    return r;
  }
  mpfr_t units;
  mpfr_init2(units, mpfr_get_prec(v));
  mpfr_mul_2si(units, v, -kBoostLsbExponent, MPFR_RNDN);  // exact: only the exponent changes
  const bool integral = mpfr_integer_p(units) != 0;
  mpz_t z;
  mpz_init(z);
  if (integral) mpfr_get_z(z, units, MPFR_RNDN);
  mpfr_clear(units);
  const bool fits = integral && mpz_sizeinbase(z, 2) <= 640;
  if (fits) {  // the magnitude's bytes, most significant first, into the Boost integer
    std::vector<unsigned char> bytes((mpz_sizeinbase(z, 2) + 7) / 8);
    std::size_t count = 0;
    mpz_export(bytes.data(), &count, 1, 1, 1, 0, z);
    boost::multiprecision::import_bits(r.scaled, bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(count));
    if (mpz_sgn(z) < 0) r.scaled = -r.scaled;
  }
  mpz_clear(z);
  if (!fits) return std::nullopt;
  return r;
}

std::string describe_exact(const BoostExactValue& v) {
  switch (v.kind) {
    case Kind::nan:
      return "NaN";
    case Kind::pos_inf:
      return "+Inf";
    case Kind::neg_inf:
      return "-Inf";
    case Kind::finite:
      break;
  }
  if (v.scaled == 0) return v.negative_zero ? "-0" : "+0";
  std::ostringstream s;
  s << (v.scaled < 0 ? "-0x" : "0x") << boost::multiprecision::abs(v.scaled).str(0, std::ios_base::hex) << " * 2^"
    << kBoostLsbExponent << " (~ " << std::hexfloat << boost_round_to_double(v) << ")";
  return s.str();
}

}  // namespace ordo::oracle
