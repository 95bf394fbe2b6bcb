#include <gtest/gtest.h>

#include "reports/report.h"
#include "subjects/environment_probe.h"

namespace ordo::reports {
namespace {

Report sample_report() {
  Report r;
  r.command = "ordo verify";
  r.seed = 7;
  r.environment = ordo::probe_environment(false);
  ResultRow pass;
  pass.run.name = "forward.emulator_equals_scalar_reference";
  pass.run.kernel = "host.emulator";
  pass.run.cases = 10;
  pass.run.families["ties"] = 10;
  ResultRow skipped;
  skipped.run.name = "forward.kernel_equals_emulator";
  skipped.run.requested = 100;
  skipped.run.skipped = 100;
  skipped.run.skip_reason = "not run: no usable CUDA device";
  r.results = {pass, skipped};
  return r;
}

TEST(Report, JsonHasTheStableCore) {
  const nlohmann::json j = to_json(sample_report());
  EXPECT_EQ(j["schema"], "ordo.report/1");
  for (const char* key : {"tool", "environment", "command", "seed", "level", "results", "bench"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"version", "git_commit", "git_dirty"}) EXPECT_TRUE(j["tool"].contains(key)) << key;
  EXPECT_TRUE(j["environment"]["gpu"].is_null());
  const auto& row = j["results"][0];
  for (const char* key : {"property", "kernel", "contract", "backend", "cases", "failed", "skipped", "families",
                          "max_error_over_bound", "failures"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(j["results"][1]["verdict"], "inconclusive");
  EXPECT_EQ(j["verdict"], "pass_with_inconclusive");
}

TEST(Report, AFailedRowFailsTheReport) {
  Report r = sample_report();
  r.results[0].run.failed = 1;
  EXPECT_FALSE(r.all_passed());
  EXPECT_EQ(to_json(r)["verdict"], "fail");
  EXPECT_NE(to_markdown(r).find("FAIL"), std::string::npos);
}

TEST(Report, AMutantThatSurvivesFailsTheReport) {
  Report r = sample_report();
  r.results[0].run.expect_failure = true;  // self-test row with no failure found
  EXPECT_EQ(r.results[0].verdict(), "mutant_missed");
  EXPECT_FALSE(r.all_passed());
}

}  // namespace
}  // namespace ordo::reports
