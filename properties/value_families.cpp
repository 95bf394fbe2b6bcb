#include "properties/value_families.h"

#include <bit>
#include <cfloat>
#include <cmath>

#include "oracle/tc_fdpa_model.h"

namespace ordo::properties {
namespace {

float make_float(bool negative, int exponent, std::uint32_t fraction) {
  // exponent unbiased in [-126, 127]; fraction = the 23 stored significand bits.
  return std::bit_cast<float>((negative ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(exponent + 127) << 23) |
                              (fraction & 0x7FFFFFu));
}

float normal_in(Rng& rng, int min_exp, int max_exp) {
  return make_float(rng.coin(2), rng.in_range(min_exp, max_exp), static_cast<std::uint32_t>(rng.next()) & 0x7FFFFFu);
}

float pick(Rng& rng, std::initializer_list<float> values) {
  return *(values.begin() + rng.in_range(0, static_cast<int>(values.size()) - 1));
}

// TestFloat's significand patterns: random, a single bit, a run of ones from the top or the bottom,
// all ones.
std::uint32_t structured_fraction(Rng& rng) {
  switch (rng.in_range(0, 5)) {
    case 0:
    case 1: return static_cast<std::uint32_t>(rng.next()) & 0x7FFFFFu;
    case 2: return 1u << rng.in_range(0, 22);
    case 3: { const int n = rng.in_range(1, 23); return ((1u << n) - 1u) << (23 - n); }
    case 4: return (1u << rng.in_range(1, 23)) - 1u;
    default: return 0x7FFFFFu;
  }
}

}  // namespace

std::string_view family_name(ValueFamily f) {
  switch (f) {
    case ValueFamily::uniform: return "uniform";
    case ValueFamily::wide_exponent: return "wide_exponent";
    case ValueFamily::order_2m24: return "order_2^-24";
    case ValueFamily::ties: return "ties";
    case ValueFamily::cancellation: return "cancellation";
    case ValueFamily::swamping: return "swamping";
    case ValueFamily::subnormal: return "subnormal";
    case ValueFamily::signed_zero: return "signed_zero";
    case ValueFamily::overflow_edge: return "overflow_edge";
    case ValueFamily::nan_inf: return "nan_inf";
    case ValueFamily::testfloat: return "testfloat";
    case ValueFamily::gendot: return "gendot";
    case ValueFamily::subnormal_only: return "subnormal_only";
    case ValueFamily::negative_zero: return "negative_zero";
    case ValueFamily::bf16_values: return "bf16_values";
  }
  return "?";
}

const std::vector<ValueFamily>& all_families() {
  static const std::vector<ValueFamily> all{
      ValueFamily::uniform,      ValueFamily::wide_exponent, ValueFamily::order_2m24, ValueFamily::ties,
      ValueFamily::cancellation, ValueFamily::swamping,      ValueFamily::subnormal,  ValueFamily::signed_zero,
      ValueFamily::overflow_edge, ValueFamily::nan_inf,      ValueFamily::testfloat,  ValueFamily::gendot,
      ValueFamily::subnormal_only, ValueFamily::negative_zero, ValueFamily::bf16_values};
  return all;
}

bool family_is_finite_safe(ValueFamily f) { return f != ValueFamily::overflow_edge && f != ValueFamily::nan_inf; }

float sample_value(ValueFamily f, Rng& rng) {
  const float u = std::ldexp(1.0f, -24);
  switch (f) {
    case ValueFamily::uniform:
      return normal_in(rng, -8, -1);
    case ValueFamily::wide_exponent:
      return normal_in(rng, -60, 60);
    case ValueFamily::order_2m24:
      return pick(rng, {1.0f, -1.0f, u, -u, 2 * u, 1.5f * u, 0.0f, 0.5f, -0.5f, 2.0f, 1.0f + 2 * u, -(1.0f + 2 * u)});
    case ValueFamily::ties:
      return pick(rng, {1.0f, 1.0f, 1.0f, u, 3 * u, u / 2, std::ldexp(1.0f, -48), 1.0f + 2 * u, -u, 0.5f, 1.5f,
                        std::ldexp(1.0f, -60), -std::ldexp(1.0f, -60)});
    case ValueFamily::cancellation:
      return normal_in(rng, -20, 20);
    case ValueFamily::swamping:
      return rng.coin(8) ? pick(rng, {1.0f, -1.0f, 16777216.0f}) : normal_in(rng, -26, -24);
    case ValueFamily::subnormal:
      switch (rng.in_range(0, 6)) {
        case 0: case 1: case 2:
          return std::bit_cast<float>((rng.coin(2) ? 0x80000000u : 0u) | (1u + static_cast<std::uint32_t>(rng.next() % 0x7FFFFFu)));
        case 3: case 4: return normal_in(rng, -126, -60);  // products underflow
        case 5: return normal_in(rng, -3, 3);
        default: return pick(rng, {0.0f, -0.0f, std::ldexp(1.0f, -149), std::ldexp(1.0f, -75), FLT_MIN});
      }
    case ValueFamily::signed_zero:
      return rng.coin(5) ? pick(rng, {1.0f, -1.0f, std::ldexp(1.0f, -149)}) : pick(rng, {0.0f, -0.0f});
    case ValueFamily::overflow_edge:
      switch (rng.in_range(0, 4)) {
        case 0: case 1:
          return pick(rng, {FLT_MAX, -FLT_MAX, std::ldexp(1.0f, 64), -std::ldexp(1.0f, 64), std::ldexp(1.0f, 127), 1.0f,
                            -1.0f, 2.0f, 0.0f});
        case 2: case 3: return normal_in(rng, 100, 127);
        default: return normal_in(rng, -4, 4);
      }
    case ValueFamily::nan_inf:
      switch (rng.in_range(0, 9)) {
        case 0: return pick(rng, {INFINITY, -INFINITY});
        case 1:  // a NaN with a random payload and sign: the GPU must still produce 0x7fffffff
          return std::bit_cast<float>((rng.coin(2) ? 0x80000000u : 0u) | 0x7F800000u |
                                      (1u + static_cast<std::uint32_t>(rng.next() % 0x7FFFFFu)));
        default: return normal_in(rng, -8, 8);
      }
    case ValueFamily::testfloat: {
      static constexpr int kExponents[] = {-126, -125, -64, -25, -24, -23, -1, 0, 1, 23, 24, 25, 40};
      const int e = kExponents[rng.in_range(0, static_cast<int>(std::size(kExponents)) - 1)];
      return make_float(rng.coin(2), e, structured_fraction(rng));
    }
    case ValueFamily::gendot:
      return normal_in(rng, -8, 8);  // rows other than row 0; row 0 is rebuilt by impose_gendot
    case ValueFamily::subnormal_only:
      return std::bit_cast<float>((rng.coin(2) ? 0x80000000u : 0u) | (1u + static_cast<std::uint32_t>(rng.next() % 0x7FFFFFu)));
    case ValueFamily::negative_zero:
      return std::fabs(normal_in(rng, -8, 8));  // signs and zeros are imposed on the whole problem
    case ValueFamily::bf16_values:
      return oracle::round_to_bf16(normal_in(rng, -60, 60));
  }
  return 0.0f;
}

const std::vector<float>& simple_values() {
  static const std::vector<float> values{0.0f, 1.0f, -1.0f, 2.0f, 0.5f, -0.0f};
  return values;
}

}  // namespace ordo::properties
