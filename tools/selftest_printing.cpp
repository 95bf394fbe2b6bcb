#include "tools/selftest_printing.h"

#include <cctype>
#include <cstdio>

#include "reports/selftest_summary.h"

namespace ordo::tools {
namespace {

std::string first_line(const std::string& s, std::size_t max) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > max ? line.substr(0, max - 3) + "..." : line;
}

std::string label(Verdict v) {
  std::string s(reports::mutant_outcome(v));
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void print_mutant_row(const PropertyRun& row, const std::string& side) {
  const Verdict v = row.verdict();
  const std::string family = row.failures.empty() ? "-" : row.failures[0].family;
  std::printf("  %-8s %-42s %-4s %-42s %-14s %6lld cases %7.2f s\n", label(v).c_str(), row.kernel.c_str(), side.c_str(),
              v == Verdict::pass ? row.name.c_str() : "-",
              v == Verdict::pass ? family.c_str() : "-", static_cast<long long>(row.cases), row.seconds);
  if (v == Verdict::pass || v == Verdict::tool_error) {
    const FailureRecord& f = row.failures.at(0);
    std::printf("           minimised: %s\n           %s\n",
                first_line(f.minimised.empty() ? f.original : f.minimised, 150).c_str(),
                first_line(f.detail, 150).c_str());
  } else if (!row.skip_reason.empty()) {
    std::printf("           %s\n", first_line(row.skip_reason, 150).c_str());
  }
  std::fflush(stdout);
}

void print_selftest_summary(const std::vector<PropertyRun>& rows) {
  const reports::SelftestSummary s = reports::summarize_selftest(rows);
  std::printf("\nmutants: %lld; killed %lld, survived %lld, not run %lld, tool errors %lld\n",
              static_cast<long long>(s.mutants), static_cast<long long>(s.killed), static_cast<long long>(s.survived),
              static_cast<long long>(s.not_run), static_cast<long long>(s.tool_errors));
  if (s.kill_rate)
    std::printf("kill rate: %lld of %lld that ran (%.1f%%)\n", static_cast<long long>(s.killed),
                static_cast<long long>(s.killed + s.survived + s.tool_errors), 100.0 * *s.kill_rate);
  if (s.median_cases_to_kill)
    std::printf("cases to kill: median %g, maximum %lld\n", *s.median_cases_to_kill,
                static_cast<long long>(s.max_cases_to_kill));
}

void print_zoo(const std::vector<mutants::MutantInfo>& zoo) {
  std::printf("%-44s %-10s %-4s %-3s %s\n", "mutant", "category", "host", "gpu", "defect");
  for (const mutants::MutantInfo& m : zoo)
    std::printf("%-44s %-10s %-4s %-3s %s\n", m.id.c_str(), m.category.c_str(), m.host ? "yes" : "-",
                m.gpu ? "yes" : "-", m.defect.c_str());
}

}  // namespace ordo::tools
