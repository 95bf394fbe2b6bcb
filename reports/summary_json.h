#pragma once
#include <nlohmann/json.hpp>

#include "reports/report.h"

namespace ordo::reports {

// A short machine-readable summary of a report, for a script or a CI step (`--json -`): what the headline
// says, as fields. Schema "ordo.summary/1":
//   schema     "ordo.summary/1"
//   verdict    report_verdict(): "pass", "pass_with_inconclusive", "fail", "inconclusive", "interrupted"
//   headline   the verdict in one line, as report.md and report.html open
//   command    the command that ran
//   counts     rows, rows_passed, rows_failed, rows_not_run (rows that did not run for a stated reason);
//              cases, failed_cases (rows that count cases); relations, failed_relations (rows that count
//              relations: `ordo check`'s invariance rows, never added into cases); subject_faults (of the
//              failed cases and relations: the subject itself faulted)
//   rows       one per report row, in report order:
//     property, kernel, contract, verdict (verdict_name), unit ("cases" or "relations"),
//     count (cases or relations run), failed, subject_faults,
//     fails      whether the row fails the run (a passing self-test has failed > 0 and does not),
//     failing_ids  the ids of the failures the row kept ("c0012", "c0003 vs c0010", "case 17"), in order;
//                  fewer than `failed` when the run kept only its first failures,
//     diagnosis  one line saying what the failure means, or "" (reports/diagnosis.h),
//     reproduce  the command that reproduces the row's first failure, or "" when it kept none.
nlohmann::json summary_json(const Report& r);

}  // namespace ordo::reports
