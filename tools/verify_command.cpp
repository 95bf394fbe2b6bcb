#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "kernels/backward_api.h"
#include "kernels/forward_api.h"
#include "oracle/fpu_environment.h"
#include "properties/fail_closed_checks.h"
#include "properties/forward_suite.h"
#include "reports/report.h"
#include "tools/commands.h"
#include "tools/result_printing.h"

namespace ordo::tools {
namespace {

struct VerifyOptions {
  int level = 1;
  std::uint64_t seed = 1;
  std::vector<std::string> properties;  // filter; empty = all
  std::vector<std::string> kernels;     // filter; empty = all
  std::int64_t only_case = -1;
  std::int64_t cases = -1;
  std::string out_dir = "ordo-report";
  bool require_gpu = false;
  bool no_gpu = false;
  bool quiet = false;
  std::string command_line;
};

bool selected(const std::vector<std::string>& filter, const std::string& value) {
  return filter.empty() || std::find(filter.begin(), filter.end(), value) != filter.end();
}

reports::ResultRow fail_closed_row(const std::string& variant, const std::string& contract) {
  reports::ResultRow row;
  row.run.name = "forward.kernel_fail_closed";
  row.run.description = "each malformed call gets its specific error and leaves the output untouched";
  row.run.backend = "cuda";
  row.run.kernel = variant;
  row.run.contract = contract;
  const auto start = std::chrono::steady_clock::now();
  for (const properties::FailClosedOutcome& o : properties::run_fail_closed_scenarios(variant)) {
    if (o.skipped) {
      ++row.skipped;
      row.skip_reason += (row.skip_reason.empty() ? "" : "; ") + o.scenario + ": " + o.skip_reason;
      continue;
    }
    ++row.run.cases;
    ++row.run.families["scenario"];
    if (o.passed()) continue;
    ++row.run.failed;
    row.run.failures.push_back({"ordo verify --property forward.kernel_fail_closed --kernel " + variant,
                                o.scenario + ": expected " + std::string(status_code_name(o.expected)) + ", got " +
                                    std::string(status_code_name(o.got)) + " (" + o.message + ")" +
                                    (o.output_untouched ? "" : "; the output buffer was written"),
                                o.scenario, "", 0});
  }
  row.run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return row;
}

int run_verify(const VerifyOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (const std::string problem = oracle::host_fpu_environment_problem(); !problem.empty()) {
    std::cerr << "ordo verify: the host floating-point environment is not IEEE default: " << problem << "\n";
    return 2;
  }
  reports::Report report;
  report.command = o.command_line;
  report.seed = o.seed;
  report.level = o.level;
  report.started_at = reports::utc_now_iso8601();
  report.environment = reports::probe_environment(!o.no_gpu);
  const bool gpu = report.environment.gpu.has_value();
  if (!gpu && o.require_gpu) {
    std::cerr << "ordo verify: --require-gpu given but no GPU is usable: " << report.environment.gpu_absent_reason << "\n";
    return 3;
  }

  properties::SuiteOptions so;
  so.level = o.level;
  so.gpu = true;  // GPU properties are always listed; without a device they are reported as not run
  so.device_sm = gpu ? report.environment.gpu->sm : 0;
  for (const KernelVariant& v : kernels::forward_variants()) (v.is_mutant ? so.mutant_variants : so.gpu_variants).push_back(v.id);
  for (const auto* list : {&kernels::backward_data_variants(), &kernels::backward_weight_variants()})
    for (const KernelVariant& v : *list) (v.is_mutant ? so.backward_mutants : so.backward_variants).push_back(v.id);
  properties::Suite suite = properties::build_forward_suite(so);
  properties::add_backward_properties(suite, so);

  std::printf("ordo verify: level %d, seed %llu, %s\n", o.level, static_cast<unsigned long long>(o.seed),
              gpu ? ("GPU " + report.environment.gpu->name).c_str()
                  : ("no GPU (" + report.environment.gpu_absent_reason + "): GPU checks will not run").c_str());
  properties::RunOptions ro;
  ro.seed = o.seed;
  ro.only_case = o.only_case;
  ro.cases_override = o.cases;
  auto last_progress = std::chrono::steady_clock::now();
  if (!o.quiet)
    ro.progress = [&last_progress](const std::string& name, std::int64_t done, std::int64_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_progress < std::chrono::seconds(2) && done != total) return;
      last_progress = now;
      std::fprintf(stderr, "  ... %s %lld/%lld\n", name.c_str(), static_cast<long long>(done), static_cast<long long>(total));
    };

  auto add_row = [&](reports::ResultRow row) {
    print_row(row);
    report.results.push_back(std::move(row));
  };
  std::vector<std::string> fail_closed_done;
  for (const properties::PropertySpec& spec : suite.properties) {
    if (!selected(o.properties, spec.name) || !selected(o.kernels, spec.kernel)) continue;
    if ((spec.backend == "cuda" && !gpu) || !spec.not_runnable.empty()) {
      reports::ResultRow row;
      row.run.name = spec.name;
      row.run.description = spec.description;
      row.run.backend = spec.backend;
      row.run.kernel = spec.kernel;
      row.run.contract = spec.contract;
      row.run.expect_failure = spec.expect_failure;
      row.skipped = o.cases >= 0 ? o.cases : spec.cases;
      row.skip_reason = !spec.not_runnable.empty()
                            ? "not run: " + spec.not_runnable
                            : "not run: no usable CUDA device (" + report.environment.gpu_absent_reason + ")";
      add_row(std::move(row));
      continue;
    }
    add_row({properties::run_property(spec, ro), 0, ""});
    // The fail-closed scenarios once per production variant, after its generated properties.
    // (Backward variants: tests/gpu/backward_kernels_test.cpp runs their fail-closed scenarios.)
    if (spec.backend == "cuda" && !spec.expect_failure && selected(o.properties, "forward.kernel_fail_closed") &&
        kernels::find_forward_variant(spec.kernel) != nullptr &&
        std::find(fail_closed_done.begin(), fail_closed_done.end(), spec.kernel) == fail_closed_done.end()) {
      fail_closed_done.push_back(spec.kernel);
      add_row(fail_closed_row(spec.kernel, spec.contract));
    }
  }
  if (report.results.empty()) {
    std::cerr << "ordo verify: no property matched the filters (see `ordo list` and --help)\n";
    return 2;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::filesystem::create_directories(o.out_dir);
  const std::string json_path = o.out_dir + "/report.json", md_path = o.out_dir + "/report.md";
  std::ofstream(json_path) << reports::to_json(report).dump(2) << "\n";
  std::ofstream(md_path) << reports::to_markdown(report);

  std::int64_t cases = 0, failed_rows = 0, skipped_rows = 0;
  for (const auto& row : report.results) {
    cases += row.run.cases;
    const std::string v = row.verdict();
    failed_rows += (v != "pass" && v != "inconclusive");
    skipped_rows += (v == "inconclusive");
  }
  std::printf("\n%s: %zu properties, %lld cases, %lld failed, %lld not run%s (%.1f s)\nreport: %s, %s\n",
              report.all_passed() ? "PASS" : "FAIL", report.results.size(), static_cast<long long>(cases),
              static_cast<long long>(failed_rows), static_cast<long long>(skipped_rows),
              skipped_rows ? (gpu ? " (reasons above)" : " (no GPU: the GPU checks did not run)") : "", report.seconds, json_path.c_str(),
              md_path.c_str());
  return report.all_passed() ? 0 : 1;
}

}  // namespace

void register_verify(CLI::App& app, int& exit_code, const std::string& command_line) {
  static VerifyOptions o;
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Run the property suite on every available backend (host emulator and oracle always; CUDA kernels when a GPU "
      "is present) and write report.json and report.md. Exit 0 only if every check that ran passed; 1 on a failure.");
  cmd->add_option("--level", o.level, "1: CI budget (default); 2: qualification budget for a GPU run")->check(CLI::Range(1, 2));
  cmd->add_option("--seed", o.seed, "seed of every generated case (printed in the report)");
  cmd->add_option("--property", o.properties, "run only this property (repeatable)");
  cmd->add_option("--kernel", o.kernels, "run only on this kernel id (repeatable; see `ordo list`)");
  cmd->add_option("--case", o.only_case, "run only case number I of each selected property (reproduce a failure)");
  cmd->add_option("--cases", o.cases, "number of cases per property, overriding the level");
  cmd->add_option("--out", o.out_dir, "folder for report.json and report.md")->capture_default_str();
  cmd->add_flag("--require-gpu", o.require_gpu, "exit 3 if no GPU is usable instead of reporting GPU checks as not run");
  cmd->add_flag("--no-gpu", o.no_gpu, "do not look for a GPU");
  cmd->add_flag("--quiet", o.quiet, "no progress lines");
  cmd->callback([&exit_code, &command_line] {
    o.command_line = command_line;
    exit_code = run_verify(o);
  });
}

}  // namespace ordo::tools
