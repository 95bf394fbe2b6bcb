#pragma once
// Host mutants of the oracle itself: defects planted in an exact engine, in the error bound and in the
// tensor-core model, each a wrapper or a replacement of one part, never a change of the oracle's own code
// (oracle/ is untouched). The self-test must kill them with the oracle's own self-checks: the exact engine
// against MPFR, the emulator against its bound, the emulator against the plain scalar interpreter and
// against bits recorded on a GPU.
#include <memory>
#include <optional>
#include <string>

#include "core/reduction_plan.h"
#include "oracle/exact_forward.h"
#include "subjects/exact_engine.h"
#include "subjects/forward_subject.h"

namespace ordo::mutants {

inline constexpr const char* kSuperaccDoubleRoundingId = "mutant.oracle.superacc-double-rounding";
inline constexpr const char* kSuperaccDoubleRoundingDefect =
    "the superaccumulator's binary32 and bfloat16 read-outs round its binary64 read-out again (double rounding) "
    "instead of rounding the exact value once";
inline constexpr const char* kSuperaccZeroSignId = "mutant.oracle.superacc-zero-sign";
inline constexpr const char* kSuperaccZeroSignDefect =
    "an exact zero sum reads out as +0 even when every term is -0 (the sign rule of an exact zero dropped)";
inline constexpr const char* kBoundShortId = "mutant.oracle.bound-one-rounding-short";
inline constexpr const char* kBoundShortDefect =
    "the FMA chain's error bound counts one rounding too few: gamma_(n-1) instead of gamma_n";
inline constexpr const char* kTcFdpaRoundsId = "mutant.emulator.tc-fdpa-rounds";
inline constexpr const char* kTcFdpaRoundsDefect =
    "the emulator's T-FDPA step rounds its sum to nearest even at the normalisation instead of truncating";

// The superaccumulator with a defect in its read-out (double rounding) or in the sign of an exact zero.
std::unique_ptr<ExactEngine> make_superacc_double_rounding();
std::unique_ptr<ExactEngine> make_superacc_zero_sign();

// oracle::judge_plan_element with the bound of K - 1 terms: one rounding short.
oracle::ElementVerdict judge_with_short_bound(const ReductionPlan& plan, const float* a, const float* b, std::int64_t K,
                                              std::optional<float> bias, float candidate, bool bf16_output);

// The emulator of a tensor-core chain contract (fwd.bf16.tc-fdpa-sm90/1) whose T-FDPA step rounds to
// nearest instead of truncating; everything else as the plan says.
std::unique_ptr<ForwardSubject> make_tc_fdpa_rounding_emulator(const std::string& contract_id);

// The same step alone, for tests: equal to oracle::tc_fdpa_step wherever the truncated sum is exact.
float tc_fdpa_step_rounding(int L, int F, int e_zero, const float* a, const float* b, int n, float c);

}  // namespace ordo::mutants
