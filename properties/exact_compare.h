#pragma once
// How the exact-engine checks (exact_checks.cpp: the three engines; engine_checks.cpp: one engine, or a
// mutant of one, against MPFR) compare and print exact values: NaN equals NaN, a zero's sign counts,
// binary64 NaNs compare as one pattern, values print exactly in hex.
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "oracle/mpfr_value.h"

namespace ordo::properties {

inline bool same_exact_value(mpfr_srcptr a, mpfr_srcptr b) {
  if (mpfr_nan_p(a) || mpfr_nan_p(b)) return mpfr_nan_p(a) && mpfr_nan_p(b);
  return mpfr_equal_p(a, b) && mpfr_signbit(a) == mpfr_signbit(b);
}

inline std::uint64_t double_bits(double d) {
  return std::isnan(d) ? 0x7FF8000000000000ull : std::bit_cast<std::uint64_t>(d);
}

inline std::string exact_text(mpfr_srcptr v) {
  if (mpfr_nan_p(v)) return "NaN";
  char* s = nullptr;
  mpfr_asprintf(&s, "%Ra", v);
  std::string text(s);
  mpfr_free_str(s);
  return text;
}

}  // namespace ordo::properties
