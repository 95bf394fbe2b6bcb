// Campaigns: the same seed and case count give the same merged counts however the cases are dealt to
// workers and shards; a campaign killed with SIGKILL and started again with the same command ends with
// every case and every failure of a run that was never killed; a checkpoint of another campaign is refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "campaign/campaign.h"
#include "properties/suite.h"
#include "subjects/plugin_subject.h"
#include "test_support.h"

namespace ordo::properties {
namespace {

using campaign::CampaignOptions;
using campaign::CampaignState;
using campaign::fingerprint_difference;
using campaign::fresh_state;
using campaign::merged_runs;
using campaign::run_campaign;
using campaign::state_from_json;
using campaign::state_to_json;

std::string plugin(const std::string& suffix) {
  return std::string(ORDO_TEST_PLUGIN_DIR) + "/libordo_test_plugin_" + suffix + ".so";
}

struct PluginSuite {
  Suite suite;
  std::vector<PropertySpec> specs;
  explicit PluginSuite(const std::string& path) {
    SuiteOptions so;
    PluginSubjects loaded = load_plugin_subjects(path);
    for (auto& f : loaded.forward) add_forward_subject(suite, std::move(f), so);
    specs = suite.properties;
  }
};

// What must not depend on the split: every count, every family, every failure's index.
std::string fingerprint(const std::vector<PropertyRun>& runs) {
  nlohmann::json j = nlohmann::json::array();
  for (const PropertyRun& r : runs) {
    std::vector<std::int64_t> failures;
    for (const FailureRecord& f : r.failures) failures.push_back(f.case_index);
    j.push_back({r.name, r.kernel, r.cases, r.failed, r.tool_errors, r.elements, r.families, r.shape_classes, failures,
                 r.max_error_over_bound});
  }
  return j.dump();
}

std::vector<PropertyRun> campaign(const std::vector<PropertySpec>& specs, int workers, int shards, std::int64_t cases) {
  std::vector<CampaignState> states;
  for (int shard = 0; shard < shards; ++shard) {
    CampaignOptions o;
    o.seed = 9;
    o.cases = cases;
    o.workers = workers;
    o.shard = shard;
    o.shards = shards;
    o.run.seed = o.seed;
    CampaignState s = fresh_state(specs, o);
    run_campaign(specs, o, s);
    states.push_back(std::move(s));
  }
  return merged_runs(specs, states);
}

TEST(Campaign, TheSplitDoesNotChangeTheResult) {
  // The batch-switching plugin fails some properties: failures must merge by index too.
  PluginSuite ps(plugin("batch_switch"));
  const std::string one = fingerprint(campaign(ps.specs, 1, 1, 60));
  EXPECT_EQ(fingerprint(campaign(ps.specs, 3, 1, 60)), one);
  EXPECT_EQ(fingerprint(campaign(ps.specs, 2, 2, 60)), one);
  const std::vector<PropertyRun> runs = campaign(ps.specs, 1, 1, 60);
  std::int64_t failures = 0;
  for (const PropertyRun& r : runs) failures += r.failed;
  EXPECT_GT(failures, 0) << "the defect must show, else the merge of failures is not tested";
}

// Under a time budget a subject that is ahead (here by 100,000 cases, far more than the others can run in
// the 2 s budget; a checkpoint of an older schedule can be ahead like this) waits while the others run.
TEST(Campaign, ASubjectAheadWaitsUntilTheOthersCatchUp) {
  Suite suite;
  SuiteOptions so;
  PluginSubjects loaded = load_plugin_subjects(plugin("correct"));
  for (auto& f : loaded.forward) add_forward_subject(suite, std::move(f), so);
  for (auto& b : loaded.backward) add_backward_subject(suite, std::move(b), so);
  const std::vector<PropertySpec>& specs = suite.properties;
  CampaignOptions o;
  o.seed = 4;
  o.seconds = 2;
  o.run.seed = o.seed;
  CampaignState s = fresh_state(specs, o);
  constexpr std::int64_t kLead = 100000;
  std::string leader;
  for (std::size_t p = 0; p < specs.size(); ++p)
    if (specs[p].kind == PropertyKind::bitwise && leader.empty()) {
      leader = specs[p].kernel;
      s.lanes[p][0].run.cases = kLead;
      s.lanes[p][0].next = kLead;
    }
  ASSERT_FALSE(leader.empty());
  run_campaign(specs, o, s);
  std::map<std::string, std::int64_t> cases;
  for (std::size_t p = 0; p < specs.size(); ++p)
    if (specs[p].kind != PropertyKind::scenario) cases[specs[p].kernel] += s.lanes[p][0].run.cases;
  ASSERT_GE(cases.size(), 3u) << "forward, dX and dW subjects";
  EXPECT_EQ(cases[leader], kLead) << leader << " ran while the others were far behind";
  for (const auto& [subject, n] : cases) {
    if (subject != leader) {
      EXPECT_GT(n, 0) << subject << " never ran";
    }
  }
}

TEST(Campaign, ACheckpointRoundTrips) {
  PluginSuite ps(plugin("correct"));
  CampaignOptions o;
  o.cases = 10;
  o.run.seed = o.seed;
  CampaignState s = fresh_state(ps.specs, o);
  run_campaign(ps.specs, o, s);
  const CampaignState back = state_from_json(state_to_json(s), "test");
  EXPECT_EQ(state_to_json(back), state_to_json(s));
  EXPECT_THROW(state_from_json(nlohmann::json::object(), "bad.json"), std::runtime_error);
}

struct Process {
  int exit_code = -1;
  bool killed = false;
};

// Runs `ordo fuzz ARGS`; with kill_after_ms > 0, SIGKILL after that long (unless it ended first).
Process fuzz(const std::vector<std::string>& args, int kill_after_ms = 0) {
  const pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    std::vector<char*> argv{const_cast<char*>(ORDO_BINARY), const_cast<char*>("fuzz")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(ORDO_BINARY, argv.data());
    _exit(127);
  }
  Process p;
  int status = 0;
  if (kill_after_ms > 0) {
    for (int waited = 0; waited < kill_after_ms; waited += 10) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        p.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return p;
      }
      usleep(10 * 1000);
    }
    kill(pid, SIGKILL);
    p.killed = true;
  }
  waitpid(pid, &status, 0);
  p.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return p;
}

// The report without what may differ between runs: timings, dates, the command.
nlohmann::json comparable(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  j.erase("seconds");
  j.erase("started_at");
  j.erase("timeline");
  j.erase("command");
  j.erase("tool");
  for (auto& row : j["results"]) row.erase("seconds");
  return j;
}

std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  if (!std::filesystem::exists(dir)) return names;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) names.insert(std::filesystem::relative(e.path(), dir).string());
  return names;
}

TEST(Campaign, ASigkilledCampaignResumesWithEveryCaseAndFailure) {
  const std::string base = ordo::testing::unique_temp_path("campaign-kill");
  const std::vector<std::string> common{"--plugin", plugin("batch_switch"), "--cases", "150", "--seed", "5", "--quiet"};
  auto args = [&](const std::string& out, const std::string& corpus) {
    std::vector<std::string> a = common;
    a.insert(a.end(), {"--out", base + "/" + out, "--corpus", base + "/" + corpus});
    return a;
  };
  const Process whole = fuzz(args("whole", "corpus-whole"));
  ASSERT_EQ(whole.exit_code, 1) << "the batch-switching plugin must fail";
  // Killed after the first checkpoints, then the same command again until it finishes.
  const Process first = fuzz(args("killed", "corpus-killed"), 2500);
  ASSERT_TRUE(first.killed) << "the campaign ended before the kill: make it longer";
  ASSERT_TRUE(std::filesystem::exists(base + "/killed/checkpoint.json")) << "no checkpoint before the kill";
  const Process resumed = fuzz(args("killed", "corpus-killed"));
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_EQ(comparable(base + "/killed/report.json"), comparable(base + "/whole/report.json"));
  EXPECT_EQ(files_in(base + "/corpus-killed"), files_in(base + "/corpus-whole"));
  EXPECT_FALSE(files_in(base + "/corpus-whole").empty()) << "no failure was written to the corpus";
  // Another seed is another campaign: its checkpoint is refused, not mixed in.
  std::vector<std::string> other = args("killed", "corpus-killed");
  other[5] = "6";
  EXPECT_EQ(fuzz(other).exit_code, 2);
}

TEST(CampaignFingerprint, TheRefusalNamesTheFieldThatDiffers) {
  const std::string saved = "seed=5;cases=-1;shards=1;shard=0;workers=8;p|k1;q|k2;";
  EXPECT_EQ(fingerprint_difference(saved, saved), "");
  EXPECT_EQ(fingerprint_difference(saved, "seed=6;cases=-1;shards=1;shard=0;workers=8;p|k1;q|k2;"),
            "seed: 5 in the checkpoint, 6 now");
  EXPECT_EQ(fingerprint_difference(saved, "seed=5;cases=-1;shards=1;shard=0;workers=16;p|k1;q|k2;"),
            "workers: 8 in the checkpoint, 16 now");
  EXPECT_EQ(fingerprint_difference(saved, "seed=5;cases=-1;shards=1;shard=0;workers=8;p|k1;"),
            "property q|k2: in the checkpoint only");
  EXPECT_EQ(fingerprint_difference(saved, "seed=5;cases=-1;shards=1;shard=0;workers=8;p|k1;q|k2;r|k2;"),
            "property r|k2: in this run only");
  EXPECT_EQ(fingerprint_difference(saved, "seed=5;cases=-1;shards=1;shard=0;workers=8;q|k2;p|k1;"),
            "the properties are the same but in another order");
}

}  // namespace
}  // namespace ordo::properties
