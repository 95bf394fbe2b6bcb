// `ordo selftest`: proves the harness. Every mutant of the zoo (subjects/mutants/mutant_zoo.h) claims a
// contract and breaks it in one realistic way; the suite `ordo verify` runs on a subject of its kind must
// kill it. Per mutant: killed or survived, by which property and value family, after how many cases and
// seconds, the minimised counterexample; then the kill rate and the median and maximum cases to kill.
// The report has the stable core (reports/report.h: one row per mutant), so `ordo report` renders it.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <set>

#include "core/atomic_file.h"
#include "core/contract_file.h"
#include "oracle/fpu_environment.h"
#include "properties/selftest_runner.h"
#include "properties/selftest_suite.h"
#include "reports/report.h"
#include "subjects/environment_probe.h"
#include "tools/cli_values.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/interrupt.h"
#include "tools/report_command_common.h"
#include "tools/summary_output.h"
#include "tools/selftest_printing.h"

namespace ordo::tools {
namespace {

struct SelftestOptions {
  std::vector<std::string> mutants, properties;
  std::string budget_text = "2000", seed_text = "1", case_text, out = "ordo-selftest", corpus = "corpus";
  bool gpu = false, host = false, quiet = false, list = false;
  int level = 1;
  std::string json;  // --json PATH|-
  std::string command_line;
};


// Every name must be known; a misspelt one is a usage error with the nearest names.
void require_known(const std::vector<std::string>& given, const std::vector<std::string>& known, const char* option,
                   const char* where) {
  for (const std::string& v : given) {
    if (std::find(known.begin(), known.end(), v) != known.end()) continue;
    std::string hint;
    for (const std::string& n : nearest_names(v, known)) hint += (hint.empty() ? "" : ", ") + n;
    std::string message = "no ";
    message.append(option + 2).append(" \"").append(v).append("\"; nearest: ").append(hint);
    message.append(" (").append(where).append(")");
    throw CLI::ValidationError(option, message);
  }
}

PropertyRun not_run_row(const mutants::MutantInfo& m, const std::string& backend, std::int64_t budget,
                                    const std::string& why) {
  PropertyRun row;
  row.name = "selftest.suite";
  row.description = "MUTANT: " + m.defect;
  row.kernel = m.id;
  row.contract = m.contract;
  row.backend = backend;
  row.expect_failure = true;
  row.requested = budget;
  row.skipped = budget;
  row.skip_reason = "not run: " + why;
  return row;
}

std::string format_progress(std::size_t index, std::size_t total, const std::string& id, std::int64_t cases,
                            std::int64_t budget, double seconds) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "selftest: mutant %zu of %zu, %s: %lld of at most %lld cases, %.0f s elapsed", index,
                total, id.c_str(), static_cast<long long>(cases), static_cast<long long>(budget), seconds);
  return buf;
}

int run_selftest(const SelftestOptions& o) {
  if (o.list) {
    print_zoo(mutants::mutant_zoo());
    return 0;
  }
  if (o.gpu && o.host)
    throw CLI::ValidationError("selftest", "--gpu and --host exclude each other (neither: both sides)");
  properties::HuntOptions ho;
  ho.seed = parse_seed(o.seed_text, "--seed");
  ho.budget = parse_integer(o.budget_text, "--budget", 1, kMaxCases);
  if (!o.case_text.empty()) ho.only_case = parse_integer(o.case_text, "--case", 0, kMaxCases - 1);
  require_known(o.mutants, mutants::mutant_ids(), "--mutant", "ordo selftest --list");
  if (const std::string problem = oracle::host_fpu_environment_problem(); !problem.empty()) {
    std::fprintf(stderr, "ordo selftest: the host floating-point environment is not IEEE default: %s\n",
                 problem.c_str());
    return kExitUsage;
  }
  const std::unique_ptr<SummaryOutput> summary = open_report_outputs(o.out, o.json, "selftest");
  if (!summary) return kExitUnwritable;

  reports::Report report = begin_report(o.command_line, ho.seed, o.level, !o.host);
  const bool gpu = report.environment.gpu.has_value();
  if (o.gpu && !gpu) {
    std::fprintf(stderr, "ordo selftest: --gpu given but no GPU is usable: %s\n",
                 report.environment.gpu_absent_reason.c_str());
    return kExitNothingRan;
  }
  std::vector<properties::MutantSide> sides;
  if (!o.gpu) sides.push_back(properties::MutantSide::host);
  if (o.gpu || (!o.host && gpu)) sides.push_back(properties::MutantSide::gpu);
  properties::SuiteOptions so;
  so.level = o.level;
  so.gpu_present = gpu;
  so.device_sm = gpu ? report.environment.gpu->sm : 0;
  so.gpu_absent_reason = report.environment.gpu_absent_reason;

  // The work: (mutant, side) pairs. A mutant with no side in this run is listed as not run, with why.
  struct Job {
    const mutants::MutantInfo* mutant;
    properties::MutantSide side;
    std::string skip;  // non-empty: not run, this is why
  };
  std::vector<Job> jobs;
  const std::set<std::string> named(o.mutants.begin(), o.mutants.end());
  for (const mutants::MutantInfo& m : mutants::mutant_zoo()) {
    if (!named.empty() && !named.count(m.id)) continue;
    const std::size_t before = jobs.size();
    for (const auto side : sides)
      if (side == properties::MutantSide::host ? m.host : m.gpu) jobs.push_back({&m, side, ""});
    if (jobs.size() > before) continue;
    const bool gpu_side = m.gpu;
    jobs.push_back({&m, gpu_side ? properties::MutantSide::gpu : properties::MutantSide::host,
                    gpu_side ? (gpu ? "this run is --host"
                                    : "no usable CUDA device (" + report.environment.gpu_absent_reason + ")")
                             : "this run is --gpu; " + m.note});
  }

  // Build every suite first: a misspelt --property is then an error before any work.
  std::vector<std::unique_ptr<properties::MutantSuite>> suites;
  std::vector<std::string> property_names;
  for (const Job& j : jobs) {
    suites.push_back(j.skip.empty() ? properties::build_mutant_suite(*j.mutant, j.side, so, o.corpus) : nullptr);
    if (suites.back())
      for (const properties::PropertySpec& s : suites.back()->specs()) property_names.push_back(s.name);
  }
  require_known(o.properties, property_names, "--property", "the properties of the mutants selected");

  std::printf("ordo selftest: %zu mutant run(s), seed %llu, at most %lld cases each, %s\n", jobs.size(),
              static_cast<unsigned long long>(ho.seed), static_cast<long long>(ho.budget),
              gpu ? ("GPU " + report.environment.gpu->name).c_str()
                  : (o.host ? "host only" : ("no GPU (" + report.environment.gpu_absent_reason + ")").c_str()));
  std::fflush(stdout);
  const InterruptGuard interrupt;
  ho.stop = interrupt.flag();
  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto last_line = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < jobs.size() && !interrupt.stopped(); ++i) {
    const mutants::MutantInfo& m = *jobs[i].mutant;
    const std::string side(properties::side_name(jobs[i].side));
    ho.reproduce_prefix = "ordo selftest --" + side + (o.level != 1 ? " --level " + std::to_string(o.level) : "");
    if (!o.quiet)
      ho.progress = [&, i](std::int64_t cases, std::int64_t budget) {
        const std::string line = format_progress(i + 1, jobs.size(), m.id, cases, budget, elapsed());
        if (tty) {
          std::fprintf(stderr, "\r%-120s", line.c_str());
        } else if (std::chrono::steady_clock::now() - last_line >= std::chrono::seconds(10)) {
          std::fprintf(stderr, "%s\n", line.c_str());
          last_line = std::chrono::steady_clock::now();
        }
      };
    const std::string backend = side == "gpu" ? "cuda" : "host-mutant";
    PropertyRun row;
    if (!jobs[i].skip.empty()) {
      row = not_run_row(m, backend, ho.budget, jobs[i].skip);
    } else if (!suites[i]->not_run.empty()) {
      row = not_run_row(m, backend, ho.budget, suites[i]->not_run);
    } else {
      properties::MutantSuite& ms = *suites[i];
      std::vector<properties::PropertySpec> specs;
      for (const properties::PropertySpec& s : ms.specs())
        if (o.properties.empty() || std::find(o.properties.begin(), o.properties.end(), s.name) != o.properties.end())
          specs.push_back(s);
      row = properties::hunt_mutant({m.id, m.defect, m.contract, ms.backend}, specs, ho);
    }
    if (tty && !o.quiet) std::fprintf(stderr, "\r%-120s\r", "");
    print_mutant_row(row, side);
    report.results.push_back({std::move(row)});
  }
  report.seconds = elapsed();
  report.interrupted = interrupt.stopped();
  std::vector<PropertyRun> rows;
  for (const reports::ResultRow& r : report.results) rows.push_back(r.run);
  print_selftest_summary(rows);
  if (!write_report_files(report, o.out + "/report.json", o.out + "/report.md", summary.get(), "selftest"))
    return kExitUnwritable;
  std::printf("%s (%.1f s)\nreport: %s/report.json, %s/report.md\n",
              report.interrupted     ? "INTERRUPTED"
              : report.nothing_ran() ? "INCONCLUSIVE: no mutant could run here, so the self-test proved nothing"
              : report.all_passed()  ? "PASS: every mutant that ran was killed"
                                     : "FAIL",
              report.seconds, o.out.c_str(), o.out.c_str());
  return exit_code_of(report, interrupt.signal());
}

}  // namespace

void register_selftest(CLI::App& app, int& exit_code, const std::string& command_line) {
  static SelftestOptions o;
  CLI::App* cmd = app.add_subcommand(
      "selftest",
      "Prove the harness: run the suite `ordo verify` runs on a subject of each mutant's kind (forward, dW/db, exact "
      "engine, error bound, emulator) until it kills the mutant or the budget is spent, and report per mutant the "
      "property and value family that killed it, the cases and seconds it took and the minimised counterexample; "
      "then the kill rate and the median and maximum cases to kill. Host twins run everywhere, GPU mutants on a GPU. "
      "Exit 0 every mutant that ran was killed (mutants that cannot run here are listed with the reason), 1 a mutant "
      "survived or could not be checked, 2 bad usage, 3 nothing could run here (or --gpu without a GPU), 4 unwritable "
      "output, 130 / 143 interrupted by SIGINT / SIGTERM.");
  cmd->add_option("--mutant", o.mutants, "only this mutant (repeatable; ordo selftest --list)");
  cmd->add_option("--budget", o.budget_text, "cases per mutant at most, over all its properties")
      ->check(integer_in(1, kMaxCases))
      ->capture_default_str();
  cmd->add_option("--seed", o.seed_text, "seed of every case")->check(seed_value())->capture_default_str();
  cmd->add_flag("--gpu", o.gpu, "the GPU mutants only (exit 3 without a GPU)");
  cmd->add_flag("--host", o.host, "the host twins and the oracle's mutants only; no GPU is looked for");
  cmd->add_option("--out", o.out, "folder for report.json and report.md")->capture_default_str();
  cmd->add_option("--corpus", o.corpus, "corpus folder whose golden/ GPU bits judge the emulator mutants")
      ->capture_default_str();
  cmd->add_option("--property", o.properties, "only this property (repeatable; with --case: reproduce a kill)");
  cmd->add_option("--case", o.case_text, "only case I of each property (reproduce a kill)")
      ->check(integer_in(0, kMaxCases - 1));
  cmd->add_option("--level", o.level, "shape limits and budgets of the suite: 1 or 2")->check(CLI::Range(1, 2));
  add_quiet_and_summary_flags(cmd, o.quiet, o.json, "no progress line");
  cmd->add_flag("--list", o.list, "print the zoo (id, category, host, GPU, defect) and exit");
  run_with_command_line(cmd, o, exit_code, command_line, run_selftest);
}

}  // namespace ordo::tools
