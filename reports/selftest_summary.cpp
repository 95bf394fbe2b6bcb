#include "reports/selftest_summary.h"

#include <algorithm>

namespace ordo::reports {

std::optional<double> median(std::vector<std::int64_t> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  if (values.size() % 2 == 1) return static_cast<double>(values[mid]);
  return (static_cast<double>(values[mid - 1]) + static_cast<double>(values[mid])) / 2;
}

std::string_view mutant_outcome(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "killed";
    case Verdict::mutant_missed:
      return "survived";
    case Verdict::tool_error:
      return "error";
    case Verdict::inconclusive:
      return "not run";
    // A mutant row never gets these (a failed case is its pass); as a row of a production subject they
    // are not self-test outcomes at all.
    case Verdict::mismatch:
    case Verdict::bound_violation:
    case Verdict::expected_rejection_missing:
    case Verdict::subject_fault:
      return "not a mutant";
  }
  return "not a mutant";
}

SelftestSummary summarize_selftest(const std::vector<PropertyRun>& rows) {
  SelftestSummary s;
  std::vector<std::int64_t> to_kill;
  for (const PropertyRun& r : rows) {
    if (!r.expect_failure) continue;
    ++s.mutants;
    switch (r.verdict()) {
      case Verdict::pass:
        ++s.killed;
        to_kill.push_back(r.cases);
        s.max_cases_to_kill = std::max(s.max_cases_to_kill, r.cases);
        break;
      case Verdict::mutant_missed:
        ++s.survived;
        break;
      case Verdict::tool_error:
        ++s.tool_errors;
        break;
      case Verdict::inconclusive:  // no GPU, another SM, stopped early
      case Verdict::mismatch:      // (not verdicts of a row that expects failures)
      case Verdict::bound_violation:
      case Verdict::expected_rejection_missing:
      case Verdict::subject_fault:
        ++s.not_run;
        break;
    }
  }
  const std::int64_t ran = s.killed + s.survived + s.tool_errors;
  if (ran > 0) s.kill_rate = static_cast<double>(s.killed) / static_cast<double>(ran);
  s.median_cases_to_kill = median(to_kill);
  return s;
}

}  // namespace ordo::reports
