#pragma once
// What a self-test proved, from its report rows alone: one row per deliberately broken subject
// (expect_failure), whose verdict says whether the suite killed it (pass), let it survive its whole budget
// (mutant_missed), could not run it (inconclusive) or could not check it (tool_error). `ordo selftest`
// writes one such row per mutant, with the cases it took to kill; `ordo verify`'s selftest.mutant_caught
// rows are the same kind. Computed from rows, so that the summary of a report read back from its JSON is
// the summary of the run that wrote it.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/run_record.h"

namespace ordo::reports {

struct SelftestSummary {
  std::int64_t mutants = 0;  // rows with expect_failure
  std::int64_t killed = 0, survived = 0, not_run = 0, tool_errors = 0;
  // killed / (killed + survived + tool_errors): the mutants that ran; nullopt when none ran.
  std::optional<double> kill_rate;
  // Over the killed ones: the cases each took (its row's cases: every case run on it, the kill included).
  std::optional<double> median_cases_to_kill;  // the middle one, or the mean of the two middle ones
  std::int64_t max_cases_to_kill = 0;
};

SelftestSummary summarize_selftest(const std::vector<PropertyRun>& rows);

// A mutant row's verdict in the self-test's words: "killed" (pass), "survived" (mutant_missed), "error"
// (tool_error), "not run" (inconclusive).
std::string_view mutant_outcome(Verdict v);

// The median of `values` (nullopt when empty): the middle one, or the mean of the two middle ones.
std::optional<double> median(std::vector<std::int64_t> values);

}  // namespace ordo::reports
