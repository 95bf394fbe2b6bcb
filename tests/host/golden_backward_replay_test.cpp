// Replays the backward golden vectors in corpus/golden-backward/ (dX and dW/db bits recorded on real GPUs,
// keys and padding rows included) through the host emulator of each variant's contract: CI has no GPU,
// and this is how it checks the backward emulators, the BF16 token grouping included, against hardware.
#include <gtest/gtest.h>

#include <filesystem>

#include "subjects/backward_subject.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "properties/backward_case.h"
#include "properties/golden_backward.h"

namespace ordo::properties {
namespace {

std::vector<std::filesystem::path> golden_backward_files() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = std::filesystem::path(ORDO_SOURCE_DIR) / "corpus" / "golden-backward";
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
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

TEST(GoldenBackwardVectors, CorpusIsPresent) {
  // FP32 dX, FP32 dW, and the sm_90 BF16 dX and dW at least: the replay proves nothing without them.
  EXPECT_GE(golden_backward_files().size(), 4u) << "expected golden files under corpus/golden-backward/";
}

TEST(GoldenBackwardVectors, EmulatorReproducesEveryRecordedGpuBit) {
  for (const auto& path : golden_backward_files()) {
    const GoldenBackwardFile f = read_golden_backward_file(path.string());
    auto emulator = make_backward_emulator_subject(resolve_contract(f.contract));
    std::size_t elements = 0;
    for (std::size_t i = 0; i < f.cases.size(); ++i) {
      const GoldenBackwardCase& c = f.cases[i];
      EXPECT_EQ(replay(*emulator, c), "") << path.filename() << " case " << i << " (" << c.family << ")";
      elements += c.data ? c.dx.size() : c.dw.dw.size() + (c.dw.db ? c.dw.db->size() : 0);
    }
    std::printf("[ GOLDEN ] %s: %zu cases, %zu elements recorded on %s\n", f.variant.c_str(), f.cases.size(), elements,
                f.gpu.c_str());
  }
}

TEST(GoldenBackwardVectors, AFlippedBitInARecordedOutputIsCaught) {
  const auto files = golden_backward_files();
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    GoldenBackwardFile f = read_golden_backward_file(path.string());
    ASSERT_FALSE(f.cases.empty());
    auto emulator = make_backward_emulator_subject(resolve_contract(f.contract));
    GoldenBackwardCase& c = f.cases[0];
    float& v = c.data ? c.dx[0] : c.dw.dw[0];
    v = float_of(bits_of(v) ^ 1u);
    EXPECT_NE(replay(*emulator, c), "") << path.filename();
  }
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
  const std::string path = (std::filesystem::temp_directory_path() / "ordo_golden_backward_roundtrip.json").string();
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
