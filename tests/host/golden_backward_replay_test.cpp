// Replays the backward golden vectors in corpus/golden-backward/ (dX and dW/db bits recorded on real GPUs,
// keys and padding rows included) through the host emulator of each variant's contract: CI has no GPU,
// and this is how it checks the backward emulators, the BF16 token grouping included, against hardware.
// Every file is checked: a malformed or mismatching one is reported with its path and reason and the
// replay goes on to the next; the test fails at the end with a summary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "core/contract_file.h"
#include "core/float_bits.h"
#include "properties/backward_case.h"
#include "properties/golden_backward.h"
#include "properties/strict_json.h"
#include "subjects/backward_subject.h"

namespace ordo::properties {
namespace {

std::vector<std::filesystem::path> golden_backward_files() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = std::filesystem::path(ORDO_SOURCE_DIR) / "corpus" / "golden-backward";
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// "" when the emulator reproduces every recorded bit of the case, else the first difference.
std::string replay(BackwardSubject& emulator, const GoldenBackwardCase& c) {
  if (c.data) {
    const BackendResult r = emulator.data(*c.data);
    if (!r.status.ok()) return "emulator refused the case: " + r.status.to_string();
    return first_difference(r.y, c.dx, "dX (emulator against GPU)");
  }
  const BackwardWeightRun r = emulator.weight({*c.weight});
  if (!r.status.ok()) return "emulator refused the case: " + r.status.to_string();
  return first_difference(r.result, c.dw);
}

// The outcome of one file: every problem found, each a located line ("PATH: case 3 (uniform): ...").
struct FileReplay {
  std::string path;
  std::vector<std::string> problems;
  std::size_t cases = 0, elements = 0;
  std::string gpu;
};

// Never throws: a file that cannot be read, names an unknown contract or is malformed is one problem.
FileReplay replay_golden_backward_file(const std::filesystem::path& path) {
  FileReplay r;
  r.path = path.string();
  try {
    const GoldenBackwardFile f = read_golden_backward_file(r.path);
    r.gpu = f.gpu;
    const Contract contract = resolve_contract(f.contract);
    if (contract.kind == ContractKind::forward) {
      r.problems.push_back(r.path + ": contract: \"" + f.contract + "\" is not a backward contract");
      return r;
    }
    auto emulator = make_backward_emulator_subject(contract);
    for (std::size_t i = 0; i < f.cases.size(); ++i) {
      const GoldenBackwardCase& c = f.cases[i];
      ++r.cases;
      if (const std::string d = replay(*emulator, c); !d.empty())
        r.problems.push_back(r.path + ": case " + std::to_string(i) + " (" + c.family + "): " + d);
      r.elements += c.data ? c.dx.size() : c.dw.dw.size() + (c.dw.db ? c.dw.db->size() : 0);
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

// A copy of a real file with one change made through `edit`, written under TempDir.
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

TEST(GoldenBackwardVectors, CorpusIsPresent) {
  // FP32 dX, FP32 dW, and the sm_90 BF16 dX and dW at least: the replay proves nothing without them.
  EXPECT_GE(golden_backward_files().size(), 4u) << "expected golden files under corpus/golden-backward/";
}

TEST(GoldenBackwardVectors, EmulatorReproducesEveryRecordedGpuBit) {
  std::vector<FileReplay> replays;
  for (const auto& path : golden_backward_files()) {
    replays.push_back(replay_golden_backward_file(path));
    const FileReplay& r = replays.back();
    std::printf("[ GOLDEN ] %s: %s, %zu cases, %zu elements recorded on %s\n", path.filename().c_str(),
                r.problems.empty() ? "ok" : "FAILED", r.cases, r.elements, r.gpu.c_str());
  }
  EXPECT_EQ(summarise(replays), "");
}

TEST(GoldenBackwardVectors, APlantedBitFlipInEveryFileIsCaught) {
  // Proof that the replay can fail, for dX, dW and db files alike: one bit of one recorded output
  // flipped in a temp copy must be caught, in that case and nowhere else.
  const auto files = golden_backward_files();
  ASSERT_FALSE(files.empty());
  std::vector<FileReplay> replays;
  for (std::size_t n = 0; n < files.size(); ++n) {
    const std::string bad = mutated_copy(files[n], "golden_backward_flipped_" + std::to_string(n) + ".json",
                                         [](nlohmann::ordered_json& j) {
                                           auto& c = j["cases"][1];
                                           const char* field = c["kind"] == "dx" ? "dx" : c.contains("db") ? "db" : "dw";
                                           c[field][0] = flip_low_bit(c[field][0].get<std::string>());
                                         });
    replays.push_back(replay_golden_backward_file(bad));
    ASSERT_EQ(replays.back().problems.size(), 1u) << files[n] << ": " << summarise({replays.back()});
    EXPECT_EQ(replays.back().problems[0].rfind(bad + ": case 1 (", 0), 0u) << replays.back().problems[0];
  }
  replays.push_back(replay_golden_backward_file(files[0]));
  const std::string summary = summarise(replays);
  const std::string want = std::to_string(files.size()) + " of " + std::to_string(files.size() + 1) + " files failed:";
  EXPECT_EQ(summary.rfind(want, 0), 0u) << summary;
}

TEST(GoldenBackwardVectors, AMalformedFileIsReportedWithItsReasonAndTheReplayGoesOn) {
  const auto files = golden_backward_files();
  ASSERT_FALSE(files.empty());
  const std::string bad = mutated_copy(files[0], "golden_backward_bad_schema.json", [](nlohmann::ordered_json& j) {
    j["schema"] = "ordo.golden/1";
  });
  const std::string summary = summarise({replay_golden_backward_file(bad), replay_golden_backward_file(files[0])});
  EXPECT_EQ(summary, "1 of 2 files failed:\n  " + bad + ": schema: must be \"ordo.golden-backward/1\", got \"ordo.golden/1\"");
}

TEST(GoldenBackwardVectors, FileRoundTripKeepsEveryBitAndTheKeys) {
  GoldenBackwardFile f{"v", "bwd.dw.f32.fma-chain/1", "none", "c", {}};
  BackwardWeightProblem p;
  p.T = 2;
  p.N = 1;
  p.K = 1;
  p.x = {float_of(0x7FC12345u), -0.0f};
  p.g = {1.0f, 0.0f};
  p.keys = LogicalKeys{2, {5, -1, -3, 7}};
  p.with_bias_grad = true;
  GoldenBackwardCase c;
  c.family = "nan_inf";
  c.weight = p;
  c.dw.dw = {float_of(0x7FFFFFFFu)};
  c.dw.db = std::vector<float>{-0.0f};
  f.cases.push_back(c);
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "ordo_golden_backward_roundtrip.json").string();
  write_golden_backward_file(f, path);
  const GoldenBackwardFile g = read_golden_backward_file(path);
  ASSERT_EQ(g.cases.size(), 1u);
  const BackwardWeightProblem& q = *g.cases[0].weight;
  EXPECT_EQ(bits_of(q.x[0]), 0x7FC12345u);
  EXPECT_EQ(bits_of(q.x[1]), 0x80000000u);
  EXPECT_EQ(q.keys->values, p.keys->values);
  EXPECT_EQ(bits_of(g.cases[0].dw.dw[0]), 0x7FFFFFFFu);
  EXPECT_EQ(bits_of((*g.cases[0].dw.db)[0]), 0x80000000u);
}

}  // namespace
}  // namespace ordo::properties
