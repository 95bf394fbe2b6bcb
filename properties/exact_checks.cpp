#include "properties/exact_checks.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <sstream>

#include "core/float_bits.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "oracle/error_bound.h"
#include "oracle/superaccumulator.h"

namespace ordo::properties {
namespace {

bool same_exact_value(mpfr_srcptr a, mpfr_srcptr b) {
  if (mpfr_nan_p(a) || mpfr_nan_p(b)) return mpfr_nan_p(a) && mpfr_nan_p(b);
  return mpfr_equal_p(a, b) && mpfr_signbit(a) == mpfr_signbit(b);
}

std::uint64_t double_bits(double d) { return std::isnan(d) ? 0x7FF8000000000000ull : std::bit_cast<std::uint64_t>(d); }

}  // namespace

CheckResult check_superacc_equals_mpfr(const ForwardCase& c) {
  const ForwardProblem p = c.materialize();
  CheckResult r;
  oracle::Superaccumulator acc;
  oracle::MpfrValue judge(oracle::kExactPrecisionBits), converted(oracle::kExactPrecisionBits + 64);
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) {
      const float *x = p.x_row(m), *w = p.w_row(n);
      const std::optional<float> bias = p.bias_at(n);
      acc.clear();
      acc.add_products(x, w, p.K);
      if (bias) acc.add(*bias);
      oracle::mpfr_exact_dot(x, w, p.K, bias, judge.get());
      acc.to_mpfr(converted.get());
      ++r.elements;

      std::ostringstream why;
      if (!same_exact_value(converted.get(), judge.get()))
        why << std::hexfloat << "exact values differ: superacc " << mpfr_get_d(converted.get(), MPFR_RNDN) << ", MPFR "
            << mpfr_get_d(judge.get(), MPFR_RNDN);
      else if (bits_of(acc.to_float()) != bits_of(oracle::mpfr_round_to_float(judge.get())))
        why << "binary32 differs: superacc " << describe_float(acc.to_float()) << ", MPFR "
            << describe_float(oracle::mpfr_round_to_float(judge.get()));
      else if (bits_of(acc.to_bf16()) != bits_of(oracle::mpfr_round_to_bf16(judge.get())))
        why << "bfloat16 differs: superacc " << describe_float(acc.to_bf16()) << ", MPFR "
            << describe_float(oracle::mpfr_round_to_bf16(judge.get()));
      else if (double_bits(acc.to_double()) != double_bits(mpfr_get_d(judge.get(), MPFR_RNDN)))
        why << "binary64 differs: superacc " << std::hexfloat << acc.to_double() << ", MPFR "
            << mpfr_get_d(judge.get(), MPFR_RNDN);
      if (!why.str().empty()) {
        r.passed = false;
        r.detail = "output [" + std::to_string(m) + "," + std::to_string(n) + "], K = " + std::to_string(p.K) +
                   ": " + why.str();
        return r;
      }
    }
  return r;
}

CheckResult check_tc_model_within_bound(const oracle::TcFdpaParams& params, const ForwardCase& c) {
  ForwardProblem p = c.materialize();
  for (float& v : p.x) v = oracle::round_to_bf16(v);
  for (float& v : p.w) v = oracle::round_to_bf16(v);
  CheckResult r;
  oracle::MpfrValue exact(oracle::kExactPrecisionBits), sum_abs(oracle::kExactPrecisionBits),
      weight(oracle::kExactPrecisionBits), error(oracle::kExactPrecisionBits + 64), bound(oracle::kBoundPrecisionBits);
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) {
      const float *x = p.x_row(m), *w = p.w_row(n);
      const std::optional<float> bias = p.bias_at(n);
      ++r.elements;
      bool finite = !bias || std::isfinite(*bias);
      for (std::int64_t k = 0; k < p.K && finite; ++k) finite = std::isfinite(x[k]) && std::isfinite(w[k]);
      if (!finite) {
        ++r.nonfinite_inputs;
        continue;
      }
      const float chain = oracle::tc_fdpa_chain(params, x, w, p.K);
      const float y = bias ? chain + *bias : chain;  // one round-to-nearest FP32 add
      if (!std::isfinite(y)) {
        ++r.overflowed;
        continue;
      }
      oracle::mpfr_exact_dot(x, w, p.K, bias, exact.get(), sum_abs.get());
      // V: the alignment weights (differ from |products| only for subnormal bfloat16 inputs).
      mpfr_set_zero(weight.get(), 1);
      for (std::int64_t k = 0; k < p.K; ++k) mpfr_add_d(weight.get(), weight.get(), oracle::tc_fdpa_alignment_weight(x[k], w[k]), MPFR_RNDU);
      if (bias) mpfr_add_d(weight.get(), weight.get(), std::fabs(static_cast<double>(*bias)), MPFR_RNDU);
      oracle::TcFdpaBoundQuery q;
      q.params = params;
      q.K = p.K;
      q.bias = bias.has_value();
      q.bf16_output = false;
      q.sum_abs = sum_abs.get();
      q.align_weight = weight.get();
      oracle::tc_fdpa_chain_error_bound(q, bound.get());
      mpfr_set_flt(error.get(), y, MPFR_RNDN);
      mpfr_sub(error.get(), error.get(), exact.get(), MPFR_RNDN);  // exact at this precision
      mpfr_abs(error.get(), error.get(), MPFR_RNDN);
      const double ratio = mpfr_get_d(error.get(), MPFR_RNDU) / mpfr_get_d(bound.get(), MPFR_RNDD);
      r.max_error_over_bound = std::max(r.max_error_over_bound, ratio);
      if (!mpfr_lessequal_p(error.get(), bound.get())) {
        r.passed = false;
        std::ostringstream os;
        os << std::hexfloat << "output [" << m << "," << n << "], K = " << p.K << ": T-FDPA model "
           << describe_float(y) << ", exact " << mpfr_get_d(exact.get(), MPFR_RNDN) << ", error "
           << mpfr_get_d(error.get(), MPFR_RNDU) << " > bound " << mpfr_get_d(bound.get(), MPFR_RNDU);
        r.detail = os.str();
        return r;
      }
    }
  return r;
}

}  // namespace ordo::properties
