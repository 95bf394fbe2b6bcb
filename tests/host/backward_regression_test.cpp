// corpus/regressions/*.json (ordo.corpus/1 entries of kind regression, protocol/corpus_entry.h):
// hand-written cases with every expected bit written down. The emulator and the scalar reference must
// both reproduce every expected bit of every entry; a bad entry is reported with its path and reason and
// the others are still checked. seed-dw-permutation.json, the seed review's reproducer, must also show
// what it claims: call order changes the bits, keys do not.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "backward_test_support.h"
#include "protocol/corpus_entry.h"
#include "properties/corpus_replay.h"
#include "protocol/strict_json.h"
#include "test_support.h"

namespace ordo::testing {
namespace {
using protocol::CorpusCase;
using protocol::CorpusEntry;
using protocol::CorpusError;


using protocol::CorpusCase;
using protocol::CorpusEntry;

const std::filesystem::path kDir = std::filesystem::path(ORDO_SOURCE_DIR) / "corpus" / "regressions";

// Every problem of one entry, each a located line; never throws. Beyond ordo replay (the fast emulator),
// the plain scalar reference of the same plan must give the same bits.
std::vector<std::string> check_regression_entry(const std::string& path) {
  std::vector<std::string> problems;
  try {
    const CorpusEntry e = protocol::read_corpus_entry(path);
    if (e.kind != protocol::EntryKind::regression) return {path + ": kind: not a regression entry"};
    for (const std::string& p : properties::replay_entry(e, path).problems) problems.push_back(p + " (emulator)");
    for (std::size_t i = 0; i < e.cases.size(); ++i) {
      const CorpusCase& c = e.cases[i];
      if (!c.weight) continue;  // the scalar reference below is the dW one; other kinds are replayed above
      const BackwardWeightResult want{c.expected, c.expected_db};
      if (const std::string d = first_difference(oracle::reference_backward_weight(*c.weight, e.contract.plan), want);
          !d.empty())
        problems.push_back(path + ": case " + std::to_string(i) + " (" + c.label + "): scalar reference: " += d);
    }
  } catch (const std::exception& ex) {
    problems.push_back(ex.what());  // CorpusError: "PATH: case N: FIELD: ..."
  }
  return problems;
}

// "" when every entry passed; else "N of M entries failed:" and every problem.
std::string summarise(const std::vector<std::string>& files) {
  std::size_t failed = 0;
  std::string lines;
  for (const std::string& path : files) {
    const std::vector<std::string> problems = check_regression_entry(path);
    failed += problems.empty() ? 0 : 1;
    for (const std::string& p : problems) lines += "\n  " + p;
  }
  if (failed == 0) return "";
  return std::to_string(failed) + " of " + std::to_string(files.size()) + " entries failed:" + lines;
}

std::string mutated_copy(const std::filesystem::path& from, const std::string& name,
                         const std::function<void(nlohmann::ordered_json&)>& edit) {
  std::ifstream in(from);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);
  edit(j);
  std::string path = ordo::testing::process_temp_path(name);
  std::ofstream(path) << j.dump(1) << "\n";
  return path;
}

std::vector<CorpusCase> seed_cases() {
  return protocol::read_corpus_entry((kDir / "seed-dw-permutation.json").string()).cases;
}

TEST(BackwardRegression, EveryEntryReproducesEveryExpectedBit) {
  const auto files = properties::corpus_entry_files({kDir.string()});
  ASSERT_FALSE(files.empty()) << "expected regression entries under " << kDir;
  EXPECT_EQ(summarise(files), "");
}

TEST(BackwardRegression, APlantedBitFlipAndABadEntryAreCaughtAndTheRestChecked) {
  // Proof that the check can fail: one expected bit flipped in a temp copy is caught in that case by the
  // emulator and the scalar reference, and a copy with a wrong schema is refused with its reason, while
  // the real entry still passes.
  const std::string seed = (kDir / "seed-dw-permutation.json").string();
  const std::string flipped = mutated_copy(seed, "regression_flipped.json", [](nlohmann::ordered_json& j) {
    j["cases"][3]["expected"]["dw"][0] = "00000001";
  });
  const std::string schema = mutated_copy(seed, "regression_schema.json", [](nlohmann::ordered_json& j) {
    j["schema"] = "ordo.corpus/2";
  });
  const std::string summary = summarise({flipped, seed, schema});
  EXPECT_EQ(summary.rfind("2 of 3 entries failed:\n  " + flipped + ": case 3 (key order: 1, 2^-24, -1): dw[0] (row 0, column 0): "
                          "the emulator gives 0x00000000 (0), the entry records 0x00000001",
                          0),
            0u)
      << summary;
  EXPECT_NE(summary.find(flipped + ": case 3 (key order: 1, 2^-24, -1): scalar reference: dW[0]: 0x00000000"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("\n  " + schema + ": schema: must be \"ordo.corpus/1\", got \"ordo.corpus/2\""), std::string::npos)
      << summary;
}

TEST(BackwardRegression, SeedDwPermutationShowsCallOrderChangesAndKeysDoNot) {
  const std::vector<CorpusCase> cases = seed_cases();
  ASSERT_EQ(cases.size(), 4u);
  // Cases 0 and 1: the same rows in two call orders, no keys. Cases 2 and 3: the same with keys.
  EXPECT_FALSE(cases[0].weight->keys || cases[1].weight->keys);
  EXPECT_TRUE(cases[2].weight->keys && cases[3].weight->keys);
  const auto result = [](const CorpusCase& c) { return BackwardWeightResult{c.expected, c.expected_db}; };
  EXPECT_NE(first_difference(result(cases[0]), result(cases[1])), "");
  EXPECT_EQ(first_difference(result(cases[2]), result(cases[3])), "");
  EXPECT_EQ(bits_of(cases[0].expected[0]), 0x00000000u);  // 1 + 2^-24 - 1
  EXPECT_EQ(bits_of(cases[1].expected[0]), 0x33800000u);  // 1 - 1 + 2^-24
  EXPECT_EQ(bits_of((*cases[1].expected_db)[0]), 0x33800000u);
}

}  // namespace
}  // namespace ordo::testing
