// `ordo verify --plugin` and `ordo fuzz --plugin` end to end, as CI runs them: a library that exits,
// aborts, crashes or hangs in a call makes the run exit 1 with a subject_fault row in report.json that
// names the case (never an exit 0 without a verdict); the correct library gives the same rows isolated as
// in ordo's own process.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include "test_support.h"

namespace ordo {
namespace {

namespace fs = std::filesystem;

std::string plugin(const std::string& suffix) {
  return std::string(ORDO_TEST_PLUGIN_DIR) + "/libordo_test_plugin_" + suffix + ".so";
}

struct OrdoRun {
  int exit_code = -1;
  std::string log;
  nlohmann::json report;
};

// Runs `ordo ARGS --out DIR --quiet` in a fresh folder; the exit code, the output, report.json.
OrdoRun ordo(const std::string& args, const std::string& name) {
  const fs::path dir = ordo::testing::unique_temp_path("isolation-" + name);
  fs::create_directories(dir);
  const std::string log = (dir / "log.txt").string();
  const std::string command =
      std::string(ORDO_BINARY) + " " + args + " --out " + (dir / "out").string() + " --quiet > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  OrdoRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log);
  r.log.assign(std::istreambuf_iterator<char>(in), {});
  std::ifstream report(dir / "out" / "report.json");
  if (report) r.report = nlohmann::json::parse(report);
  return r;
}

// Exit 1, at least one row whose verdict is subject_fault, and each such row with a failure naming its
// case: the reproduce command, the case index (or the scenario) and the case as found.
void expect_subject_fault_rows(const OrdoRun& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << what << "\n" << r.log;
  ASSERT_TRUE(r.report.is_object()) << what << ": no report.json\n" << r.log;
  int fault_rows = 0;
  for (const nlohmann::json& row : r.report.at("results")) {
    // The library is correct but for ending its process: every row it fails is a subject fault, the
    // fail-closed scenarios' too.
    if (row.at("failed").get<std::int64_t>() > 0) {
      EXPECT_EQ(row.at("verdict"), "subject_fault") << what << ": " << row.dump();
    }
    if (row.at("verdict") != "subject_fault") continue;
    ++fault_rows;
    EXPECT_GT(row.at("subject_faults").get<std::int64_t>(), 0) << row.dump();
    ASSERT_FALSE(row.at("failures").empty()) << row.dump();
    const nlohmann::json& f = row.at("failures")[0];
    EXPECT_NE(f.at("reproduce").get<std::string>().find("--property " + row.at("property").get<std::string>()),
              std::string::npos)
        << f.dump();
    EXPECT_FALSE(f.at("original").get<std::string>().empty()) << f.dump();
    const std::string detail = f.at("detail").get<std::string>();
    EXPECT_TRUE(detail.find("the subject's process") != std::string::npos ||
                detail.find("the subject did not finish") != std::string::npos)
        << detail;
  }
  EXPECT_GE(fault_rows, 1) << what << "\n" << r.log;
}

struct Misbehaviour {
  const char* suffix;
  const char* extra;  // options the run needs (the hang: a short time limit)
};

const Misbehaviour kMisbehaviours[] = {{"exit", ""}, {"abort", ""}, {"segfault", ""}, {"hang", " --subject-timeout 1"}};

TEST(IsolationCli, VerifyReportsEveryWayALibraryCanEndAsASubjectFault) {
  for (const Misbehaviour& m : kMisbehaviours) {
    const OrdoRun r =
        ordo("verify --plugin " + plugin(m.suffix) + " --cases 30" + m.extra, std::string("verify-") + m.suffix);
    expect_subject_fault_rows(r, std::string("verify ") + m.suffix);
  }
}

TEST(IsolationCli, FuzzReportsEveryWayALibraryCanEndAsASubjectFault) {
  for (const Misbehaviour& m : kMisbehaviours) {
    const OrdoRun r = ordo("fuzz --plugin " + plugin(m.suffix) + " --cases 40 --workers-per-device 2" + m.extra,
                           std::string("fuzz-") + m.suffix);
    expect_subject_fault_rows(r, std::string("fuzz ") + m.suffix);
  }
}

// A report without what differs between two runs of the same cases: timings and the command line.
nlohmann::json comparable(nlohmann::json report) {
  for (const char* key : {"seconds", "started_at", "timeline", "command", "tool"}) report.erase(key);
  for (nlohmann::json& row : report.at("results")) row.erase("seconds");
  return report;
}

TEST(IsolationCli, TheCorrectLibraryGivesTheSameRowsIsolatedAsInProcess) {
  const std::string verify = "verify --plugin " + plugin("correct") + " --cases 40 --seed 11";
  const OrdoRun isolated = ordo(verify, "verify-isolated"), here = ordo(verify + " --in-process", "verify-in-process");
  EXPECT_EQ(isolated.exit_code, 0) << isolated.log;
  EXPECT_EQ(here.exit_code, 0) << here.log;
  ASSERT_TRUE(isolated.report.is_object() && here.report.is_object());
  EXPECT_EQ(comparable(isolated.report), comparable(here.report));

  const std::string fuzz = "fuzz --plugin " + plugin("correct") + " --cases 60 --seed 4 --workers-per-device 2";
  const OrdoRun fuzz_isolated = ordo(fuzz, "fuzz-isolated"),
                fuzz_here = ordo(fuzz + " --in-process", "fuzz-in-process");
  EXPECT_EQ(fuzz_isolated.exit_code, 0) << fuzz_isolated.log;
  ASSERT_TRUE(fuzz_isolated.report.is_object() && fuzz_here.report.is_object());
  EXPECT_EQ(comparable(fuzz_isolated.report), comparable(fuzz_here.report));
}

TEST(IsolationCli, ABadSubjectTimeoutIsAUsageError) {
  for (const char* bad : {"0", "-1", "1.5", "x"}) {
    const OrdoRun r = ordo("verify --plugin " + plugin("correct") + " --subject-timeout " + bad, "bad-timeout");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.log;
  }
}

}  // namespace
}  // namespace ordo
