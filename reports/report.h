#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/environment.h"
#include "properties/property_runner.h"

namespace ordo::reports {

// A row of the report: one property on one subject, with the evidence its verdict is computed from
// (properties/verdict.h: the one place verdicts are decided).
struct ResultRow {
  properties::PropertyRun run;
  std::string verdict() const;  // properties::verdict_name of run.verdict()
};

struct Report {
  std::string command;
  std::uint64_t seed = 0;
  int level = 1;
  std::string started_at;  // UTC, ISO 8601
  double seconds = 0;
  Environment environment;
  std::vector<ResultRow> results;
  nlohmann::json bench = nlohmann::json::array();

  bool interrupted = false;     // stopped by SIGINT: the rows so far, never a pass
  // Every row passed, or did not run for a stated reason (properties::row_lets_run_pass); never with no
  // rows or when interrupted.
  bool all_passed() const;
  bool any_inconclusive() const;
};

std::string utc_now_iso8601();

nlohmann::json to_json(const Report& r);
std::string to_markdown(const Report& r);

}  // namespace ordo::reports
