#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/property_runner.h"

namespace ordo::reports {

struct GpuInfo {
  std::string name;
  int sm = 0;
  std::string driver;        // "13.0"
  std::string cuda_runtime;  // "13.0"
  int sm_count = 0;
};

struct Environment {
  std::string host;
  std::string cpu;
  unsigned cpu_threads = 0;
  std::optional<GpuInfo> gpu;
  std::string gpu_absent_reason;  // why gpu is null
};

// A row of the report: one property on one kernel. Built from a PropertyRun, or directly for
// checks that are not generator driven (fail-closed scenarios) and for checks that could not run.
struct ResultRow {
  properties::PropertyRun run;
  std::int64_t skipped = 0;  // cases planned but not run
  std::string skip_reason;
  std::string verdict() const;  // pass | mismatch | bound_violation | mutant_missed | tool_error | inconclusive
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

  bool all_passed() const;      // no row failed (inconclusive rows do not fail)
  bool any_inconclusive() const;
};

Environment probe_environment(bool with_gpu);
std::string utc_now_iso8601();

nlohmann::json to_json(const Report& r);
std::string to_markdown(const Report& r);

}  // namespace ordo::reports
