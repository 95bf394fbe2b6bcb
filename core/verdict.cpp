#include "core/verdict.h"

namespace ordo {

Verdict compute_verdict(const RowEvidence& e) {
  if (e.tool_errors > 0) return Verdict::tool_error;
  if (e.run <= 0) return Verdict::inconclusive;
  if (e.expect_failure) return e.failed > 0 ? Verdict::pass : (e.run < e.requested - e.skipped ? Verdict::inconclusive : Verdict::mutant_missed);
  if (e.subject_faults > 0) return Verdict::subject_fault;
  // Fewer cases than requested and no failure: stopped early, so nothing is proven for the rest.
  if (e.failed == 0) return e.run < e.requested - e.skipped ? Verdict::inconclusive : Verdict::pass;
  switch (e.kind) {
    case PropertyKind::bound: return Verdict::bound_violation;
    case PropertyKind::scenario: return Verdict::expected_rejection_missing;
    case PropertyKind::bitwise:
    case PropertyKind::invariance: return Verdict::mismatch;
  }
  return Verdict::mismatch;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::mismatch: return "mismatch";
    case Verdict::bound_violation: return "bound_violation";
    case Verdict::expected_rejection_missing: return "expected_rejection_missing";
    case Verdict::mutant_missed: return "mutant_missed";
    case Verdict::subject_fault: return "subject_fault";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::tool_error: return "tool_error";
  }
  return "tool_error";
}

bool verdict_fails(Verdict v) { return v != Verdict::pass && v != Verdict::inconclusive; }

bool row_lets_run_pass(Verdict v, const std::string& skip_reason) {
  return v == Verdict::pass || (v == Verdict::inconclusive && !skip_reason.empty());
}

}  // namespace ordo
