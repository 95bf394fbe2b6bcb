// Replays the golden vectors in corpus/golden/ (output bits recorded on real GPUs) through the host
// emulator of each variant's contract: CI has no GPU, and this is how it checks the emulator, and so
// the tensor-core model, against hardware bits on every run.
#include <gtest/gtest.h>

#include <filesystem>

#include "subjects/forward_subject.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "properties/forward_checks.h"
#include "properties/golden_corpus.h"

namespace ordo::properties {
namespace {

std::vector<std::filesystem::path> golden_files() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = std::filesystem::path(ORDO_SOURCE_DIR) / "corpus" / "golden";
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  return files;
}

TEST(GoldenVectors, CorpusIsPresent) {
  // The replay below proves nothing if the corpus went missing.
  EXPECT_GE(golden_files().size(), 2u) << "expected golden files under corpus/golden/";
}

TEST(GoldenVectors, EmulatorReproducesEveryRecordedGpuBit) {
  for (const auto& path : golden_files()) {
    const GoldenFile f = read_golden_file(path.string());
    auto emulator = make_emulator_subject(resolve_contract(f.contract));
    std::int64_t elements = 0;
    for (std::size_t i = 0; i < f.cases.size(); ++i) {
      const GoldenCase& c = f.cases[i];
      const BackendResult r = emulator->forward(c.problem);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      const CheckResult cmp = compare_outputs(c.y, r.y, c.problem, "GPU (" + f.gpu + ")", "emulator");
      EXPECT_TRUE(cmp.passed) << path.filename() << " case " << i << " (" << c.family << "): " << cmp.detail;
      elements += cmp.elements;
    }
    std::printf("[ GOLDEN ] %s: %zu cases, %lld elements recorded on %s\n", f.variant.c_str(), f.cases.size(),
                static_cast<long long>(elements), f.gpu.c_str());
  }
}

}  // namespace
}  // namespace ordo::properties

namespace ordo::properties {
namespace {

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
  const std::string path = ::testing::TempDir() + "/golden_roundtrip.json";
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
