#include "core/build_info.h"
#include "reports/report.h"

namespace ordo::reports {

nlohmann::json to_json(const Report& r) {
  using nlohmann::json;
  json j;
  j["schema"] = "ordo.report/1";
  j["tool"] = {{"version", build_version()}, {"git_commit", build_git_commit()}, {"git_dirty", build_git_dirty()}};
  json env = {{"host", r.environment.host}, {"cpu", r.environment.cpu}, {"cpu_threads", r.environment.cpu_threads}};
  if (r.environment.gpu) {
    const GpuInfo& g = *r.environment.gpu;
    env["gpu"] = {{"name", g.name}, {"sm", g.sm}, {"driver", g.driver}, {"cuda_runtime", g.cuda_runtime},
                  {"sm_count", g.sm_count}};
  } else {
    env["gpu"] = nullptr;
    env["gpu_absent_reason"] = r.environment.gpu_absent_reason;
  }
  j["environment"] = env;
  j["command"] = r.command;
  j["seed"] = r.seed;
  j["level"] = r.level;
  j["started_at"] = r.started_at;
  j["seconds"] = r.seconds;
  j["verdict"] = r.interrupted ? "interrupted" : r.all_passed() ? (r.any_inconclusive() ? "pass_with_inconclusive" : "pass") : "fail";
  j["interrupted"] = r.interrupted;

  json results = json::array();
  for (const ResultRow& row : r.results) {
    const properties::PropertyRun& run = row.run;
    json failures = json::array();
    for (const properties::FailureRecord& f : run.failures)
      failures.push_back({{"reproduce", f.reproduce}, {"detail", f.detail}, {"original", f.original},
                          {"minimised", f.minimised}, {"shrink_steps", f.shrink_steps}});
    json families = json::object();
    for (const auto& [name, count] : run.families) families[name] = count;
    json tightness = json::object();
    for (const auto& [name, ratio] : run.max_error_over_bound_by_family) tightness[name] = ratio;
    json shapes = json::object();
    for (const auto& [name, count] : run.shape_classes) shapes[name] = count;
    json row_json = {{"property", run.name},
                     {"description", run.description},
                     {"kernel", run.kernel},
                     {"contract", run.contract},
                     {"backend", run.backend},
                     {"verdict", row.verdict()},
                     {"expect_failure", run.expect_failure},
                     {"cases", run.cases},
                     {"failed", run.failed},
                     {"tool_errors", run.tool_errors},
                     {"skipped", run.skipped},
                     {"requested", run.requested},
                     {"elements", run.elements},
                     {"families", families},
                     {"shape_classes", shapes},
                     {"max_error_over_bound", run.max_error_over_bound},
                     {"max_error_over_bound_by_family", tightness},
                     {"max_relative_error", run.max_relative_error},
                     {"max_normwise_relative_error", run.max_normwise_relative_error},
                     {"overflowed_elements", run.overflowed},
                     {"nonfinite_input_elements", run.nonfinite_inputs},
                     {"seconds", run.seconds},
                     {"failures", failures}};
    if (!run.skip_reason.empty()) row_json["skip_reason"] = run.skip_reason;
    results.push_back(row_json);
  }
  j["results"] = results;
  j["bench"] = r.bench;
  return j;
}

}  // namespace ordo::reports
