#include "reports/report.h"

#include <ctime>

namespace ordo::reports {

std::string ResultRow::verdict() const { return std::string(verdict_name(run.verdict())); }

bool Report::nothing_ran() const {
  for (const ResultRow& r : results)
    if (r.run.cases > 0 || r.run.tool_errors > 0) return false;
  return true;
}

bool Report::all_passed() const {
  if (interrupted || results.empty() || nothing_ran()) return false;
  for (const ResultRow& r : results)
    if (!row_lets_run_pass(r.run.verdict(), r.run.skip_reason)) return false;
  return true;
}

bool Report::any_inconclusive() const {
  for (const ResultRow& r : results)
    if (r.verdict() == "inconclusive") return true;
  return false;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace ordo::reports
