#include "reports/summary_json.h"

#include "reports/diagnosis.h"
#include "reports/row_text.h"

namespace ordo::reports {

nlohmann::json summary_json(const Report& r) {
  using nlohmann::json;
  const ReportSummary s = summarize(r);
  std::int64_t subject_faults = 0;
  json rows = json::array();
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const PropertyRun& run = r.results[i].run;
    subject_faults += run.subject_faults;
    rows.push_back({{"property", run.name},
                    {"kernel", run.kernel},
                    {"contract", run.contract},
                    {"verdict", r.results[i].verdict()},
                    {"unit", run.unit},
                    {"count", run.cases},
                    {"failed", run.failed},
                    {"subject_faults", run.subject_faults},
                    {"fails", row_fails(run)},
                    {"failing_ids", failing_ids(run)},
                    {"diagnosis", diagnosis(r, i)},
                    {"reproduce", run.failures.empty() ? std::string() : run.failures.front().reproduce}});
  }
  return {{"schema", "ordo.summary/1"},
          {"verdict", s.verdict},
          {"headline", s.headline},
          {"command", r.command},
          {"counts",
           {{"rows", s.rows},
            {"rows_passed", s.passed_rows},
            {"rows_failed", s.failing_rows},
            {"rows_not_run", s.not_run_rows},
            {"cases", s.cases},
            {"failed_cases", s.failed_cases},
            {"relations", s.relations},
            {"failed_relations", s.failed_relations},
            {"subject_faults", subject_faults}}},
          {"rows", rows}};
}

}  // namespace ordo::reports
