// Replays the corpus (corpus/: golden vectors recorded on real GPUs, forward and backward; hand-written
// regressions; minimised failures) through the host emulators, as `ordo replay` does: CI has no GPU, and
// this is how it checks the emulators, the tensor-core model and the BF16 token grouping against hardware
// bits on every run. Every entry is checked, a bad one reported with its path and reason while the
// others still replay. The planted defects prove the replay can fail: one bit flipped in a copy of every
// golden entry is caught there and nowhere else, and `ordo replay` exits 1 for it, 2 for a malformed
// entry, 0 for the untouched corpus.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "properties/corpus_replay.h"
#include "protocol/strict_json.h"
#include "command_run.h"
#include "test_support.h"

namespace ordo::properties {
namespace {
using protocol::EntryKind;
using protocol::parse_hex32;


namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

const fs::path kCorpus = fs::path(ORDO_SOURCE_DIR) / "corpus";

std::vector<std::string> entries_under(const std::string& sub) { return corpus_entry_files({(kCorpus / sub).string()}); }

// An empty folder of this run's own (two runs at once never share it).
fs::path fresh_dir(const std::string& name) { return ordo::testing::unique_temp_dir("corpus-replay-" + name); }

// A copy of an entry with one change, under `dir`.
std::string edited_copy(const std::string& from, const fs::path& dir, const std::string& name,
                        const std::function<void(ojson&)>& edit) {
  std::ifstream in(from);
  ojson j = ojson::parse(in);
  edit(j);
  std::string path = (dir / name).string();
  std::ofstream(path) << j.dump(1) << "\n";
  return path;
}

std::string flip_low_bit(const std::string& hex) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", *parse_hex32(hex) ^ 1u);
  return buf;
}

// The first value of case 1's expected output (dX, dW, db or Y), flipped in its lowest bit.
void flip_case1(ojson& j) {
  ojson& e = j["cases"][1]["expected"];
  const char* field = e.contains("y") ? "y" : e.contains("dx") ? "dx" : e.contains("db") ? "db" : "dw";
  e[field][0] = flip_low_bit(e[field][0].get<std::string>());
}

using OrdoRun = ordo::testing::CommandRun;

OrdoRun ordo_in(const fs::path& cwd, const std::string& args) {
  return ordo::testing::run_command("cd '" + cwd.string() + "' && " + ORDO_BINARY + " " + args + " 2>&1");
}

TEST(CorpusReplay, TheCorpusIsPresentInOneFormat) {
  // The replay proves nothing if the corpus went missing: the 4 forward and 6 backward golden entries
  // recorded on the H200, the seed's regression, and the failures folder.
  EXPECT_GE(entries_under("golden").size(), 10u);
  EXPECT_GE(entries_under("regressions").size(), 1u);
  EXPECT_TRUE(fs::is_directory(kCorpus / "failures"));
  EXPECT_FALSE(fs::exists(kCorpus / "golden-backward")) << "the backward golden entries live in corpus/golden/";
  for (const std::string& f : corpus_entry_files({kCorpus.string()})) {
    std::ifstream in(f);
    EXPECT_EQ(ojson::parse(in).value("schema", ""), "ordo.corpus/1") << f;
  }
}

TEST(CorpusReplay, EveryEntryReplays) {
  ReplayTally tally;
  std::string problems;
  for (const std::string& f : corpus_entry_files({kCorpus.string()})) {
    const EntryReplay r = replay_corpus_file(f);
    tally.add(r);
    std::printf("[ REPLAY ] %s\n", replay_line(r).c_str());
    for (const std::string& p : r.problems) problems += "\n  " + p;
  }
  EXPECT_EQ(problems, "");
  EXPECT_EQ(tally.exit_code(), 0) << replay_summary(tally);
  EXPECT_GE(tally.golden.cases, 300u);
}

TEST(CorpusReplay, APlantedBitFlipInEveryGoldenEntryIsCaughtThereOnly) {
  const fs::path dir = fresh_dir("flips");
  const std::vector<std::string> golden = entries_under("golden");
  ASSERT_FALSE(golden.empty());
  ReplayTally tally;
  for (std::size_t n = 0; n < golden.size(); ++n) {
    const std::string bad = edited_copy(golden[n], dir, "flipped_" + std::to_string(n) + ".json", flip_case1);
    const EntryReplay r = replay_corpus_file(bad);
    tally.add(r);
    EXPECT_EQ(r.outcome, ReplayOutcome::mismatch) << golden[n];
    ASSERT_EQ(r.problems.size(), 1u) << golden[n];
    EXPECT_EQ(r.problems[0].rfind(bad + ": case 1 (", 0), 0u) << r.problems[0];
    EXPECT_NE(r.problems[0].find("[0] (row 0, column 0): the emulator gives "), std::string::npos) << r.problems[0];
    // Put back, it replays again.
    const std::string fixed = edited_copy(bad, dir, "fixed_" + std::to_string(n) + ".json", flip_case1);
    EXPECT_EQ(replay_corpus_file(fixed).outcome, ReplayOutcome::pass) << golden[n];
  }
  tally.add(replay_corpus_file(golden[0]));
  EXPECT_EQ(tally.golden.mismatched, golden.size());
  EXPECT_EQ(tally.golden.passed, 1u);
  EXPECT_EQ(tally.exit_code(), 1);
}

TEST(CorpusReplay, AMalformedEntryIsReportedWithItsReasonAndTheOthersStillReplay) {
  const fs::path dir = fresh_dir("malformed");
  const std::string golden = (kCorpus / "golden" / "sm80.fwd.f32.fma.simt.128x128x16.json").string();
  const std::string bad = edited_copy(golden, dir, "bad_m.json", [](ojson& j) { j["cases"][2]["M"] = 3.0; });
  fs::copy_file(golden, dir / "good.json");
  ReplayTally tally;
  std::vector<EntryReplay> replays;
  for (const std::string& f : corpus_entry_files({dir.string()})) {
    replays.push_back(replay_corpus_file(f));
    tally.add(replays.back());
  }
  ASSERT_EQ(replays.size(), 2u);
  EXPECT_EQ(replays[0].problems.at(0), bad + ": case 2: M: must be an integer in [1, 2147483648], got 3.0");
  EXPECT_EQ(replays[0].kind, EntryKind::golden);  // grouped by the kind its JSON states
  EXPECT_EQ(replays[1].outcome, ReplayOutcome::pass);
  EXPECT_EQ(tally.exit_code(), 2);
  EXPECT_NE(replay_summary(tally).find("golden 2 (1 ok, 0 mismatch, 1 malformed)"), std::string::npos) << replay_summary(tally);
}

TEST(CorpusReplay, OrdoReplayExitsZeroOneOrTwoAndWritesOnlyWithOut) {
  const fs::path dir = fresh_dir("cli");
  fs::create_directories(dir / "corpus" / "golden");
  const std::vector<std::string> golden = entries_under("golden");
  fs::copy_file(golden[0], dir / "corpus" / "golden" / fs::path(golden[0]).filename());
  fs::copy(kCorpus / "regressions", dir / "corpus" / "regressions");
  // The default location is corpus/ under the current folder, and nothing is written without --out.
  const auto items = [&dir] {
    std::size_t n = 0;
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) ++n;
    return n;
  };
  const std::size_t before = items();
  const OrdoRun ok = ordo_in(dir, "replay");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("ordo replay: 2 entries: golden 1 (1 ok, 0 mismatch, 0 malformed), regression 1 (1 ok"),
            std::string::npos)
      << ok.output;
  EXPECT_NE(ok.output.find("0 failure entries"), std::string::npos) << ok.output;
  EXPECT_EQ(items(), before) << "ordo replay wrote something without --out";
  // A flipped bit: exit 1, the line names the file, the case and the element.
  const std::string flipped = edited_copy(golden[0], dir / "corpus" / "golden", "flipped.json", flip_case1);
  const OrdoRun mismatch = ordo_in(dir, "replay corpus --out report");
  EXPECT_EQ(mismatch.exit_code, 1) << mismatch.output;
  EXPECT_NE(mismatch.output.find("MISMATCH  corpus/golden/flipped.json: case 1 ("), std::string::npos) << mismatch.output;
  std::ifstream in(dir / "report" / "report.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  ASSERT_EQ(report["results"].size(), 2u);
  EXPECT_EQ(report["results"][0]["property"], "corpus.replay.golden");
  EXPECT_EQ(report["results"][0]["failed"], 1);
  EXPECT_EQ(report["results"][0]["failures"][0]["reproduce"], "ordo replay corpus/golden/flipped.json");
  EXPECT_TRUE(fs::exists(dir / "report" / "report.md"));
  // A malformed entry: exit 2, and the other entries are still replayed and listed.
  edited_copy(golden[0], dir / "corpus" / "golden", "no_cases.json", [](ojson& j) { j.erase("cases"); });
  const OrdoRun malformed = ordo_in(dir, "replay corpus/golden corpus/regressions/seed-dw-permutation.json");
  EXPECT_EQ(malformed.exit_code, 2) << malformed.output;
  EXPECT_NE(malformed.output.find("MALFORMED corpus/golden/no_cases.json: cases: required field missing"), std::string::npos)
      << malformed.output;
  EXPECT_NE(malformed.output.find("ok        corpus/regressions/seed-dw-permutation.json: regression"), std::string::npos)
      << malformed.output;
  // Bad usage: a path that does not exist.
  const OrdoRun usage = ordo_in(dir, "replay no-such-folder");
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
  EXPECT_NE(usage.output.find("ordo replay: no-such-folder: no such file or folder"), std::string::npos) << usage.output;
}

}  // namespace
}  // namespace ordo::properties
