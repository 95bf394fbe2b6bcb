#pragma once
// The exact oracle's self-check against an injectable engine (subjects/exact_engine.h): the engine's exact
// value equals MPFR's (NaN, Inf and the sign of zero included) and its binary32, bfloat16 and binary64
// read-outs are MPFR's correct roundings, bit for bit. It is exact.superacc_vs_mpfr's comparison of the
// superaccumulator with MPFR (properties/exact_checks.h, which also compares a third engine), with the
// engine a parameter, so that the self-test can plant a defect in one.
#include "properties/check_result.h"
#include "properties/forward_case.h"
#include "subjects/exact_engine.h"

namespace ordo::properties {

CheckResult check_engine_equals_mpfr(ExactEngine& engine, const ForwardCase& c);

}  // namespace ordo::properties
