// corpus/regressions/*.json (ordo.regression/1, read by properties/regression_corpus.h): hand-written dW
// and db cases with every expected bit written down. The emulator and the scalar reference must both
// reproduce every expected bit of every file; a bad file is reported with its path and reason and the
// others are still checked. seed-dw-permutation.json, the seed review's reproducer, must also show what
// it claims: call order changes the bits, keys do not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "backward_test_support.h"
#include "properties/regression_corpus.h"
#include "properties/strict_json.h"

namespace ordo::testing {
namespace {

using properties::RegressionCase;
using properties::RegressionFile;

const std::filesystem::path kDir = std::filesystem::path(ORDO_SOURCE_DIR) / "corpus" / "regressions";

std::vector<std::filesystem::path> regression_files() {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::exists(kDir))
    for (const auto& e : std::filesystem::directory_iterator(kDir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Every problem of one file, each a located line; never throws.
std::vector<std::string> check_regression_file(const std::filesystem::path& path) {
  std::vector<std::string> problems;
  try {
    const RegressionFile f = properties::read_regression_file(path.string());
    const Contract* contract = find_contract(f.contract);  // the reader has checked it is a built-in dW one
    for (std::size_t i = 0; i < f.cases.size(); ++i) {
      const RegressionCase& c = f.cases[i];
      const std::string where = path.string() + ": case " + std::to_string(i) + " (" + c.order + "): ";
      const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(c.problem, contract->plan);
      if (!r.status.ok()) {
        problems.push_back(where + "the emulator refused it: " + r.status.to_string());
        continue;
      }
      if (const std::string d = first_difference(r.result, c.expected); !d.empty())
        problems.push_back(where + "emulator: " + d);
      if (const std::string d = first_difference(oracle::reference_backward_weight(c.problem, contract->plan), c.expected);
          !d.empty())
        problems.push_back(where + "scalar reference: " + d);
    }
  } catch (const std::exception& e) {
    problems.push_back(e.what());  // CorpusError: "PATH: case N: FIELD: ..."
  }
  return problems;
}

// "" when every file passed; else "N of M files failed:" and every problem.
std::string summarise(const std::vector<std::filesystem::path>& files) {
  std::size_t failed = 0;
  std::string lines;
  for (const auto& path : files) {
    const std::vector<std::string> problems = check_regression_file(path);
    failed += problems.empty() ? 0 : 1;
    for (const std::string& p : problems) lines += "\n  " + p;
  }
  if (failed == 0) return "";
  return std::to_string(failed) + " of " + std::to_string(files.size()) + " files failed:" + lines;
}

std::string mutated_copy(const std::filesystem::path& from, const std::string& name,
                         const std::function<void(nlohmann::ordered_json&)>& edit) {
  std::ifstream in(from);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);
  edit(j);
  const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  std::ofstream(path) << j.dump(1) << "\n";
  return path;
}

std::vector<RegressionCase> seed_cases() {
  return properties::read_regression_file((kDir / "seed-dw-permutation.json").string()).cases;
}

TEST(BackwardRegression, EveryFileReproducesEveryExpectedBit) {
  const auto files = regression_files();
  ASSERT_FALSE(files.empty()) << "expected regression files under " << kDir;
  EXPECT_EQ(summarise(files), "");
}

TEST(BackwardRegression, APlantedBitFlipAndABadFileAreCaughtAndTheRestChecked) {
  // Proof that the check can fail: one expected bit flipped in a temp copy is caught in that case, and
  // a copy with a wrong schema is refused with its reason, while the real file still passes.
  const std::filesystem::path seed = kDir / "seed-dw-permutation.json";
  const std::string flipped = mutated_copy(seed, "regression_flipped.json", [](nlohmann::ordered_json& j) {
    j["cases"][3]["dw"][0][0] = "00000001";
  });
  const std::string schema = mutated_copy(seed, "regression_schema.json", [](nlohmann::ordered_json& j) {
    j["schema"] = "ordo.regression/2";
  });
  const std::string summary = summarise({flipped, seed, schema});
  EXPECT_EQ(summary.rfind("2 of 3 files failed:\n  " + flipped + ": case 3 (", 0), 0u) << summary;
  EXPECT_NE(summary.find("emulator: dW[0]: 0x00000000"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\n  " + schema + ": schema: must be \"ordo.regression/1\", got \"ordo.regression/2\""),
            std::string::npos)
      << summary;
}

TEST(BackwardRegression, SeedDwPermutationShowsCallOrderChangesAndKeysDoNot) {
  const std::vector<RegressionCase> cases = seed_cases();
  ASSERT_EQ(cases.size(), 4u);
  // Cases 0 and 1: the same rows in two call orders, no keys. Cases 2 and 3: the same with keys.
  EXPECT_FALSE(cases[0].problem.keys || cases[1].problem.keys);
  EXPECT_TRUE(cases[2].problem.keys && cases[3].problem.keys);
  EXPECT_NE(first_difference(cases[0].expected, cases[1].expected), "");
  EXPECT_EQ(first_difference(cases[2].expected, cases[3].expected), "");
  EXPECT_EQ(bits_of(cases[0].expected.dw[0]), 0x00000000u);  // 1 + 2^-24 - 1
  EXPECT_EQ(bits_of(cases[1].expected.dw[0]), 0x33800000u);  // 1 - 1 + 2^-24
  EXPECT_EQ(bits_of((*cases[1].expected.db)[0]), 0x33800000u);
}

}  // namespace
}  // namespace ordo::testing
