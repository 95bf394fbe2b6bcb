#pragma once
// An exact engine as a subject: what the exact oracle's self-check (exact.superacc_vs_mpfr, MPFR the
// judge) runs against, so that a defect can be planted in an engine (the self-test's oracle mutants)
// without touching the oracle itself. The production engine is the superaccumulator.
#include <mpfr.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ordo {

// The three read-outs of one exact value, each one rounding to nearest even.
struct ExactReadouts {
  float f32 = 0;
  float bf16 = 0;  // the float of equal value
  double f64 = 0;
};

class ExactEngine {
 public:
  virtual ~ExactEngine() = default;
  virtual const std::string& id() const = 0;
  virtual const std::string& description() const = 0;
  virtual bool is_mutant() const { return false; }
  // sum_k a[k] b[k] (+ bias), exactly: the value into `exact` (at least kExactPrecisionBits + 64 bits; NaN
  // for a NaN result, signed infinities and zeros as the policy of oracle/superaccumulator.h says), and
  // its read-outs.
  virtual ExactReadouts dot(const float* a, const float* b, std::int64_t K, std::optional<float> bias,
                            mpfr_ptr exact) = 0;
};

// oracle::Superaccumulator, exactly as the oracle uses it.
std::unique_ptr<ExactEngine> make_superaccumulator_engine();

}  // namespace ordo
