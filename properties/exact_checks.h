#pragma once
#include <string>

#include "properties/check_result.h"
#include "properties/forward_case.h"

namespace ordo::properties {

// The three exact engines agree on every output of the case: the superaccumulator's exact value, MPFR's
// and Boost.Multiprecision's are equal (NaN, Inf and the sign of zero included), and their correctly
// rounded binary32, bfloat16 and binary64 results are the same bits (each engine rounds with its own
// code). A failure names the engine that disagrees with the other two, and shows all three values.
CheckResult check_superacc_equals_mpfr(const ForwardCase& c);

// From the three pairwise agreements, which engine is the odd one out: "superacc disagrees",
// "MPFR disagrees", "Boost disagrees", "all three differ", or "" when all agree. (Agreement is
// transitive, so two agreeing pairs with one disagreeing cannot occur; that reads "inconsistent".)
std::string odd_engine_out(bool superacc_eq_mpfr, bool boost_eq_mpfr, bool superacc_eq_boost);

}  // namespace ordo::properties
