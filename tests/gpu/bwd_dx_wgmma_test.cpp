// The Hopper dX variant sm90.bwd.dx.bf16.wgmma.128x256x64 (kernels/bf16_wgmma_128x256x64.cu, W read as
// an N-major B) on the GPU: bit for bit against the emulator of bwd.dx.bf16.tc-fdpa-sm90/1 on random
// cases, on the edges of its 128x256 tile, 64-wide k tiles and 16-wide steps, on grids whose last wave
// runs in 128-column halves; a row's bits whatever the batch; and its TMA requirements failing closed.
// Skipped with the reason without a GPU or on a GPU other than sm_90.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../host/backward_test_support.h"
#include "backward_gpu_support.h"
#include "core/backward_problem.h"
#include "core/contract.h"
#include "gpu_test_support.h"
#include "kernels/backward_api.h"
#include "oracle/backward_emulator.h"

namespace ordo::testing {
namespace {

constexpr const char* kVariant = "sm90.bwd.dx.bf16.wgmma.128x256x64";

class WgmmaDx : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    const KernelVariant* v = kernels::find_backward_variant(kVariant);
    ASSERT_NE(v, nullptr) << kVariant << " is not registered";
    if (const std::string why = outside_sm_range(*v); !why.empty()) GTEST_SKIP() << why << ": not run on this GPU";
  }
};

std::vector<float> gpu_dx(const BackwardDataProblem& p) {
  const DeviceArray g = upload_operand(p.g, true), w = upload_operand(p.w, true);
  DeviceArray dx(static_cast<std::size_t>(p.M * p.K) * sizeof(float));
  dx.fill(kPoison);
  kernels::BackwardDataArgs a;
  a.g = {g.get(), DType::bf16, p.M, p.N};
  a.w = {w.get(), DType::bf16, p.N, p.K};
  a.dx = {dx.get(), DType::f32, p.M, p.K};
  const Status s = kernels::backward_data(kVariant, a);
  if (!s.ok()) throw std::runtime_error(std::string("backward_data refused a valid problem: ") + s.to_string());
  check_cuda(cudaDeviceSynchronize(), "dX kernel");
  return dx.read<float>();
}

std::vector<float> emulate(const BackwardDataProblem& p) {
  return oracle::emulate_backward_data(p, contract_bwd_dx_bf16_tc_fdpa_sm90().plan);
}

std::string shape_of(const BackwardDataProblem& p) {
  return "M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K);
}

// A dX problem of the given shape (N reduced) with the values of a forward case of family f.
BackwardDataProblem problem(std::int64_t M, std::int64_t N, std::int64_t K, properties::ValueFamily f,
                            std::uint64_t seed) {
  ForwardCase c;
  c.M = M;
  c.N = K;  // data_problem reads the forward case's (M, N, K) as dX's (M, K, N)
  c.K = N;
  c.family = f;
  c.seed = seed;
  c.bf16_operands = true;
  return properties::data_problem(c);
}

TEST_F(WgmmaDx, EqualsEmulatorBitwise) {
  constexpr properties::ShapeLimits kLimits{.max_m = 700, .max_n = 1100, .max_k = 1100, .max_volume = std::int64_t{1} << 23};
  const auto gen = properties::gen_forward_case(kLimits, properties::all_families(),
                                                {.bf16_operands = true, .k_multiple = 8, .n_multiple = 8});
  EXPECT_TRUE(rc::check(std::string("dX kernel == emulator, bit for bit (") + kVariant + ")", [&gen] {
    const ForwardCase c = *gen;
    RC_TAG(std::string(properties::family_name(c.family)));
    const BackwardDataProblem p = properties::data_problem(c);
    const std::string d = first_difference(gpu_dx(p), emulate(p), "dX (kernel vs emulator)");
    if (!d.empty()) RC_FAIL(d + " at " + shape_of(p) + " (from " + c.summary() + ")");
  }));
}

// Rows around the 64-row consumer halves and the 128-row tile, columns around the 64-column TMA boxes
// and the 256-column tile, reductions around the 16-wide step and the 64-wide k tile.
TEST_F(WgmmaDx, TileEdgeShapesEqualEmulator) {
  int checked = 0;
  std::uint64_t seed = 0x7467656d;
  for (const std::int64_t M : {1, 63, 64, 65, 128, 129, 257})
    for (const std::int64_t K : {8, 56, 64, 72, 248, 256, 264, 520})
      for (const std::int64_t N : {8, 16, 24, 64, 72, 200}) {
        const auto family = properties::all_families()[static_cast<std::size_t>(checked) % properties::all_families().size()];
        const BackwardDataProblem p = problem(M, N, K, family, ++seed);
        EXPECT_EQ(first_difference(gpu_dx(p), emulate(p), "dX"), "") << shape_of(p);
        ++checked;
      }
  EXPECT_EQ(checked, 7 * 8 * 6);
}

// Grids of more than one wave of 128x256 tiles on 132 SMs: dX [1024, 5376] has 168 tiles, its last wave
// of 36 runs as 72 halves of 128 columns (m64n128k16); [1024, 4096] has 128 tiles, one wave, no split;
// [2048, 5376] 336 tiles, a last wave of 72 (more than half full: whole tiles).
TEST_F(WgmmaDx, GridsWithAndWithoutHalvesEqualEmulator) {
  std::uint64_t seed = 0x68616c66;
  for (const auto& [M, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1024, 5376}, {1024, 4096}, {2048, 5376}})
    for (const std::int64_t N : {40, 136}) {
      const BackwardDataProblem p = problem(M, N, K, properties::ValueFamily::uniform, ++seed);
      EXPECT_EQ(first_difference(gpu_dx(p), emulate(p), "dX"), "") << shape_of(p);
    }
}

// Every output is one chain whatever the grid: a row alone, and the same row as the first, a middle
// and the last row of batches whose grids differ (one tile, one wave, several waves, halves).
TEST_F(WgmmaDx, RowBitsDoNotDependOnTheBatch) {
  constexpr std::int64_t N = 264, K = 5376;
  const BackwardDataProblem whole = problem(16384, N, K, properties::ValueFamily::cancellation, 0x62617463);
  const std::vector<float> all = gpu_dx(whole);
  for (const std::int64_t M : {1, 2, 129, 1024, 4096, 16383}) {
    for (const std::int64_t row : {std::int64_t{0}, M / 2, M - 1}) {
      // The batch: rows [0, M) of the whole G; row `row` of its dX must be row `row` of the whole one.
      BackwardDataProblem b = whole;
      b.M = M;
      b.g.assign(whole.g.begin(), whole.g.begin() + M * N);
      const std::vector<float> part = gpu_dx(b);
      EXPECT_EQ(std::memcmp(part.data() + row * K, all.data() + row * K, K * sizeof(float)), 0)
          << "row " << row << " of a batch of " << M << " differs from the batch of 16384";
    }
  }
  BackwardDataProblem alone = whole;
  alone.M = 1;
  alone.g.assign(whole.g.begin() + 16383 * N, whole.g.end());
  const std::vector<float> last = gpu_dx(alone);
  EXPECT_EQ(std::memcmp(last.data(), all.data() + 16383 * K, K * sizeof(float)), 0) << "the last row alone";
}

// The TMA requirements fail closed with their own codes and leave dX untouched; the valid call runs.
TEST_F(WgmmaDx, TmaRequirementsFailClosed) {
  constexpr std::int64_t M = 33, N = 40, K = 72;
  DeviceArray g(static_cast<std::size_t>(M * N + 64) * 2), w(static_cast<std::size_t>(N * K + 64) * 2);
  DeviceArray dx(static_cast<std::size_t>(M * K) * sizeof(float));
  g.fill(0);
  w.fill(0);
  auto valid = [&] {
    kernels::BackwardDataArgs a;
    a.g = {g.get(), DType::bf16, M, N};
    a.w = {w.get(), DType::bf16, N, K};
    a.dx = {dx.get(), DType::f32, M, K};
    return a;
  };
  ASSERT_TRUE(kernels::backward_data(kVariant, valid()).ok());
  check_cuda(cudaDeviceSynchronize(), "the valid call");
  struct Scenario {
    const char* what;
    StatusCode want;
    std::function<void(kernels::BackwardDataArgs&)> edit;
  };
  const std::vector<Scenario> list = {
      {"N = 36, not a multiple of 8", StatusCode::unsupported_shape,
       [](kernels::BackwardDataArgs& a) {
         a.g.cols = 36;
         a.w.rows = 36;
       }},
      {"K = 68, not a multiple of 8", StatusCode::unsupported_shape,
       [](kernels::BackwardDataArgs& a) {
         a.w.cols = 68;
         a.dx.cols = 68;
       }},
      {"g 8 bytes past a 16-byte boundary", StatusCode::misaligned,
       [](kernels::BackwardDataArgs& a) { a.g.data = static_cast<const char*>(a.g.data) + 8; }},
      {"w 2 bytes past a 16-byte boundary", StatusCode::misaligned,
       [](kernels::BackwardDataArgs& a) { a.w.data = static_cast<const char*>(a.w.data) + 2; }},
      {"g is f32", StatusCode::wrong_dtype, [](kernels::BackwardDataArgs& a) { a.g.dtype = DType::f32; }},
  };
  for (const Scenario& s : list) {
    dx.fill(kPoison);
    kernels::BackwardDataArgs a = valid();
    s.edit(a);
    const Status got = kernels::backward_data(kVariant, a);
    EXPECT_EQ(got.code, s.want) << s.what << ": " << got.to_string();
    if (s.want == StatusCode::misaligned) {
      EXPECT_NE(got.message.find("16-byte"), std::string::npos) << got.to_string();
    }
    check_cuda(cudaDeviceSynchronize(), s.what);
    for (const unsigned char byte : dx.read<unsigned char>())
      if (byte != kPoison) {
        ADD_FAILURE() << s.what << ": dX was written";
        break;
      }
  }
}

}  // namespace
}  // namespace ordo::testing
