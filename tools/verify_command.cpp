#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "core/atomic_file.h"
#include "core/contract_file.h"
#include "oracle/fpu_environment.h"
#include "properties/suite.h"
#include "reports/report.h"
#include "subjects/environment_probe.h"
#include "subjects/plugin_subject.h"
#include "subjects/registered_subjects.h"
#include "tools/cli_values.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/interrupt.h"
#include "tools/launch_option_flags.h"
#include "tools/plugin_isolation_options.h"
#include "tools/report_command_common.h"
#include "tools/result_printing.h"
#include "tools/summary_output.h"

namespace ordo::tools {
namespace {

struct VerifyOptions {
  int level = 1;
  std::uint64_t seed = 1;
  std::string seed_text = "1", cases_text, case_text;  // parsed strictly (tools/cli_values.h)
  std::vector<std::string> properties;  // filter; empty = all
  std::vector<std::string> kernels;     // filter; empty = all
  std::vector<std::string> plugins;     // subjects from shared libraries instead of ordo's variants
  PluginIsolationFlags isolation;       // where the plugins run (isolated by default)
  kernels::LaunchOptions launch;        // how ordo's variants run (--trace-launch, --wgmma-*, --fp32-*)
  std::vector<std::string> contracts;   // contract ids or files: host properties for these (filter)
  std::int64_t only_case = -1;
  std::int64_t cases = -1;
  std::string out_dir = "ordo-report";
  bool require_gpu = false;
  bool no_gpu = false;
  bool quiet = false;
  std::string json;  // --json PATH|-
  std::string command_line;
};

bool selected(const std::vector<std::string>& filter, const std::string& value) {
  return filter.empty() || std::find(filter.begin(), filter.end(), value) != filter.end();
}

// Every filter value must name something in the suite; a misspelt one is an error, never a silent drop.
std::string unmatched_filter(const std::vector<std::string>& filter, const std::vector<std::string>& known,
                             const char* what) {
  for (const std::string& v : filter) {
    if (std::find(known.begin(), known.end(), v) != known.end()) continue;
    std::string hint;
    for (const std::string& n : nearest_names(v, known)) hint += (hint.empty() ? "" : ", ") + n;
    return std::string("no ").append(what).append(" named \"").append(v).append("\"; nearest: ").append(hint).append(
        " (`ordo list`)");
  }
  return "";
}

properties::Suite build_suite(const VerifyOptions& o, const properties::SuiteOptions& so_base) {
  properties::SuiteOptions so = so_base;
  properties::Suite suite;
  std::vector<Contract> chosen;
  for (const std::string& c : o.contracts) chosen.push_back(resolve_contract(c));
  if (!o.plugins.empty()) {
    std::set<std::string> seen;
    for (const std::string& path : o.plugins) {
      PluginSubjects loaded = load_plugin_as_flagged(path, o.isolation);
      for (auto& f : loaded.forward) {
        if (seen.insert(f->contract_id()).second && chosen.empty()) so.contracts.push_back(f->traits().contract);
        properties::add_forward_subject(suite, std::move(f), so);
      }
      for (auto& b : loaded.backward) {
        if (seen.insert(b->contract_id()).second && chosen.empty()) so.contracts.push_back(b->traits().contract);
        properties::add_backward_subject(suite, std::move(b), so);
      }
    }
    if (!chosen.empty()) so.contracts = chosen;
    so.exact_engines = false;
    properties::add_host_properties(suite, so);
    return suite;
  }
  so.contracts = chosen.empty() ? properties::builtin_contracts() : chosen;
  properties::add_host_properties(suite, so);
  for (auto& f : registered_forward_subjects(o.launch)) properties::add_forward_subject(suite, std::move(f), so);
  for (auto& b : registered_backward_subjects(o.launch)) properties::add_backward_subject(suite, std::move(b), so);
  return suite;
}

int run_verify(VerifyOptions o) {
  const auto start = std::chrono::steady_clock::now();
  o.seed = parse_seed(o.seed_text, "--seed");
  if (!o.cases_text.empty()) o.cases = parse_integer(o.cases_text, "--cases", 1, kMaxCases);
  if (!o.case_text.empty()) o.only_case = parse_integer(o.case_text, "--case", 0, kMaxCases - 1);
  // An unusable output folder is found before any work, not after the whole run.
  const std::unique_ptr<SummaryOutput> summary = open_report_outputs(o.out_dir, o.json, "verify");
  if (!summary) return kExitUnwritable;
  if (const std::string problem = oracle::host_fpu_environment_problem(); !problem.empty()) {
    std::cerr << "ordo verify: the host floating-point environment is not IEEE default: " << problem << "\n";
    return kExitUsage;
  }
  reports::Report report = begin_report(o.command_line, o.seed, o.level, !o.no_gpu);
  const bool gpu = report.environment.gpu.has_value();
  if (!gpu && o.require_gpu) {
    std::cerr << "ordo verify: --require-gpu given but no GPU is usable: " << report.environment.gpu_absent_reason << "\n";
    return kExitNothingRan;
  }

  properties::SuiteOptions so;
  so.level = o.level;
  so.gpu_present = gpu;
  so.device_sm = gpu ? report.environment.gpu->sm : 0;
  so.gpu_absent_reason = report.environment.gpu_absent_reason;
  properties::Suite suite = build_suite(o, so);

  std::vector<std::string> property_names, kernel_names;
  for (const properties::PropertySpec& spec : suite.properties) {
    property_names.push_back(spec.name);
    kernel_names.push_back(spec.kernel);
  }
  for (const std::string& problem : {unmatched_filter(o.properties, property_names, "property"),
                                     unmatched_filter(o.kernels, kernel_names, "kernel")})
    if (!problem.empty()) {
      std::cerr << "ordo verify: " << problem << "\n";
      return kExitUsage;
    }

  std::printf("ordo verify: level %d, seed %llu, %s\n", o.level, static_cast<unsigned long long>(o.seed),
              gpu ? ("GPU " + report.environment.gpu->name).c_str()
                  : ("no GPU (" + report.environment.gpu_absent_reason + "): GPU checks will not run").c_str());
  properties::RunOptions ro;
  ro.seed = o.seed;
  ro.only_case = o.only_case;
  ro.cases_override = o.cases;
  ro.reproduce_prefix = "ordo verify --level " + std::to_string(o.level);
  const InterruptGuard interrupt;
  ro.stop = interrupt.flag();
  for (const std::string& p : o.plugins) ro.reproduce_prefix += " --plugin " + p;
  if (!o.plugins.empty()) ro.reproduce_prefix += reproduce_isolation_flags(o.isolation);
  ro.reproduce_prefix += kernels::launch_options_text(o.launch);
  auto last_progress = std::chrono::steady_clock::now();
  if (!o.quiet)
    ro.progress = [&last_progress](const std::string& name, std::int64_t done, std::int64_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_progress < std::chrono::seconds(2) && done != total) return;
      last_progress = now;
      std::fprintf(stderr, "  ... %s %lld/%lld\n", name.c_str(), static_cast<long long>(done), static_cast<long long>(total));
    };

  for (const properties::PropertySpec& spec : suite.properties) {
    if (!selected(o.properties, spec.name) || !selected(o.kernels, spec.kernel)) continue;
    if (interrupt.stopped()) break;
    reports::ResultRow row;
    if (!spec.not_runnable.empty())
      row.run = properties::not_run(spec, o.cases >= 0 ? o.cases : spec.cases, "not run: " + spec.not_runnable);
    else
      row.run = properties::run_property(spec, ro);
    print_row(row);
    report.results.push_back(std::move(row));
  }
  if (report.results.empty()) {
    std::cerr << "ordo verify: no property matched the filters (see `ordo list` and --help)\n";
    return kExitUsage;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.interrupted = interrupt.stopped();

  const std::string json_path = o.out_dir + "/report.json";
  const std::string md_path = o.out_dir + "/report.md";
  if (!write_report_files(report, json_path, md_path, nullptr, "verify")) return kExitUnwritable;
  try {
    summary->write(report);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo verify: the summary was not written: %s\n", e.what());
    return kExitUnwritable;
  }
  if (report.interrupted) {
    std::printf("\nINTERRUPTED after %zu properties (%.1f s): the report says so\nreport: %s, %s\n", report.results.size(),
                report.seconds, json_path.c_str(), md_path.c_str());
    return exit_code_of(report, interrupt.signal());
  }

  std::int64_t cases = 0, failed_rows = 0, skipped_rows = 0;
  for (const auto& row : report.results) {
    cases += row.run.cases;
    const Verdict v = row.run.verdict();
    failed_rows += verdict_fails(v);
    skipped_rows += v == Verdict::inconclusive;
  }
  std::printf("\n%s: %zu properties, %lld cases, %lld failed, %lld not run%s (%.1f s)\nreport: %s, %s\n",
              report.nothing_ran() ? "INCONCLUSIVE (nothing ran)" : report.all_passed() ? "PASS" : "FAIL",
              report.results.size(), static_cast<long long>(cases),
              static_cast<long long>(failed_rows), static_cast<long long>(skipped_rows),
              skipped_rows ? (gpu ? " (reasons above)" : " (no GPU: the GPU checks did not run)") : "", report.seconds,
              json_path.c_str(), md_path.c_str());
  return exit_code_of(report);
}

}  // namespace

void register_verify(CLI::App& app, int& exit_code, const std::string& command_line) {
  static VerifyOptions o;
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Run the property suite on every available subject (ordo's variants, or the operations of --plugin libraries; "
      "host emulators and the exact oracle always) and write report.json and report.md. Exit 0 only if every check "
      "that ran passed (rows that cannot run here are listed with the reason); 1 on a failure; 2 on bad usage; 3 "
      "when nothing could run here (or --require-gpu and no GPU); 4 when the report cannot be written; 130 / 143 when "
      "interrupted by SIGINT / SIGTERM (the report of what ran is written, marked interrupted).");
  cmd->add_option("--level", o.level, "1: CI budget (default); 2: qualification budget for a GPU run")->check(CLI::Range(1, 2));
  cmd->add_option("--seed", o.seed_text, "seed of every generated case (printed in the report)")->check(seed_value());
  cmd->add_option("--property", o.properties, "run only this property (repeatable; `ordo list --properties`)");
  cmd->add_option("--kernel", o.kernels, "run only on this subject id (repeatable; see `ordo list`)");
  cmd->add_option("--plugin", o.plugins,
                  "a shared library implementing include/ordo/subject.h: verify its operations instead of ordo's "
                  "variants (repeatable)");
  add_plugin_isolation_options(cmd, o.isolation);
  add_launch_option_flags(cmd, o.launch);
  cmd->add_option("--contract", o.contracts,
                  "a contract id or an ordo.contract/1 JSON file: run the host properties of these contracts only "
                  "(repeatable)");
  cmd->add_option("--case", o.case_text, "run only case number I of each selected property (reproduce a failure)")
      ->check(integer_in(0, kMaxCases - 1));
  cmd->add_option("--cases", o.cases_text, "number of cases per property, overriding the level")->check(integer_in(1, kMaxCases));
  cmd->add_option("--out", o.out_dir, "folder for report.json and report.md")->capture_default_str();
  cmd->add_flag("--require-gpu", o.require_gpu, "exit 3 if no GPU is usable instead of reporting GPU checks as not run");
  cmd->add_flag("--no-gpu", o.no_gpu, "do not look for a GPU");
  add_quiet_and_summary_flags(cmd, o.quiet, o.json, "no progress lines");
  run_with_command_line(cmd, o, exit_code, command_line, run_verify);
}

}  // namespace ordo::tools
