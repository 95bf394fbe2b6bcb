#include "reports/report.h"

namespace ordo::reports {

std::string report_verdict(const Report& r) {
  if (r.interrupted) return "interrupted";
  if (r.nothing_ran()) return "inconclusive";
  if (!r.all_passed()) return "fail";
  return r.any_inconclusive() ? "pass_with_inconclusive" : "pass";
}

std::string_view kind_name(PropertyKind k) {
  switch (k) {
    case PropertyKind::bitwise: return "bitwise";
    case PropertyKind::bound: return "bound";
    case PropertyKind::invariance: return "invariance";
    case PropertyKind::scenario: return "scenario";
  }
  return "bitwise";
}

bool parse_kind(std::string_view name, PropertyKind* k) {
  for (PropertyKind c : {PropertyKind::bitwise, PropertyKind::bound,
                                     PropertyKind::invariance, PropertyKind::scenario})
    if (kind_name(c) == name) {
      *k = c;
      return true;
    }
  return false;
}

nlohmann::json to_json(const Report& r) {
  using nlohmann::json;
  json j;
  j["schema"] = "ordo.report/1";
  // The build that produced the rows (Report::tool), so that a report rendered later by another build
  // still names the one that ran.
  const ToolInfo& t = r.tool;
  j["tool"] = {{"version", t.version},       {"git_commit", t.git_commit}, {"git_dirty", t.git_dirty},
               {"build_type", t.build_type}, {"compiler", t.compiler},     {"cuda", t.cuda},
               {"flags", t.flags},           {"cuda_flags", t.cuda_flags}};
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
  j["verdict"] = report_verdict(r);
  j["interrupted"] = r.interrupted;

  json results = json::array();
  for (const ResultRow& row : r.results) {
    const PropertyRun& run = row.run;
    json failures = json::array();
    for (const FailureRecord& f : run.failures) {
      json failure = {{"reproduce", f.reproduce}, {"detail", f.detail}, {"original", f.original},
                      {"minimised", f.minimised}, {"shrink_steps", f.shrink_steps}};
      // The value family of the failing case; absent where unknown (a file check, an older report read back).
      if (!f.family.empty()) failure["family"] = f.family;
      // The index of a generated case in its property's stream; absent where the case has an id of its own
      // (`original`: a file check's case, a relation, a malformed call).
      if (f.case_index >= 0) failure["case_index"] = f.case_index;
      failures.push_back(std::move(failure));
    }
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
                     // The kind decides which failing verdict a failed case gives (core/verdict.h); the
                     // report reader recomputes every verdict from these fields.
                     {"kind", std::string(kind_name(run.kind))},
                     {"expect_failure", run.expect_failure},
                     {"cases", run.cases},
                     {"unit", run.unit},
                     {"failed", run.failed},
                     {"subject_faults", run.subject_faults},
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
  if (!r.timeline.empty()) {
    json timeline = json::array();
    for (const TimelinePoint& p : r.timeline)
      timeline.push_back({{"seconds", p.seconds}, {"cases", p.cases}, {"failures", p.failures}});
    j["timeline"] = timeline;
  }
  return j;
}

}  // namespace ordo::reports
