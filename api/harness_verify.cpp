// ordo_harness_verify: the property suite of `ordo verify --plugin` against a caller's callbacks. The
// callbacks are bound into a PluginLibrary (subjects/plugin_library.h), so the subject is judged exactly as
// a plugin run in-process: guarded and poisoned outputs, inputs checked unchanged, refusals by status code,
// the same generators, checks, shrinking and report.
#include <atomic>
#include <chrono>
#include <memory>

#include "api/harness_internal.h"
#include "core/atomic_file.h"
#include "properties/suite.h"
#include "reports/report.h"
#include "subjects/environment_probe.h"
#include "subjects/plugin_library.h"
#include "subjects/plugin_subject.h"

struct ordo_harness_result {
  std::string json;
  std::string verdict;
  bool aborted = false;
};

namespace ordo::api {
namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// A callback's return code, seen by the plugin subject: ORDO_HARNESS_CALLBACK_ABORT stops the run after
// this case and reaches the subject as a failure of the caller (a tool error of the case, never a verdict
// on the subject's arithmetic).
template <class Args, class Fn>
std::function<int(const Args*, char*, size_t)> bind_callback(Fn fn, void* user,
                                                             const std::shared_ptr<std::atomic<bool>>& abort) {
  if (fn == nullptr) return {};
  return [fn, user, abort](const Args* a, char* message, size_t size) {
    const int rc = fn(user, a, message, size);
    if (rc != ORDO_HARNESS_CALLBACK_ABORT) return rc;
    abort->store(true);
    return static_cast<int>(ORDO_STATUS_OTHER);
  };
}

struct Run {
  properties::Suite suite;
  std::shared_ptr<std::atomic<bool>> abort = std::make_shared<std::atomic<bool>>(false);
  reports::Report report;
};

void build(Run& run, const ordo_harness_subject& s, const ordo_harness_verify_options& o) {
  std::shared_ptr<PluginLibrary> lib;
  try {
    lib = plugin_library_from_description("<harness subject>", s.info);
  } catch (const PluginError& e) {
    throw ApiError(ORDO_HARNESS_E_SUBJECT, e.what());
  }
  lib->forward = bind_callback<ordo_forward_args>(s.forward, s.user, run.abort);
  lib->backward_data = bind_callback<ordo_backward_data_args>(s.backward_data, s.user, run.abort);
  lib->backward_weight = bind_callback<ordo_backward_weight_args>(s.backward_weight, s.user, run.abort);
  for (const PluginOperation& op : lib->operations) {
    const bool present = op.op == ORDO_OP_FORWARD        ? static_cast<bool>(lib->forward)
                         : op.op == ORDO_OP_BACKWARD_DATA ? static_cast<bool>(lib->backward_data)
                                                          : static_cast<bool>(lib->backward_weight);
    if (!present) throw ApiError(ORDO_HARNESS_E_SUBJECT, "<harness subject>: an operation it declares has no callback");
  }
  run.report.environment = probe_environment(!lib->host_buffers);
  const bool gpu = run.report.environment.gpu.has_value();
  properties::SuiteOptions so;
  so.level = o.level;
  so.gpu_present = gpu;
  so.device_sm = gpu ? run.report.environment.gpu->sm : 0;
  so.gpu_absent_reason = run.report.environment.gpu_absent_reason;
  so.exact_engines = false;
  PluginSubjects subjects = make_plugin_subjects(lib);
  for (auto& f : subjects.forward) {
    if (o.contract_properties) so.contracts.push_back(f->traits().contract);
    properties::add_forward_subject(run.suite, std::move(f), so);
  }
  for (auto& b : subjects.backward) {
    if (o.contract_properties) so.contracts.push_back(b->traits().contract);
    properties::add_backward_subject(run.suite, std::move(b), so);
  }
  if (o.contract_properties) properties::add_host_properties(run.suite, so);
}

}  // namespace
}  // namespace ordo::api

using namespace ordo;
using api::argument_error;
using api::guarded;

extern "C" {

int ordo_harness_verify(const ordo_harness_subject* subject, const ordo_harness_verify_options* options,
                        ordo_harness_result** out) {
  return guarded("ordo_harness_verify", [&] {
    if (subject == nullptr || options == nullptr || out == nullptr) argument_error("subject, options or out is NULL");
    if (subject->struct_size != sizeof(ordo_harness_subject))
      argument_error("subject.struct_size is " + std::to_string(subject->struct_size) +
                     ", expected sizeof(ordo_harness_subject) = " + std::to_string(sizeof(ordo_harness_subject)));
    if (options->struct_size != sizeof(ordo_harness_verify_options))
      argument_error("options.struct_size is " + std::to_string(options->struct_size) +
                     ", expected sizeof(ordo_harness_verify_options) = " + std::to_string(sizeof(ordo_harness_verify_options)));
    const ordo_harness_verify_options& o = *options;
    if (o.level != 1 && o.level != 2) argument_error("level must be 1 or 2, got " + std::to_string(o.level));
    if (o.cases == 0 || o.cases > (std::int64_t{1} << 40)) argument_error("cases must be at least 1 (or < 0: the level's)");
    const std::string report_dir = o.report_dir ? o.report_dir : "";
    if (!report_dir.empty()) {
      try {
        require_writable_folder(report_dir);
      } catch (const FileWriteError& e) {
        throw api::ApiError(ORDO_HARNESS_E_UNWRITABLE, e.what());
      }
    }
    const auto start = std::chrono::steady_clock::now();
    api::Run run;
    run.report.command = o.command ? o.command : "ordo_harness_verify";
    run.report.seed = o.seed;
    run.report.level = o.level;
    run.report.started_at = reports::utc_now_iso8601();
    api::build(run, *subject, o);

    const std::string property = o.property ? o.property : "";
    if (!property.empty()) {
      std::string names;
      bool known = false;
      for (const properties::PropertySpec& spec : run.suite.properties) {
        known = known || spec.name == property;
        names += (names.empty() ? "" : ", ") + spec.name;
      }
      if (!known) argument_error("no property named \"" + property + "\" for this subject; its properties: " + names);
    }
    properties::RunOptions ro;
    ro.seed = o.seed;
    ro.only_case = o.only_case;
    ro.cases_override = o.cases > 0 ? o.cases : -1;
    const std::atomic<bool>* abort_flag = run.abort.get();
    ro.stop = abort_flag;
    const std::string format = o.reproduce_format ? o.reproduce_format
                                                  : "--property {property} --kernel {kernel} --seed {seed} --case {case}";
    ro.reproduce = [format](const std::string& name, const std::string& kernel, std::uint64_t seed, std::int64_t index) {
      std::string line = api::replace_all(format, "{property}", name);
      line = api::replace_all(line, "{kernel}", kernel);
      line = api::replace_all(line, "{seed}", std::to_string(seed));
      return api::replace_all(line, "{case}", index >= 0 ? std::to_string(index) : "None");
    };
    for (const properties::PropertySpec& spec : run.suite.properties) {
      if (!property.empty() && spec.name != property) continue;
      if (run.abort->load()) break;
      reports::ResultRow row;
      row.run = spec.not_runnable.empty() ? properties::run_property(spec, ro)
                                          : properties::not_run(spec, o.cases > 0 ? o.cases : spec.cases,
                                                                "not run: " + spec.not_runnable);
      run.report.results.push_back(std::move(row));
    }
    run.report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // A run the caller stopped is recorded as interrupted: what ran is reported, never as a pass.
    run.report.interrupted = run.abort->load();
    if (!report_dir.empty()) {
      try {
        write_file_atomically(report_dir + "/report.json", reports::to_json(run.report).dump(2) + "\n");
        write_file_atomically(report_dir + "/report.md", reports::to_markdown(run.report));
      } catch (const FileWriteError& e) {
        throw api::ApiError(ORDO_HARNESS_E_UNWRITABLE, e.what());
      }
    }
    auto result = std::make_unique<ordo_harness_result>();
    result->json = reports::to_json(run.report).dump(2);
    result->verdict = reports::report_verdict(run.report);
    result->aborted = run.abort->load();
    *out = result.release();
  });
}

void ordo_harness_result_free(ordo_harness_result* result) { delete result; }
const char* ordo_harness_result_json(const ordo_harness_result* r) { return r ? r->json.c_str() : ""; }
const char* ordo_harness_result_verdict(const ordo_harness_result* r) { return r ? r->verdict.c_str() : ""; }
int32_t ordo_harness_result_aborted(const ordo_harness_result* r) { return r && r->aborted ? 1 : 0; }

}  // extern "C"
