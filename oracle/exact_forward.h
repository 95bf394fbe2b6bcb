#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.h"

namespace ordo::oracle {

// Exact value of one forward output y = sum_k x[k]*w[k] + b, computed with MPFR at a precision where
// no operation rounds (docs/numerics.md §3). The judgement against a contract's bound: oracle/plan_error_bound.h.
enum class ElementClass {
  finite,         // inputs finite, the candidate finite: the bound applies and is checked
  nonfinite_input,  // a NaN or Inf among the inputs: no exact real value; bitwise checks only
  overflowed,     // inputs finite but the candidate is +-Inf/NaN: a partial sum overflowed, which
                  // the bound's premise excludes; reported, not judged by the bound
};

struct ElementVerdict {
  ElementClass klass = ElementClass::finite;
  double exact = 0;       // the exact value rounded to double (for display and relative errors)
  float correctly_rounded = 0;  // the exact value rounded once to binary32 (RNE, subnormals kept)
  double error = 0;       // |candidate - exact|, rounded up to double
  double bound = 0;       // the a-priori bound, evaluated with upward rounding
  bool within_bound = true;  // decided exactly (MPFR comparison), not on the doubles above
  double error_over_bound() const { return bound > 0 ? error / bound : (error > 0 ? INFINITY : 0.0); }
};

// The correctly rounded FP32 value of the exact output (m, n); NaN/Inf inputs give NaN.
float correctly_rounded_forward_element(const ForwardProblem& p, std::int64_t m, std::int64_t n);


}  // namespace ordo::oracle
