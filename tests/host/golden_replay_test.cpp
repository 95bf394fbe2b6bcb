// Replays the golden vectors in corpus/golden/ (output bits recorded on real GPUs) through the host
// emulator of each variant's contract: CI has no GPU, and this is how it checks the emulator, and so
// the tensor-core model, against hardware bits on every run. Every file is checked: a malformed or
// mismatching one is reported with its path and reason and the replay goes on to the next, so that one
// bad file cannot hide the state of the others; the test fails at the end with a summary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "properties/forward_checks.h"
#include "properties/golden_corpus.h"
#include "properties/strict_json.h"
#include "subjects/forward_subject.h"

namespace ordo::properties {
namespace {

std::vector<std::filesystem::path> golden_files() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = std::filesystem::path(ORDO_SOURCE_DIR) / "corpus" / "golden";
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The outcome of one file: every problem found, each a located line ("PATH: case 3 (uniform): ...").
struct FileReplay {
  std::string path;
  std::vector<std::string> problems;
  std::size_t cases = 0;
  std::int64_t elements = 0;
  std::string variant, gpu;
};

// Never throws: a file that cannot be read, names an unknown contract or is malformed is one problem.
FileReplay replay_golden_file(const std::filesystem::path& path) {
  FileReplay r;
  r.path = path.string();
  try {
    const GoldenFile f = read_golden_file(r.path);
    r.variant = f.variant;
    r.gpu = f.gpu;
    const Contract contract = resolve_contract(f.contract);
    if (contract.kind != ContractKind::forward) {
      r.problems.push_back(r.path + ": contract: \"" + f.contract + "\" is not a forward contract");
      return r;
    }
    auto emulator = make_emulator_subject(contract);
    // Bit for bit, NaN bits included, unless the contract leaves them open (as check_bitwise_equal does).
    const bool any_nan = !contract.plan.nan_bits.has_value();
    for (std::size_t i = 0; i < f.cases.size(); ++i) {
      const GoldenCase& c = f.cases[i];
      const std::string where = r.path + ": case " + std::to_string(i) + " (" + c.family + "): ";
      ++r.cases;
      // The contract's own checks first (bf16 operands, output dtype, bias): a case the emulator would
      // refuse is a bad file, said as such, not an emulator failure.
      if (const Status s = oracle::check_dot_problem(contract.plan, c.problem); !s.ok()) {
        r.problems.push_back(where + "refused by the contract's checks: " + s.to_string());
        continue;
      }
      const BackendResult out = emulator->forward(c.problem);
      if (!out.status.ok()) {
        r.problems.push_back(where + "the emulator refused it: " + out.status.to_string());
        continue;
      }
      if (out.y.size() != c.y.size()) {
        r.problems.push_back(where + "the emulator returned " + std::to_string(out.y.size()) + " values for " +
                             std::to_string(c.y.size()) + " recorded");
        continue;
      }
      const CheckResult cmp = compare_outputs(out.y, c.y, c.problem, "emulator", "GPU (" + f.gpu + ")", any_nan);
      if (!cmp.passed) r.problems.push_back(where + cmp.detail);
      r.elements += cmp.elements;
    }
  } catch (const std::exception& e) {
    r.problems.push_back(e.what());  // CorpusError and ContractFileError messages start with the path
  }
  return r;
}

// "" when every file passed; else "N of M files failed:" and each file's problems (at most 5 each).
std::string summarise(const std::vector<FileReplay>& replays) {
  std::size_t failed = 0;
  std::string lines;
  for (const FileReplay& r : replays) {
    if (r.problems.empty()) continue;
    ++failed;
    for (std::size_t i = 0; i < r.problems.size() && i < 5; ++i) lines += "\n  " + r.problems[i];
    if (r.problems.size() > 5) lines += "\n  " + r.path + ": ... and " + std::to_string(r.problems.size() - 5) + " more";
  }
  if (failed == 0) return "";
  return std::to_string(failed) + " of " + std::to_string(replays.size()) + " files failed:" + lines;
}

// A copy of a real golden file with one change made through `edit`, written under TempDir.
std::string mutated_copy(const std::filesystem::path& from, const std::string& name,
                         const std::function<void(nlohmann::ordered_json&)>& edit) {
  std::ifstream in(from);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);
  edit(j);
  const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  std::ofstream(path) << j.dump(1) << "\n";
  return path;
}

std::string flip_low_bit(const std::string& hex) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", *parse_hex32(hex) ^ 1u);
  return buf;
}

TEST(GoldenVectors, CorpusIsPresent) {
  // The replay below proves nothing if the corpus went missing.
  EXPECT_GE(golden_files().size(), 2u) << "expected golden files under corpus/golden/";
}

TEST(GoldenVectors, EmulatorReproducesEveryRecordedGpuBit) {
  std::vector<FileReplay> replays;
  for (const auto& path : golden_files()) {
    replays.push_back(replay_golden_file(path));
    const FileReplay& r = replays.back();
    std::printf("[ GOLDEN ] %s: %s, %zu cases, %lld elements recorded on %s\n", path.filename().c_str(),
                r.problems.empty() ? "ok" : "FAILED", r.cases, static_cast<long long>(r.elements), r.gpu.c_str());
  }
  const std::string summary = summarise(replays);
  EXPECT_EQ(summary, "");
}

TEST(GoldenVectors, APlantedBitFlipIsCaughtAndTheOtherFilesStillReplay) {
  // Proof that the replay can fail: one bit of one recorded output flipped in a temp copy of a real
  // file must be caught, exactly there, while the untouched file next to it still passes; the same
  // copy with the bit put back passes again.
  const auto files = golden_files();
  ASSERT_FALSE(files.empty());
  const std::string bad = mutated_copy(files[0], "golden_flipped.json", [](nlohmann::ordered_json& j) {
    auto& y = j["cases"][0]["y"][0];
    y = flip_low_bit(y.get<std::string>());
  });
  const FileReplay flipped = replay_golden_file(bad);
  ASSERT_EQ(flipped.problems.size(), 1u) << summarise({flipped});
  EXPECT_NE(flipped.problems[0].find(bad + ": case 0 ("), std::string::npos) << flipped.problems[0];
  EXPECT_NE(flipped.problems[0].find("1 of "), std::string::npos) << flipped.problems[0];
  const std::string summary = summarise({replay_golden_file(files[0]), flipped});
  EXPECT_EQ(summary.rfind("1 of 2 files failed:\n  " + bad + ": case 0 (", 0), 0u) << summary;

  const std::string fixed = mutated_copy(bad, "golden_fixed.json", [](nlohmann::ordered_json& j) {
    auto& y = j["cases"][0]["y"][0];
    y = flip_low_bit(y.get<std::string>());
  });
  EXPECT_EQ(summarise({replay_golden_file(fixed)}), "");
}

TEST(GoldenVectors, AMalformedFileIsReportedWithItsReasonAndTheReplayGoesOn) {
  const auto files = golden_files();
  ASSERT_FALSE(files.empty());
  const std::string bad = mutated_copy(files[0], "golden_bad_m.json", [](nlohmann::ordered_json& j) {
    j["cases"][2]["M"] = 3.0;
  });
  const std::string summary = summarise({replay_golden_file(bad), replay_golden_file(files[0])});
  EXPECT_EQ(summary, "1 of 2 files failed:\n  " + bad +
                         ": case 2: M: must be an integer in [1, 2147483648], got 3.0");
}

TEST(GoldenVectors, FileRoundTripKeepsEveryBit) {
  GoldenFile f;
  f.variant = "v";
  f.contract = "fwd.f32.fma-chain/1";
  f.gpu = "none";
  f.commit = "c";
  GoldenCase c;
  c.family = "nan_inf";
  c.problem.M = 1;
  c.problem.N = 2;
  c.problem.K = 2;
  c.problem.x = {float_of(0xFFC01234u), -0.0f};
  c.problem.w = {1.0f, float_of(0x00000001u), INFINITY, -1.0f};
  c.problem.bias = std::vector<float>{-0.0f, 2.5f};
  c.y = {float_of(0x7FFFFFFFu), 0.0f};
  f.cases.push_back(c);
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "golden_roundtrip.json").string();
  write_golden_file(f, path);
  const GoldenFile g = read_golden_file(path);
  ASSERT_EQ(g.cases.size(), 1u);
  for (std::size_t i = 0; i < c.problem.x.size(); ++i) EXPECT_EQ(bits_of(g.cases[0].problem.x[i]), bits_of(c.problem.x[i]));
  for (std::size_t i = 0; i < c.problem.w.size(); ++i) EXPECT_EQ(bits_of(g.cases[0].problem.w[i]), bits_of(c.problem.w[i]));
  EXPECT_EQ(bits_of((*g.cases[0].problem.bias)[0]), 0x80000000u);
  EXPECT_EQ(bits_of(g.cases[0].y[0]), 0x7FFFFFFFu);
}

}  // namespace
}  // namespace ordo::properties
