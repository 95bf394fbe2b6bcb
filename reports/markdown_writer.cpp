// The Markdown report, for a pull request: the verdict first, in one bold line; what was checked; the
// tables; the failures with the commands that reproduce them; provenance last. Also the summary and the
// provenance lines that html_writer.cpp shows the same way.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <sstream>

#include "reports/markdown_failures.h"
#include "reports/markdown_text.h"
#include "reports/report.h"
#include "reports/row_text.h"
#include "reports/svg_charts.h"

namespace ordo::reports {
namespace {

void add_distinct(std::vector<std::string>& list, const std::string& v) {
  if (!v.empty() && std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

// The value of "--seed N" in a command line, if any.
bool seed_in(const std::string& command, std::uint64_t* seed) {
  const auto p = command.find("--seed ");
  if (p == std::string::npos) return false;
  return std::sscanf(command.c_str() + p + 7, "%" SCNu64, seed) == 1;
}

// "230 cases and 76 relations", "76 relations" (a check of the invariances only), "0 cases".
std::string cases_and_relations(const ReportSummary& s) {
  if (s.relations == 0) return count_text(s.cases, "cases");
  if (s.cases == 0) return count_text(s.relations, "relations");
  return count_text(s.cases, "cases") + " and " + count_text(s.relations, "relations");
}

std::string headline(const Report& r, const ReportSummary& s) {
  std::ostringstream h;
  const std::string cases = cases_and_relations(s);
  if (s.rows == 0) return "FAIL: the report holds no checks";
  if (r.interrupted) {
    h << "INTERRUPTED: stopped after " << s.rows << (s.rows == 1 ? " check" : " checks") << " and " << cases
      << "; an interrupted run is never a pass";
  } else if (s.verdict == "inconclusive") {
    h << "INCONCLUSIVE: nothing ran: none of the " << s.rows << (s.rows == 1 ? " check" : " checks")
      << " could run here (each row says why); a run in which nothing ran is never a pass";
  } else if (s.verdict == "fail") {
    h << "FAIL: " << s.failing_rows << " of " << s.rows << " checks failed (";
    const char* sep = "";
    for (const auto& [verdict, n] : s.failing_verdicts) {
      h << sep << verdict << " " << n;
      sep = ", ";
    }
    h << "); " << s.passed_rows << " passed, " << s.not_run_rows << " did not run; " << cases;
  } else if (s.not_run_rows > 0) {
    h << "PASS: " << s.passed_rows << " of " << s.rows << " checks passed, " << s.not_run_rows
      << " did not run (each with its reason), none failed; " << cases;
  } else {
    h << "PASS: all " << s.rows << " checks passed; " << cases;
  }
  return h.str();
}

// A table cell: '|' would end the cell, a newline the row.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

std::string code_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "`" : ", `") + i + "`";
  return out;
}

std::string not_recorded(const std::string& v) {
  return v.empty() ? "not recorded by the build that wrote this report" : v;
}

}  // namespace

std::string failed_cases_text(const ReportSummary& s) {
  std::string t = grouped(s.failed_cases) + " failed";
  if (s.self_test_failed_cases > 0)
    t += " (" + (s.self_test_failed_cases == s.failed_cases ? std::string("all") : grouped(s.self_test_failed_cases)) +
         " in self-tests, whose broken subjects must fail)";
  return t;
}

ReportSummary summarize(const Report& r) {
  ReportSummary s;
  s.verdict = report_verdict(r);
  std::set<std::uint64_t> seen_seeds{r.seed};
  s.seeds.push_back(r.seed);
  add_distinct(s.commands, r.command);
  for (const ResultRow& row : r.results) {
    const PropertyRun& run = row.run;
    const Verdict v = run.verdict();
    ++s.rows;
    if (v == Verdict::pass)
      ++s.passed_rows;
    else if (row_lets_run_pass(v, run.skip_reason))
      ++s.not_run_rows;
    else {
      ++s.failing_rows;
      ++s.failing_verdicts[std::string(verdict_name(v))];
    }
    s.elements += run.elements;
    add_distinct(s.properties, run.name);
    add_distinct(s.subjects, run.kernel);
    add_distinct(s.contracts, run.contract);
    if (counts_relations(run)) {
      s.relations += run.cases;
      s.failed_relations += run.failed;
    } else {
      s.cases += run.cases;
      s.requested += run.requested;
      s.skipped += run.skipped;
      s.failed_cases += run.failed;
      if (run.expect_failure) s.self_test_failed_cases += run.failed;
      for (const auto& [name, n] : run.families) s.family_cases[name] += n;
      for (const auto& [name, n] : run.shape_classes) s.shape_cases[name] += n;
    }
    for (const auto& [family, ratio] : run.max_error_over_bound_by_family) {
      auto [it, fresh] = s.tightness[run.contract].emplace(family, ratio);
      if (!fresh && !(it->second >= ratio)) it->second = ratio;  // NaN wins: it must be seen
    }
    for (const FailureRecord& f : run.failures) {
      add_distinct(s.commands, f.reproduce);
      std::uint64_t seed = 0;
      if (seed_in(f.reproduce, &seed) && seen_seeds.insert(seed).second) s.seeds.push_back(seed);
    }
  }
  std::vector<PropertyRun> runs;
  for (const ResultRow& row : r.results) runs.push_back(row.run);
  s.selftest = reports::summarize_selftest(runs);
  s.headline = headline(r, s);
  return s;
}

std::string selftest_line(const ReportSummary& s) {
  const reports::SelftestSummary& t = s.selftest;
  std::ostringstream l;
  l << t.mutants << (t.mutants == 1 ? " mutant: " : " mutants: ") << t.killed << " killed, " << t.survived
    << " survived, " << t.not_run << " not run, " << t.tool_errors << " could not be checked";
  if (t.kill_rate) l << "; kill rate " << svg::format_value(100 * *t.kill_rate) << "% of those that ran";
  if (t.median_cases_to_kill)
    l << "; cases to kill: median " << svg::format_value(*t.median_cases_to_kill) << ", maximum " << t.max_cases_to_kill;
  return l.str();
}

std::vector<ProvenanceItem> provenance(const Report& r, const ReportSummary& s) {
  const ToolInfo& t = r.tool;
  std::vector<ProvenanceItem> p;
  p.push_back({"ordo", t.version, "tool.version"});
  p.push_back({"git commit", t.git_commit + (t.git_dirty ? " (dirty tree: uncommitted changes)" : " (clean tree)"),
               "tool.git_commit"});
  p.push_back({"build type", not_recorded(t.build_type), "tool.build_type"});
  p.push_back({"compiler", not_recorded(t.compiler), "tool.compiler"});
  p.push_back({"CUDA compiler (nvcc)", not_recorded(t.cuda), "tool.cuda"});
  p.push_back({"host flags", not_recorded(t.flags), "tool.flags"});
  p.push_back({"device flags", not_recorded(t.cuda_flags), "tool.cuda_flags"});
  p.push_back(
      {"host",
       r.environment.host + ", " + r.environment.cpu + ", " + std::to_string(r.environment.cpu_threads) + " threads",
       "environment"});
  if (r.environment.gpu) {
    const GpuInfo& g = *r.environment.gpu;
    p.push_back({"GPU", g.name + ", sm_" + std::to_string(g.sm) + ", " + std::to_string(g.sm_count) + " SMs",
                 "environment.gpu"});
    p.push_back({"driver / CUDA runtime", g.driver + " / " + g.cuda_runtime, "environment.gpu.driver"});
  } else {
    p.push_back({"GPU", "none (" + r.environment.gpu_absent_reason + ")", "environment.gpu_absent_reason"});
  }
  std::string seeds;
  for (std::uint64_t seed : s.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(seed);
  p.push_back({s.seeds.size() == 1 ? "seed" : "seeds", seeds, "seed"});
  p.push_back({"level", std::to_string(r.level), "level"});
  p.push_back({"started", r.started_at + " (UTC), " + svg::format_value(r.seconds) + " s", "started_at"});
  p.push_back({"cases",
               std::to_string(s.cases) + " run of " + std::to_string(s.requested) + " planned, " +
                   std::to_string(s.skipped) + " skipped, " + failed_cases_text(s) +
                   (s.relations > 0 ? "; " + std::to_string(s.relations) + " relations judged, " +
                                          std::to_string(s.failed_relations) + " failed"
                                    : "") +
                   "; " + std::to_string(s.elements) + " output elements judged",
               "results[].cases"});
  return p;
}

namespace {

// Everything before the failures: the verdict, what was checked, the tables.
std::string markdown_before_failures(const Report& r, const ReportSummary& s) {
  std::ostringstream md;
  md << "**" << s.headline << "**\n\n";
  md << "`" << r.command << "` (ordo " << r.tool.version << " at " << r.tool.git_commit.substr(0, 12)
     << (r.tool.git_dirty ? ", dirty tree" : "") << "; "
     << (r.environment.gpu ? r.environment.gpu->name + ", sm_" + std::to_string(r.environment.gpu->sm)
                           : std::string("no GPU"))
     << "; seed " << r.seed << ")\n";

  md << "\n### What was checked\n\n";
  md << "- " << count_text(static_cast<std::int64_t>(s.properties.size()), "properties") << ": "
     << code_list(s.properties) << "\n";
  md << "- " << count_text(static_cast<std::int64_t>(s.subjects.size()), "subjects") << ": " << code_list(s.subjects)
     << "\n";
  md << "- " << count_text(static_cast<std::int64_t>(s.contracts.size()), "contracts") << ": " << code_list(s.contracts)
     << "\n";
  if (s.requested > 0 || s.relations == 0)  // a check of the invariances alone has no case to count
    md << "- " << grouped(s.cases) << " cases run of " << grouped(s.requested) << " planned (" << grouped(s.skipped)
       << " skipped), " << failed_cases_text(s) << ", " << grouped(s.elements) << " output elements judged\n";
  if (s.relations > 0)
    md << "- " << count_text(s.relations, "relations") << " judged (pairs of outputs that must be equal), "
       << grouped(s.failed_relations) << " failed\n";
  if (!s.family_cases.empty()) {
    md << "\n| cases per value family | cases |\n| --- | ---: |\n";
    for (const auto& [name, n] : s.family_cases) md << "| " << cell(name) << " | " << n << " |\n";
  }
  if (!s.shape_cases.empty()) {
    md << "\n| cases per shape class | cases |\n| --- | ---: |\n";
    for (const auto& [name, n] : s.shape_cases) md << "| " << cell(name) << " | " << n << " |\n";
  }

  if (s.selftest.mutants > 0) {
    // One row per deliberately broken subject: the cost of each kill.
    md << "\n### Self-test\n\n" << selftest_line(s) << "\n\n| mutant | backend | outcome | killed by | value family | "
          "cases | seconds |\n| --- | --- | --- | --- | --- | ---: | ---: |\n";
    for (const ResultRow& row : r.results) {
      const auto& run = row.run;
      if (!run.expect_failure) continue;
      const bool killed = run.verdict() == Verdict::pass;
      md << "| `" << cell(run.kernel) << "` | " << cell(run.backend) << " | " << reports::mutant_outcome(run.verdict()) << " | "
         << (killed ? cell(run.name) : "-") << " | "
         << (killed && !run.failures.empty() && !run.failures[0].family.empty() ? cell(run.failures[0].family) : "-")
         << " | " << run.cases << " | " << svg::format_value(run.seconds) << " |\n";
    }
  }

  md << "\n### Results\n\n| property | subject | contract | backend | verdict | run | failed | skipped | elements | "
        "max error/bound |\n";
  md << "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n";
  for (const ResultRow& row : r.results) {
    const auto& run = row.run;
    md << "| " << cell(run.name) << " | `" << cell(run.kernel) << "` | " << cell(run.contract) << " | "
       << cell(run.backend) << " | " << row.verdict() << " | " << run.cases << " "
       << cell(unit_for(run.cases, run.unit)) << " | " << run.failed << " | " << run.skipped << " | " << run.elements
       << " | " << (run.max_error_over_bound != 0 ? svg::format_value(run.max_error_over_bound, 6) : "-") << " |\n";
  }
  bool any_skip = false;
  for (const ResultRow& row : r.results)
    if (!row.run.skip_reason.empty()) {
      if (!any_skip) md << "\nNot run, or not all run:\n\n";
      any_skip = true;
      md << "- " << row.run.name << " (`" << row.run.kernel << "`): " << row.run.skip_reason << "\n";
    }
  if (!s.tightness.empty()) {
    // Rows are value families, columns contracts: few contracts have a bound, many families do.
    std::set<std::string> families;
    for (const auto& [contract, by_family] : s.tightness)
      for (const auto& [family, ratio] : by_family) families.insert(family);
    md << "\n### Tightness of the error bound (max error / bound; at most 1 is within the bound)\n\n| value family |";
    for (const auto& [contract, by_family] : s.tightness) md << " " << cell(contract) << " |";
    md << "\n| --- |";
    for (std::size_t i = 0; i < s.tightness.size(); ++i) md << " ---: |";
    md << "\n";
    for (const std::string& family : families) {
      md << "| " << cell(family) << " |";
      for (const auto& [contract, by_family] : s.tightness) {
        const auto it = by_family.find(family);
        md << " " << (it == by_family.end() ? "-" : svg::format_value(it->second, 6)) << " |";
      }
      md << "\n";
    }
  }
  if (!r.bench.empty()) {
    md << "\n### Bench (time ratio = kernel time / cuBLAS time, lower is faster)\n\n";
    md << "| kernel | M | N | K | ms | cuBLAS ms | time ratio |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const auto& b : r.bench)
      md << "| `" << cell(b.value("kernel", "")) << "` | " << b.value("M", 0) << " | " << b.value("N", 0) << " | "
         << b.value("K", 0) << " | " << svg::format_value(b.value("ms", 0.0)) << " | "
         << svg::format_value(b.value("cublas_ms", 0.0)) << " | "
         << (b.contains("error") ? "error: " + cell(b.value("error", "")) : svg::format_value(b.value("ratio", 0.0)))
         << " |\n";
  }
  if (!r.timeline.empty()) {
    md << "\n### Campaign timeline\n\n| seconds | cases | failures |\n| ---: | ---: | ---: |\n";
    for (const TimelinePoint& p : r.timeline)
      md << "| " << svg::format_value(p.seconds) << " | " << p.cases << " | " << p.failures << " |\n";
  }

  return md.str();
}

// Provenance, and the commands that reproduce the run and each failure shown (report.json has them all).
std::string markdown_provenance(const Report& r, const ReportSummary& s, const std::vector<std::string>& reproduce) {
  std::ostringstream md;
  md << "\n### Provenance\n\n";
  for (const ProvenanceItem& item : provenance(r, s)) md << "- " << item.label << ": " << item.value << "\n";
  std::vector<std::string> commands;
  add_distinct(commands, r.command);
  for (const std::string& c : reproduce) add_distinct(commands, c);
  const std::size_t hidden = s.commands.size() - commands.size();  // s.commands holds every one of them
  std::string block;
  for (const std::string& c : commands) block += c + "\n";
  md << "\nReproduce (the run, then each failure shown):\n\n" << markdown::fenced(block);
  if (hidden > 0) md << "\n... and " << hidden << " more in report.json (results[].failures[].reproduce)\n";
  return md.str();
}

}  // namespace

std::string to_markdown(const Report& r) {
  const ReportSummary s = summarize(r);
  const std::string before = markdown_before_failures(r, s);
  // The failures get what the rest leaves; the provenance grows by the commands of the failures shown,
  // which markdown_failures counts in its budget.
  const std::size_t rest = before.size() + markdown_provenance(r, s, {}).size();
  const MarkdownFailures failures = markdown_failures(r, rest < kMarkdownLimit ? kMarkdownLimit - rest : 0);
  // Only a report of very many rows can still be too long: its end is then cut, never its verdict.
  return markdown::cut_to(
      before + failures.text + markdown_provenance(r, s, failures.reproduce), kMarkdownLimit,
      "... the report is cut here to fit a pull-request comment; the whole report is in report.json "
      "and report.html");
}

}  // namespace ordo::reports
