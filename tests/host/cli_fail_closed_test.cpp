// The `ordo` program holds itself to fail-closed behaviour, run as a user runs it: numbers that are not
// exact integers in range, misspelt names and unknown commands are refused (exit 2) with a message naming
// them; an unusable output folder is found before any work (exit 4); an interrupted run writes a report
// marked interrupted (exit 130); reports are replaced whole, never left half written.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include "command_run.h"
#include "test_support.h"

namespace ordo {
namespace {

using OrdoRun = ordo::testing::CommandRun;

OrdoRun ordo(const std::string& args) { return ordo::testing::run_ordo(args); }

std::string folder(const std::string& name) {
  return ordo::testing::unique_temp_path("cli-" + name);
}

TEST(CliFailClosed, NumbersMustBeExactIntegersInRange) {
  const std::pair<const char*, const char*> cases[] = {
      {"verify --cases 0", "--cases: \"0\" is out of range: expected an integer in [1, 10000000]"},
      {"verify --cases -5", "--cases: expected an integer in [1, 10000000], got \"-5\" (no negative values)"},
      {"verify --cases 99999999999999999999", "--cases: \"99999999999999999999\" is out of range"},
      {"verify --cases 1.5", "--cases: expected an integer in [1, 10000000], got \"1.5\""},
      {"verify --cases 12abc", "got \"12abc\""},
      {"verify --seed -1", "--seed: expected a seed: a decimal integer in [0, 18446744073709551615], got \"-1\""},
      {"verify --seed 18446744073709551616", "--seed: \"18446744073709551616\" is out of range"},
      {"verify --case -1", "--case: expected an integer in [0, 9999999], got \"-1\""},
      {"verify --level 3", "--level"},
  };
  for (const auto& [args, message] : cases) {
    const OrdoRun r = ordo(std::string(args) + " --out " + folder("numbers"));
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
  // The largest seed is accepted exactly (no wrap): it is printed back in the report.
  const std::string dir = folder("max-seed");
  const OrdoRun ok = ordo("verify --seed 18446744073709551615 --cases 2 --property exact.order_independent --quiet --out " + dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("seed 18446744073709551615"), std::string::npos) << ok.output;
}

TEST(CliFailClosed, MisspeltNamesAreErrorsWithTheNearestValidNames) {
  const OrdoRun p = ordo("verify --property typo --property forward.emulator_equals_scalar_reference --out " + folder("names"));
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("no property named \"typo\"; nearest:"), std::string::npos) << p.output;
  const OrdoRun k = ordo("verify --kernel host.emulatr:fwd.f32.fma-chain/1 --out " + folder("names"));
  EXPECT_EQ(k.exit_code, 2) << k.output;
  EXPECT_NE(k.output.find("nearest: host.emulator:fwd.f32.fma-chain/1"), std::string::npos) << k.output;
  const OrdoRun c = ordo("verify --contract fwd.f32.fma-chian/1 --out " + folder("names"));
  EXPECT_EQ(c.exit_code, 2) << c.output;
  EXPECT_NE(c.output.find("nearest: fwd.f32.fma-chain/1"), std::string::npos) << c.output;
  const OrdoRun u = ordo("verfy");
  EXPECT_EQ(u.exit_code, 2) << u.output;
  EXPECT_NE(u.output.find("unknown command \"verfy\"; nearest: verify"), std::string::npos) << u.output;
}

TEST(CliFailClosed, ListShowsPropertiesAndSubjectKinds) {
  const OrdoRun r = ordo("list --properties");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("forward.kernel_equals_emulator  [cuda x"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exact.superacc_vs_mpfr  [oracle x1]"), std::string::npos) << r.output;
}

TEST(CliFailClosed, AnUnusableOutputFolderIsFoundBeforeAnyWork) {
  // A path under a file (ENOTDIR) and one in /proc: unwritable even for root.
  for (const std::string out : {"/dev/null/report", "/proc/ordo-cannot-write-here"}) {
    const OrdoRun r = ordo("verify --out " + out);
    EXPECT_EQ(r.exit_code, 4) << out << "\n" << r.output;
    EXPECT_NE(r.output.find(out), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("PASS"), std::string::npos) << "work was done before the folder was checked:\n" << r.output;
  }
}

TEST(CliFailClosed, AReportIsReplacedWholeAndNoTemporaryFileStays) {
  const std::string dir = folder("atomic");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/report.json") << "stale";
  const OrdoRun r = ordo("verify --cases 3 --property exact.order_independent --quiet --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(dir + "/report.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["verdict"], "pass");
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// SIGTERM is what `timeout`, CI cancellation and schedulers send: it stops a run as SIGINT does.
TEST(CliFailClosed, SigintAndSigtermWriteAReportMarkedInterrupted) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string dir = folder("signal-" + std::to_string(sig));
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The whole host suite takes several seconds: interrupted well before its end.
      freopen("/dev/null", "w", stdout);
      freopen("/dev/null", "w", stderr);
      execl(ORDO_BINARY, ORDO_BINARY, "verify", "--quiet", "--out", dir.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    usleep(1500 * 1000);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << sig << " killed the run instead of stopping it";
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    std::ifstream in(dir + "/report.json");
    ASSERT_TRUE(in.good()) << "no report after signal " << sig;
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["verdict"], "interrupted");
    EXPECT_EQ(j["interrupted"], true);
  }
}

bool gpu_usable() { return ordo("verify --property exact.order_independent --cases 1 --quiet --out " + folder("gpu-probe")).output.find("no GPU") == std::string::npos; }

// A run in which nothing ran is never a pass: a GPU variant without a GPU, through fuzz, a reproduce line
// and the self-test of a GPU-only mutant, exits 3 and says INCONCLUSIVE.
TEST(CliFailClosed, NothingRanIsNeverAPass) {
  if (gpu_usable()) GTEST_SKIP() << "a GPU is present: these subjects run here";
  const std::pair<std::string, std::string> runs[] = {
      {"fuzz --kernel sm80.fwd.f32.fma.simt.128x128x16 --cases 3 --quiet --out " + folder("nothing-fuzz"), "INCONCLUSIVE"},
      {"verify --property forward.kernel_equals_emulator --kernel sm80.fwd.f32.fma.simt.128x128x16 --seed 1 --case 0 --quiet "
       "--out " + folder("nothing-verify"),
       "INCONCLUSIVE"},
      {"selftest --host --mutant mutant.fwd.f32.smem-missing-barrier --quiet --out " + folder("nothing-selftest"),
       "INCONCLUSIVE"},
  };
  for (const auto& [args, word] : runs) {
    const OrdoRun r = ordo(args);
    EXPECT_EQ(r.exit_code, 3) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(word), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(r.output.find("PASS"), std::string::npos) << args << "\n" << r.output;
  }
}

// `ordo cases` writes only into a new or empty folder, or replaces an earlier cases folder when asked.
TEST(CliFailClosed, CasesRefusesANonEmptyOutFolder) {
  const std::string dir = folder("cases-out");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/notes.txt") << "mine";
  OrdoRun r = ordo("cases --contract fwd.f32.fma-chain/1 --shape 4x5x6 --out " + dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("not an `ordo cases` folder"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/manifest.json"));
  const std::string cases = folder("cases-again");
  ASSERT_EQ(ordo("cases --contract fwd.f32.fma-chain/1 --shape 4x5x6 --out " + cases).exit_code, 0);
  std::ofstream(cases + "/c0001/y.npy") << "stale";
  r = ordo("cases --contract fwd.f32.fma-chain/1 --shape 4x5x6 --out " + cases);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--replace"), std::string::npos) << r.output;
  r = ordo("cases --contract fwd.f32.fma-chain/1 --shape 4x5x6 --seed 9 --replace --out " + cases);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(cases + "/c0001/y.npy")) << "a stale output survived --replace";
  r = ordo("cases --contract fwd.f32.fma-chain/1 --shape 100000x100000x100000 --out " + folder("cases-huge"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("at most 2^28"), std::string::npos) << r.output;
}

// Special files never block or flood a command: a FIFO as an output is that case's failure, /dev/zero as
// a manifest is bad input, both at once.
TEST(CliFailClosed, FifosAndDevicesAreRefusedWithoutBlocking) {
  const std::string dir = folder("special");
  ASSERT_EQ(ordo("cases --contract fwd.f32.fma-chain/1 --shape 4x5x6 --out " + dir).exit_code, 0);
  ASSERT_EQ(::mkfifo((dir + "/c0000/y.npy").c_str(), 0600), 0);
  OrdoRun r = ordo("check " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("a FIFO"), std::string::npos) << r.output;
  std::filesystem::remove(dir + "/manifest.json");
  std::filesystem::create_symlink("/dev/zero", dir + "/manifest.json");
  r = ordo("check " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("a character device"), std::string::npos) << r.output;
  r = ordo("report /dev/zero");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// A missing y.npy is one failed case among the others (the program under test did not write it), never
// an abort of the whole check; the report is written; an unwritable report folder is found first.
TEST(CliFailClosed, AMissingOutputIsOneFailedCase) {
  const std::string dir = folder("missing-y");
  ASSERT_EQ(ordo("cases --contract fwd.f32.fma-chain/1 --shape 4x5x6 --out " + dir).exit_code, 0);
  OrdoRun r = ordo("check " + dir + " --quiet --out /proc/ordo-cannot-write-here");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  r = ordo("check " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::ifstream in(dir + "/check-report/report.json");
  ASSERT_TRUE(in.good());
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["results"][0]["verdict"], "subject_fault");
  EXPECT_EQ(j["results"][0]["cases"], j["results"][0]["failed"]) << "every case lacks its output";
}

// `--json -`: stdout carries the machine-readable summary alone (the human lines move to stderr), with
// the failing case ids.
TEST(CliFailClosed, JsonSummaryOnStdoutAlone) {
  const std::string dir = folder("json-summary");
  ASSERT_EQ(ordo("cases --contract fwd.f32.fma-chain/1 --shape 4x5x6 --out " + dir).exit_code, 0);
  const ordo::testing::CommandRun run =
      ordo::testing::run_command(std::string(ORDO_BINARY) + " check " + dir + " --quiet --json - 2>/dev/null");
  const std::string& out = run.output;
  EXPECT_EQ(run.exit_code, 1) << out;  // no outputs written: every case a subject fault
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(out)) << "stdout is not the summary alone:\n" << out;
  EXPECT_EQ(j["schema"], "ordo.summary/1");
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["rows"][0]["verdict"], "subject_fault");
  EXPECT_FALSE(j["rows"][0]["failing_ids"].empty());
}

}  // namespace
}  // namespace ordo
