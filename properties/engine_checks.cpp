#include "properties/engine_checks.h"

#include <sstream>

#include "core/float_bits.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "properties/exact_compare.h"

namespace ordo::properties {

CheckResult check_engine_equals_mpfr(ExactEngine& engine, const ForwardCase& c) {
  const ForwardProblem p = c.materialize();
  CheckResult r;
  oracle::MpfrValue judge(oracle::kExactPrecisionBits), value(oracle::kExactPrecisionBits + 64);
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) {
      const float *x = p.x_row(m), *w = p.w_row(n);
      const std::optional<float> bias = p.bias_at(n);
      const ExactReadouts got = engine.dot(x, w, p.K, bias, value.get());
      oracle::mpfr_exact_dot(x, w, p.K, bias, judge.get());
      ++r.elements;
      std::ostringstream why;
      const float f32 = oracle::mpfr_round_to_float(judge.get()), bf16 = oracle::mpfr_round_to_bf16(judge.get());
      const double f64 = mpfr_get_d(judge.get(), MPFR_RNDN);
      if (!same_exact_value(value.get(), judge.get()))
        why << "exact values differ: " << engine.id() << " " << exact_text(value.get()) << ", MPFR "
            << exact_text(judge.get());
      else if (bits_of(got.f32) != bits_of(f32))
        why << "binary32 differs: " << engine.id() << " " << describe_float(got.f32) << ", MPFR " << describe_float(f32)
            << " (exact " << exact_text(judge.get()) << ")";
      else if (bits_of(got.bf16) != bits_of(bf16))
        why << "bfloat16 differs: " << engine.id() << " " << describe_float(got.bf16) << ", MPFR "
            << describe_float(bf16) << " (exact " << exact_text(judge.get()) << ")";
      else if (double_bits(got.f64) != double_bits(f64))
        why << std::hexfloat << "binary64 differs: " << engine.id() << " " << got.f64 << ", MPFR " << f64;
      if (!why.str().empty()) {
        r.passed = false;
        r.detail = "output [" + std::to_string(m) + "," + std::to_string(n) + "], K = " + std::to_string(p.K) + ": " +
                   why.str();
        return r;
      }
    }
  return r;
}

}  // namespace ordo::properties
