#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ordo::properties {

// Families of operand values, each aimed at one way a reduction order or a rounding shows itself
// (shared/design numerics §5; TestFloat's exponent-table x significand-pattern scheme for `testfloat`).
// RapidCheck's own float generator never yields NaN, Inf, -0 or subnormals, so every value here is
// built from sign, exponent and significand fields.
enum class ValueFamily {
  uniform,        // |v| in [2^-8, 1), random significand: the everyday case
  wide_exponent,  // exponents over +-60: products span 2^-120..2^120, partial sums swamp each other
  order_2m24,     // 1, -1, 2^-24 and friends: an FMA chain gives 0 in one order, 2^-24 in another
  ties,           // sums landing exactly on rounding ties (1 + 2^-24, 1 + 3*2^-24, 2^-24 + 2^-48), and just
                  // beside them by +-2^-60, below binary64's last bit (rounding once then differs from
                  // rounding through binary64); output (0, 0) is always such a sum (forward_case.cpp)
  cancellation,   // column pairs whose products cancel exactly, leaving a small remainder
  swamping,       // one large leading term, then long runs of terms near its half-ulp
  subnormal,      // subnormal operands and products that underflow binary32
  signed_zero,    // mostly +-0: the sign of zero results
  overflow_edge,  // magnitudes near FLT_MAX, products near 2^128 (Inf, Inf - Inf = NaN)
  nan_inf,        // NaN (any payload, either sign) and +-Inf among ordinary values
  testfloat,      // exponent table x significand patterns (single bits, runs of ones, all ones)
  gendot,         // row 0 x row 0 is an ill-conditioned dot product, condition number up to 1e30
                  // (Ogita, Rump, Oishi, "Accurate sum and dot product", SISC 2005, Algorithm 6.1)
  subnormal_only, // every operand subnormal: every product lies below 2^-252
  negative_zero,  // every product -0 (and a -0 bias), or all but one: the sign of an exact zero
  bf16_values,    // every value exactly representable in bfloat16 (8-bit significand)
};

std::string_view family_name(ValueFamily f);
const std::vector<ValueFamily>& all_families();
// Families whose inputs are finite and whose partial sums stay far from overflow.
bool family_is_finite_safe(ValueFamily f);

// A small, fast, seedable generator (SplitMix64): cases of millions of values are materialised from
// one 64-bit seed, so RapidCheck shrinks shapes and seeds, not millions of floats.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // uniform in [lo, hi]
  int in_range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
  bool coin(unsigned one_in) { return next() % one_in == 0; }

 private:
  std::uint64_t state_;
};

// One value of a family.
float sample_value(ValueFamily f, Rng& rng);

// The values a minimised counterexample is simplified towards, simplest first.
const std::vector<float>& simple_values();

}  // namespace ordo::properties
