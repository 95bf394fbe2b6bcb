#pragma once
#include "oracle/tc_fdpa_model.h"
#include "properties/check_result.h"
#include "properties/forward_case.h"

namespace ordo::properties {

// The two exact engines agree on every output of the case: the superaccumulator's exact value equals
// MPFR's (NaN, Inf and the sign of zero included), and their correctly rounded binary32, bfloat16 and
// binary64 results are the same bits (each engine rounds with its own code).
CheckResult check_superacc_equals_mpfr(const ForwardCase& c);

// The tensor-core T-FDPA model (oracle/tc_fdpa_model.h), run as a whole K chain on the case's values
// rounded to bfloat16 (then an FP32 bias add), stays within the T-FDPA chain bound of the exact result
// (oracle/error_bounds.md); reports the tightness.
CheckResult check_tc_model_within_bound(const oracle::TcFdpaParams& params, const ForwardCase& c);

}  // namespace ordo::properties
