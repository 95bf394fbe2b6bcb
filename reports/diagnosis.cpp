#include "reports/diagnosis.h"

#include <optional>
#include <string_view>

#include "reports/row_text.h"

namespace ordo::reports {
namespace {


// What a rule asks of the error-bound rows of the same subject and contract: a bitwise mismatch means
// another order when the bound held, a wrong result when it did not.
enum class BoundRows { any, held, violated };

// The invariance rules go by the property's name alone: reports written before rows recorded their kind
// read back with a stand-in kind, never with their name changed.
struct Rule {
  Verdict verdict;
  std::optional<PropertyKind> kind;  // nullopt: every kind
  std::string_view name_ends_with;   // "": every property
  BoundRows bound_rows;
  std::string_view text;
};

constexpr std::string_view kBatchDependence =
    "a row's bits depend on the batch it is in (its size or its position): the kernel switches tile, split or "
    "order with M";

// The first rule that fits a failing row gives its line.
constexpr Rule kRules[] = {
    {Verdict::subject_fault, std::nullopt, "", BoundRows::any,
     "the subject (library or program) faulted: it exited, crashed, hung, left outputs unwritten, wrote outside "
     "them, or wrote no usable output file"},
    {Verdict::mismatch, std::nullopt, "batch_size_invariance", BoundRows::any, kBatchDependence},
    {Verdict::mismatch, std::nullopt, "batch_invariance", BoundRows::any, kBatchDependence},
    {Verdict::mismatch, std::nullopt, "permutation_invariance", BoundRows::any,
     "a row's bits depend on the order of the rows in its batch"},
    {Verdict::mismatch, std::nullopt, "shard_equals_slice", BoundRows::any,
     "a shard of W does not give its slice of the whole output: the order depends on N"},
    {Verdict::mismatch, std::nullopt, "microbatches_equal_whole", BoundRows::any,
     "dW accumulated over microbatches differs from dW of the whole batch: the order over rows depends on how the "
     "batch is split"},
    {Verdict::mismatch, PropertyKind::bitwise, "", BoundRows::held,
     "within the error bound but not this contract's order: try `ordo identify`"},
    {Verdict::mismatch, PropertyKind::bitwise, "", BoundRows::violated,
     "not this contract's bits, and the error bound failed too (in some case, if not in all): a wrong result, not "
     "only another order"},
    {Verdict::bound_violation, std::nullopt, "", BoundRows::any,
     "outside the error bound: a wrong result, not a reordering"},
    {Verdict::expected_rejection_missing, std::nullopt, "", BoundRows::any,
     "a malformed call was accepted, refused with the wrong code, or had its output written: the subject does not "
     "fail closed"},
    {Verdict::mutant_missed, std::nullopt, "", BoundRows::any,
     "a deliberately broken subject passed every case: this property cannot see its defect"},
    {Verdict::tool_error, std::nullopt, "", BoundRows::any,
     "ordo could not check a case: a fault of the harness or of its input, not a verdict on the subject"},
    {Verdict::inconclusive, std::nullopt, "", BoundRows::any,
     "fewer cases ran than planned and none failed (the run stopped early): nothing is proven for the rest"},
};

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The verdict of the error-bound rows of the row's subject and contract: violated if any failed, held if
// any passed and none failed, any (unknown) when there is none. A bound row is known by its kind, or by its
// name where an older report did not record the kind of a row that passed.
BoundRows bound_rows_of(const Report& r, const PropertyRun& run) {
  bool held = false;
  for (const ResultRow& other : r.results) {
    const PropertyRun& o = other.run;
    const bool bound = o.kind == PropertyKind::bound || ends_with(o.name, "within_error_bound");
    if (!bound || o.expect_failure || o.kernel != run.kernel || o.contract != run.contract || &o == &run) continue;
    const Verdict v = o.verdict();
    if (v == Verdict::bound_violation) return BoundRows::violated;
    held = held || v == Verdict::pass;
  }
  return held ? BoundRows::held : BoundRows::any;
}

}  // namespace

std::string diagnosis(const Report& r, std::size_t row) {
  if (row >= r.results.size()) return "";
  const PropertyRun& run = r.results[row].run;
  if (!row_fails(run)) return "";
  const Verdict verdict = run.verdict();
  const BoundRows bound = bound_rows_of(r, run);
  for (const Rule& rule : kRules) {
    if (rule.verdict != verdict || (rule.kind && *rule.kind != run.kind) || !ends_with(run.name, rule.name_ends_with))
      continue;
    if (rule.bound_rows != BoundRows::any && rule.bound_rows != bound) continue;
    return std::string(rule.text);
  }
  return "";
}

}  // namespace ordo::reports
