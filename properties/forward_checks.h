#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "subjects/forward_subject.h"
#include "properties/check_result.h"
#include "properties/forward_case.h"
#include "oracle/exact_forward.h"

namespace ordo::properties {

// The forward properties, written once against ForwardSubject. Each takes a generated case and
// returns what it saw; the gtest properties and `ordo verify` both call these.

// How much of a bitwise difference a check describes: the first `shown` differing elements in the detail
// (each with both values and its inputs), the flat indices of the first `kept` in CheckResult::differing.
// `got_name` and `want_name` name the two outputs (empty: the subjects' names).
struct DifferenceOptions {
  int shown = 1;
  std::int64_t kept = 0;
  std::string got_name, want_name;
};

// subject == reference, bit for bit, every output element (NaN bits included).
CheckResult check_bitwise_equal(ForwardSubject& subject, ForwardSubject& reference, const ForwardCase& c);
// The same on a given problem (a generated case materialised, or a case of a folder of recorded outputs).
CheckResult check_bitwise_equal(ForwardSubject& subject, ForwardSubject& reference, const ForwardProblem& p,
                                const DifferenceOptions& differences = {});

// Every element of subject's output is within the a-priori error bound of its contract's plan
// (oracle/plan_error_bound.h) of the exact (MPFR) result; reports the tightness (error / bound).
CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardCase& c);
// The same with another judge of each element than oracle::judge_plan_element (the self-test plants a
// defect in the bound through it).
using ElementJudge = std::function<oracle::ElementVerdict(const ReductionPlan& plan, const float* a, const float* b,
                                                          std::int64_t K, std::optional<float> bias, float candidate,
                                                          bool bf16_output)>;
CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardCase& c, const ElementJudge& judge);
// On a given problem. `elements` (flat indices) judges those elements only, for outputs too large to judge
// whole (a folder's cases): `elements` of the result then counts the finite ones judged, the first violation
// is the first in that order, and the errors against the whole exact result are not summarised.
CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardProblem& p, const ElementJudge& judge,
                                     const std::vector<std::int64_t>* elements = nullptr);

// Row 0 of the case computed alone (M = 1) equals the same row inside a batch of `batch_rows` rows
// placed first, last and at a random position; the other rows come from the same value family.
CheckResult check_batch_invariance(ForwardSubject& subject, const ForwardCase& c, std::int64_t batch_rows);

// A contiguous column shard [n0, n1) of W (and b) gives exactly columns [n0, n1) of the whole output.
CheckResult check_column_shard_equals_slice(ForwardSubject& subject, const ForwardCase& c);

// Two outputs related by an invariance: rows reference_rows[i] of the reference output and subject_rows[i] of
// the subject output, columns [reference_col, reference_col + cols) and [subject_col, subject_col + cols), must
// be equal bit for bit (a row alone and the same row in a batch, a batch and its permutation, a shard and its
// slice). `description` starts a failure's detail.
struct RowCorrespondence {
  std::string description;
  std::vector<std::int64_t> reference_rows, subject_rows;
  std::int64_t reference_col = 0, subject_col = 0, cols = 0;
};
// One side of a relation: the problem (for the inputs a failure shows), its output, and what to call it.
struct RelatedOutput {
  const ForwardProblem& problem;
  const std::vector<float>& y;
  std::string name;
};
// Compares the related rows (any_nan: any two NaNs are equal). A failure names the first differing row pair
// (how many columns differ, the first with both values and the subject's inputs there) and how many pairs
// differ; `elements` counts the elements compared.
CheckResult compare_related_outputs(const RelatedOutput& reference, const RelatedOutput& subject,
                                    const RowCorrespondence& relation, bool any_nan = false);
// Runs the subject on both problems and compares the related rows: two recorded outputs of a folder that must
// agree, or any two problems whose outputs an invariance relates.
CheckResult check_outputs_agree(ForwardSubject& subject, const ForwardProblem& reference, const std::string& reference_name,
                                const ForwardProblem& other, const std::string& other_name,
                                const RowCorrespondence& relation, bool any_nan = false);

// The exact oracle's correctly rounded result does not change when k is permuted (x and w columns
// jointly): it would, if the oracle rounded anywhere.
CheckResult check_exact_result_order_independent(const ForwardCase& c);

// Compares two outputs of shape [rows, cols] bit for bit (any_nan: any two NaNs are equal, for a
// contract whose NaN bits are not stated); on the first difference describes it with the inputs.
CheckResult compare_outputs(const std::vector<float>& got, const std::vector<float>& want, const ForwardProblem& p,
                            const std::string& got_name, const std::string& want_name, bool any_nan = false);
bool same_output(float got, float want, bool any_nan);

}  // namespace ordo::properties
