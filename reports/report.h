#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/build_info.h"
#include "core/environment.h"
#include "core/run_record.h"
#include "reports/selftest_summary.h"

namespace ordo::reports {

// A row of the report: one property on one subject, with the evidence its verdict is computed from
// (core/verdict.h: the one place verdicts are decided).
struct ResultRow {
  PropertyRun run;
  std::string verdict() const;  // verdict_name of run.verdict()
};

// The build that ran: written into the report's "tool" object. A report read back from a file keeps the
// build that wrote it (empty fields: that build did not record them), never the build rendering it.
struct ToolInfo {
  std::string version, git_commit;
  bool git_dirty = false;
  std::string build_type, compiler, cuda, flags, cuda_flags;
};
inline ToolInfo this_build() {
  return {build_version(), build_git_commit(), build_git_dirty(), build_type(),
          build_compiler(), build_cuda_compiler(), build_cxx_flags(), build_cuda_flags()};
}

// A campaign's progress (ordo fuzz): cases run and failures found so far, after `seconds`.
struct TimelinePoint {
  double seconds = 0;
  std::int64_t cases = 0;
  std::int64_t failures = 0;
};

struct Report {
  ToolInfo tool = this_build();
  std::string command;
  std::uint64_t seed = 0;
  int level = 1;
  std::string started_at;  // UTC, ISO 8601
  double seconds = 0;
  Environment environment;
  std::vector<ResultRow> results;
  nlohmann::json bench = nlohmann::json::array();
  std::vector<TimelinePoint> timeline;  // campaigns only; written when non-empty

  bool interrupted = false;     // stopped by SIGINT or SIGTERM: the rows so far, never a pass
  // Every row passed, or did not run for a stated reason (row_lets_run_pass); never with no
  // rows, when interrupted, or when nothing ran at all (no GPU for a GPU-only subject: inconclusive).
  bool all_passed() const;
  // No row ran a single case (every row skipped, with or without a reason).
  bool nothing_ran() const;
  bool any_inconclusive() const;
};

std::string utc_now_iso8601();

// What both renderers show, computed once from a report (markdown_writer.cpp), so that the Markdown and
// the HTML of one report never disagree.
struct ReportSummary {
  std::string verdict;   // report_verdict()
  std::string headline;  // the verdict in one line: "PASS: 72 of 83 checks passed, 11 did not run, ..."
  std::int64_t rows = 0, passed_rows = 0, failing_rows = 0, not_run_rows = 0;
  std::map<std::string, std::int64_t> failing_verdicts;  // verdict name -> rows
  // Cases of the rows that count cases; relations (pairs of outputs that must be equal, `ordo check`'s
  // invariance rows) are counted apart, never as cases.
  std::int64_t cases = 0, requested = 0, skipped = 0, failed_cases = 0, elements = 0;
  std::int64_t relations = 0, failed_relations = 0;
  std::int64_t self_test_failed_cases = 0;  // of failed_cases: in self-test rows, which must fail
  std::vector<std::string> properties, subjects, contracts;       // distinct, in report order
  std::map<std::string, std::int64_t> family_cases, shape_cases;  // summed over the rows that count cases
  std::map<std::string, std::map<std::string, double>> tightness;  // contract -> family -> max error/bound
  std::vector<std::uint64_t> seeds;   // the report's, then any other that a reproduce command names
  std::vector<std::string> commands;  // the report's command, then every failure's reproduce
  reports::SelftestSummary selftest;  // over the rows of deliberately broken subjects (none: mutants == 0)
};
ReportSummary summarize(const Report& r);
// "4 failed (all in self-tests, whose broken subjects must fail)"
std::string failed_cases_text(const ReportSummary& s);
// "31 mutants: 30 killed, 0 survived, 1 not run, 0 could not be checked; kill rate 100% of those that ran;
// cases to kill: median 1, maximum 32"
std::string selftest_line(const ReportSummary& s);

// One line of provenance: what it is, its value, and the JSON field it comes from.
struct ProvenanceItem {
  std::string label, value, field;
};
std::vector<ProvenanceItem> provenance(const Report& r, const ReportSummary& s);

nlohmann::json to_json(const Report& r);
// For a pull request: the verdict first (one bold line), what was checked, the tables, the failures with
// their reproduce commands, then provenance.
// At most kMarkdownLimit bytes, so as many characters at most, whatever the failures (a pull-request comment
// holds 65,536 characters): each failing row shows its first failures in full and points to report.json
// and report.html for the rest (markdown_failures.h).
std::string to_markdown(const Report& r);
inline constexpr std::size_t kMarkdownLimit = 60000;
// One self-contained page (no network, no script): the same content as to_markdown plus inline SVG
// figures; every number carries an id or data-* attribute that names where it came from.
std::string to_html(const Report& r);

// The verdict of the whole report as the JSON names it: "pass", "pass_with_inconclusive", "fail",
// "inconclusive" (nothing ran: never a pass) or "interrupted".
std::string report_verdict(const Report& r);
// The name of a property kind in the JSON ("bitwise", "bound", "invariance", "scenario"), and back
// (false for a name that is none of them).
std::string_view kind_name(PropertyKind k);
bool parse_kind(std::string_view name, PropertyKind* k);

}  // namespace ordo::reports
