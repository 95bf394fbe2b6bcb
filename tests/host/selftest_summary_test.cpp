// The self-test's summary (kill rate, median and maximum cases to kill) and its round trip through a
// report: written as JSON, read back by the strict reader, rendered by both writers.
#include "reports/selftest_summary.h"

#include <gtest/gtest.h>

#include "reports/report.h"
#include "reports/report_reader.h"
#include "subjects/environment_probe.h"

namespace ordo::properties {
namespace {
using reports::median;
using reports::mutant_outcome;
using reports::SelftestSummary;
using reports::summarize_selftest;

PropertyRun mutant_row(const std::string& id, std::int64_t cases, bool killed, std::int64_t budget = 100) {
  PropertyRun r;
  r.name = killed ? "forward.kernel_equals_emulator" : "selftest.suite";
  r.kernel = id;
  r.contract = "fwd.f32.fma-chain/1";
  r.backend = "host-mutant";
  r.expect_failure = true;
  r.cases = cases;
  r.requested = budget;
  r.families["ties"] = cases;
  if (killed) {
    r.failed = 1;
    FailureRecord f;
    f.reproduce =
        "ordo selftest --host --mutant " + id + " --property forward.kernel_equals_emulator --seed 3 --case 2";
    f.detail = "1 of 1 elements differ";
    f.original = "M=1 N=1 K=2 no-bias family=ties seed=0x0";
    f.minimised = f.original;
    f.family = "ties";
    r.failures.push_back(f);
  }
  return r;
}

PropertyRun not_run_row(const std::string& id) {
  PropertyRun r = mutant_row(id, 0, false);
  r.skipped = r.requested;
  r.skip_reason = "not run: no usable CUDA device";
  return r;
}

TEST(SelftestSummary, MedianOfOddAndEvenCountsAndOfNothing) {
  EXPECT_EQ(median({7, 1, 3}), 3.0);
  EXPECT_EQ(median({4, 1, 10, 2}), 3.0);  // (2 + 4) / 2
  EXPECT_EQ(median({5}), 5.0);
  EXPECT_FALSE(median({}).has_value());
}

TEST(SelftestSummary, CountsEachOutcomeAndTheCostOfTheKills) {
  PropertyRun production;  // not a mutant: ignored
  production.cases = 1000;
  production.requested = 1000;
  PropertyRun error = mutant_row("e", 3, false);
  error.tool_errors = 1;
  const SelftestSummary s =
      summarize_selftest({mutant_row("a", 1, true), mutant_row("b", 41, true), mutant_row("c", 5, true),
                          mutant_row("d", 100, false), not_run_row("g"), error, production});
  EXPECT_EQ(s.mutants, 6);
  EXPECT_EQ(s.killed, 3);
  EXPECT_EQ(s.survived, 1);
  EXPECT_EQ(s.not_run, 1);
  EXPECT_EQ(s.tool_errors, 1);
  ASSERT_TRUE(s.kill_rate.has_value());
  EXPECT_DOUBLE_EQ(*s.kill_rate, 3.0 / 5.0);  // the not-run mutant is not in the rate
  ASSERT_TRUE(s.median_cases_to_kill.has_value());
  EXPECT_EQ(*s.median_cases_to_kill, 5.0);  // of 1, 5, 41: the survivor's 100 cases are no kill
  EXPECT_EQ(s.max_cases_to_kill, 41);
}

TEST(SelftestSummary, NothingRanGivesNoRateAndNoMedian) {
  const SelftestSummary s = summarize_selftest({not_run_row("a")});
  EXPECT_EQ(s.mutants, 1);
  EXPECT_FALSE(s.kill_rate.has_value());
  EXPECT_FALSE(s.median_cases_to_kill.has_value());
}

TEST(SelftestSummary, OutcomeNames) {
  EXPECT_EQ(mutant_outcome(mutant_row("a", 1, true).verdict()), "killed");
  EXPECT_EQ(mutant_outcome(mutant_row("a", 100, false).verdict()), "survived");
  EXPECT_EQ(mutant_outcome(not_run_row("a").verdict()), "not run");
}

reports::Report selftest_report() {
  reports::Report r;
  r.command = "ordo selftest --host";
  r.seed = 3;
  r.environment = probe_environment(false);
  for (PropertyRun row : {mutant_row("mutant.a", 2, true), mutant_row("mutant.b", 9, true),
                          mutant_row("mutant.c", 4, true), not_run_row("mutant.gpu-only")})
    r.results.push_back({std::move(row)});
  return r;
}

TEST(SelftestReport, RoundTripKeepsTheSummaryAndTheKills) {
  const reports::Report written = selftest_report();
  const reports::Report read = reports::parse_report(reports::to_json(written).dump(2), "selftest.json");
  std::vector<PropertyRun> a, b;
  for (const auto& row : written.results) a.push_back(row.run);
  for (const auto& row : read.results) b.push_back(row.run);
  const SelftestSummary sa = summarize_selftest(a), sb = summarize_selftest(b);
  EXPECT_EQ(sb.mutants, 4);
  EXPECT_EQ(sb.killed, sa.killed);
  EXPECT_EQ(sb.not_run, 1);
  EXPECT_EQ(sb.median_cases_to_kill, sa.median_cases_to_kill);
  EXPECT_EQ(*sb.median_cases_to_kill, 4.0);
  EXPECT_EQ(sb.max_cases_to_kill, 9);
  ASSERT_EQ(read.results[1].run.failures.size(), 1u);
  EXPECT_EQ(read.results[1].run.failures[0].family, "ties");
  EXPECT_EQ(read.results[1].run.name, "forward.kernel_equals_emulator");
  EXPECT_EQ(reports::report_verdict(read), "pass_with_inconclusive");
}

TEST(SelftestReport, ASurvivorFailsTheReadBackReport) {
  reports::Report r = selftest_report();
  r.results.push_back({mutant_row("mutant.survivor", 100, false)});
  const reports::Report read = reports::parse_report(reports::to_json(r).dump(), "selftest.json");
  EXPECT_EQ(reports::report_verdict(read), "fail");
  EXPECT_EQ(read.results.back().verdict(), "mutant_missed");
}

TEST(SelftestReport, BothRenderersShowTheSelftestSection) {
  const reports::Report r = selftest_report();
  const std::string md = reports::to_markdown(r), html = reports::to_html(r);
  const std::string line = reports::selftest_line(reports::summarize(r));
  EXPECT_NE(line.find("3 killed"), std::string::npos) << line;
  EXPECT_NE(line.find("median 4, maximum 9"), std::string::npos) << line;
  EXPECT_NE(md.find("### Self-test"), std::string::npos);
  EXPECT_NE(md.find(line), std::string::npos);
  EXPECT_NE(md.find("| `mutant.b` | host-mutant | killed | forward.kernel_equals_emulator | ties | 9 |"),
            std::string::npos)
      << md;
  EXPECT_NE(html.find("id=\"selftest-table\""), std::string::npos);
  EXPECT_NE(html.find("data-killed=\"3\" data-mutants=\"4\""), std::string::npos);
}

TEST(SelftestReport, AReportWithoutMutantsHasNoSelftestSection) {
  reports::Report r = selftest_report();
  for (auto& row : r.results) {
    row.run.expect_failure = false;
    row.run.failed = 0;
    row.run.failures.clear();
  }
  EXPECT_EQ(reports::to_markdown(r).find("### Self-test"), std::string::npos);
  EXPECT_EQ(reports::to_html(r).find("id=\"selftest\""), std::string::npos);
}

}  // namespace
}  // namespace ordo::properties
