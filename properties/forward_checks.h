#pragma once
#include <cstdint>
#include <functional>
#include <optional>

#include "subjects/forward_subject.h"
#include "properties/check_result.h"
#include "properties/forward_case.h"
#include "oracle/exact_forward.h"

namespace ordo::properties {

// The forward properties, written once against ForwardSubject. Each takes a generated case and
// returns what it saw; the gtest properties and `ordo verify` both call these.

// subject == reference, bit for bit, every output element (NaN bits included).
CheckResult check_bitwise_equal(ForwardSubject& subject, ForwardSubject& reference, const ForwardCase& c);

// Every element of subject's output is within the a-priori error bound of its contract's plan
// (oracle/plan_error_bound.h) of the exact (MPFR) result; reports the tightness (error / bound).
CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardCase& c);
// The same with another judge of each element than oracle::judge_plan_element (the self-test plants a
// defect in the bound through it).
using ElementJudge = std::function<oracle::ElementVerdict(const ReductionPlan& plan, const float* a, const float* b,
                                                          std::int64_t K, std::optional<float> bias, float candidate,
                                                          bool bf16_output)>;
CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardCase& c, const ElementJudge& judge);

// Row 0 of the case computed alone (M = 1) equals the same row inside a batch of `batch_rows` rows
// placed first, last and at a random position; the other rows come from the same value family.
CheckResult check_batch_invariance(ForwardSubject& subject, const ForwardCase& c, std::int64_t batch_rows);

// A contiguous column shard [n0, n1) of W (and b) gives exactly columns [n0, n1) of the whole output.
CheckResult check_column_shard_equals_slice(ForwardSubject& subject, const ForwardCase& c);

// The exact oracle's correctly rounded result does not change when k is permuted (x and w columns
// jointly): it would, if the oracle rounded anywhere.
CheckResult check_exact_result_order_independent(const ForwardCase& c);

// Compares two outputs of shape [rows, cols] bit for bit (any_nan: any two NaNs are equal, for a
// contract whose NaN bits are not stated); on the first difference describes it with the inputs.
CheckResult compare_outputs(const std::vector<float>& got, const std::vector<float>& want, const ForwardProblem& p,
                            const std::string& got_name, const std::string& want_name, bool any_nan = false);
bool same_output(float got, float want, bool any_nan);

}  // namespace ordo::properties
