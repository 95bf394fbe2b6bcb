#pragma once
#include "properties/check_result.h"
#include "properties/forward_case.h"

namespace ordo::properties {

// The two exact engines agree on every output of the case: the superaccumulator's exact value equals
// MPFR's (NaN, Inf and the sign of zero included), and their correctly rounded binary32, bfloat16 and
// binary64 results are the same bits (each engine rounds with its own code).
CheckResult check_superacc_equals_mpfr(const ForwardCase& c);

}  // namespace ordo::properties
