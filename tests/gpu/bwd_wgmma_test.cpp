// The Hopper backward variants on the wgmma tile (kernels/bf16_wgmma_128x256x64.cu) on the GPU, beyond
// the properties every backward flavour has in backward_kernels_test.cpp (flavour bf16_sm90_wgmma):
//   sm90.bwd.dx.bf16.wgmma.128x256x64 (W an N-major B): bit for bit against the emulator of
//     bwd.dx.bf16.tc-fdpa-sm90/1 on random cases, on the edges of its 128x256 tile, 64-wide k tiles and
//     16-wide steps, on grids whose last wave runs in 128-column halves; a row's bits whatever the batch;
//   sm90.bwd.dw.bf16.wgmma.128x256x64 (G an M-major A, X an N-major B, in place or gathered): grids with
//     and without halves, in place and gathered; no active token;
//   both: their TMA requirements failing closed.
// Skipped with the reason without a GPU or on a GPU other than sm_90.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstdlib>
#include <bit>
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
constexpr const char* kDwVariant = "sm90.bwd.dw.bf16.wgmma.128x256x64";

// Skips unless variant `id` runs on this GPU.
class WgmmaVariantTest : public GpuTest {
 protected:
  void require(const char* id) {
    const KernelVariant* v = kernels::find_backward_variant(id);
    ASSERT_NE(v, nullptr) << id << " is not registered";
    if (const std::string why = outside_sm_range(*v); !why.empty()) GTEST_SKIP() << why << ": not run on this GPU";
  }
};

class WgmmaDx : public WgmmaVariantTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped()) require(kVariant);
  }
};

class WgmmaDw : public WgmmaVariantTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped()) require(kDwVariant);
  }
};

// Whether n floats hold the same bits (NaN payloads and signed zeros included).
bool same_bits(const float* a, const float* b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  return true;
}

std::vector<float> gpu_dx(const BackwardDataProblem& p, const kernels::LaunchOptions& options = {}) {
  const DeviceArray g = upload_operand(p.g, true), w = upload_operand(p.w, true);
  DeviceArray dx(static_cast<std::size_t>(p.M * p.K) * sizeof(float));
  dx.fill(kPoison);
  kernels::BackwardDataArgs a;
  a.g = {g.get(), DType::bf16, p.M, p.N};
  a.w = {w.get(), DType::bf16, p.N, p.K};
  a.dx = {dx.get(), DType::f32, p.M, p.K};
  a.options = options;
  const Status s = kernels::backward_data(kVariant, a);
  if (!s.ok()) throw std::runtime_error(std::string("backward_data refused a valid problem: ") + s.to_string());
  check_cuda(cudaDeviceSynchronize(), "dX kernel");
  return dx.read<float>();
}

std::vector<float> emulate(const BackwardDataProblem& p) {
  return oracle::emulate_backward_data(p, contract_bwd_dx_bf16_tc_fdpa_sm90().plan);
}

// A malformed call: what is wrong, the code it must get, and the edit of the valid call that makes it.
template <class Args>
struct Refusal {
  const char* what;
  StatusCode want;
  std::function<void(Args&)> edit;
};

// Each refusal's call gets its code (and a misalignment names the 16 bytes) and leaves every output
// as poisoned before it.
template <class Args, class Call>
void expect_refusals(const std::vector<Refusal<Args>>& list, const std::function<Args()>& valid, Call call,
                     const std::vector<const DeviceArray*>& outputs) {
  for (const Refusal<Args>& r : list) {
    for (const DeviceArray* o : outputs) o->fill(kPoison);
    Args a = valid();
    r.edit(a);
    const Status got = call(a);
    EXPECT_EQ(got.code, r.want) << r.what << ": " << got.to_string();
    if (r.want == StatusCode::misaligned) {
      EXPECT_NE(got.message.find("16-byte"), std::string::npos) << got.to_string();
    }
    check_cuda(cudaDeviceSynchronize(), r.what);
    for (const DeviceArray* o : outputs)
      for (const unsigned char byte : o->read<unsigned char>())
        if (byte != kPoison) {
          ADD_FAILURE() << r.what << ": an output was written";
          break;
        }
  }
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

// dX with M <= 64 on a grid that is all quarters (dX's K <= 33 tiles of 256 columns on 132 SMs) or all halves
// (34..66 tiles) runs a small-M kernel: 64-row G tiles shared by a cluster; halves with two consumer
// warpgroups per block, one per 64-column box of W (quarters keep one: a box is not split), or one with
// --wgmma-small-m-consumers 1 (LaunchOptions). Both settings, random shapes of both kinds, reductions across the rings with
// a tail: kernel == emulator, bit for bit.
TEST_F(WgmmaDx, SmallMKernelsEqualEmulator) {
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  if (sms != 132) GTEST_SKIP() << "the shapes below are all-quarter and all-half grids on 132 SMs";
  Rng rng(0x736d616c6c);
  int checked = 0;
  for (const auto consumers : {kernels::WgmmaSmallMConsumers::by_shape, kernels::WgmmaSmallMConsumers::one}) {
    kernels::LaunchOptions options;
    options.wgmma.small_m_consumers = consumers;
    for (int i = 0; i < 24; ++i) {
      const std::int64_t M = i % 4 == 0 ? 64 : rng.in_range(1, 64);
      const bool halves = i % 2 == 1;
      std::int64_t K = std::int64_t{8} * (halves ? rng.in_range(33 * 32 + 1, 66 * 32) : rng.in_range(1, 33 * 32));
      if (i % 8 == 3) K = 16128;
      if (i % 8 == 2) K = std::int64_t{8} * rng.in_range(1, 8);  // one unit, the second consumer's box past K
      const std::int64_t N = std::int64_t{8} * rng.in_range(1, K <= 2048 ? 130 : 25);
      const auto family = properties::all_families()[static_cast<std::size_t>(i) % properties::all_families().size()];
      const BackwardDataProblem p = problem(M, N, K, family, rng.next());
      EXPECT_EQ(first_difference(gpu_dx(p, options), emulate(p), "dX"), "")
          << shape_of(p) << kernels::launch_options_text(options);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 48);
}

// Every output is one chain whatever the grid: a row alone, and the same row as the first, a middle
// and the last row of batches whose grids differ (one tile, one wave, several waves, halves; M <= 64 on
// the small-M kernel in clusters of four, 65..128 in quarters on the single-block kernel).
// Uniform values besides cancellation: cancellation's pairs cancel exactly (N even), so every dX row would
// be +0 whatever G row a kernel read, and the test could not see a row computed from the wrong data.
TEST_F(WgmmaDx, RowBitsDoNotDependOnTheBatch) {
  constexpr std::int64_t N = 264, K = 5376;
  for (const properties::ValueFamily family :
       {properties::ValueFamily::cancellation, properties::ValueFamily::uniform}) {
    SCOPED_TRACE(properties::family_name(family));
    const BackwardDataProblem whole = problem(16384, N, K, family, 0x62617463);
    const std::vector<float> all = gpu_dx(whole);
    for (const std::int64_t M : {1, 2, 64, 65, 129, 1024, 4096, 16383}) {
      for (const std::int64_t row : {std::int64_t{0}, M / 2, M - 1}) {
        // The batch: rows [0, M) of the whole G; row `row` of its dX must be row `row` of the whole one.
        BackwardDataProblem b = whole;
        b.M = M;
        b.g.assign(whole.g.begin(), whole.g.begin() + M * N);
        const std::vector<float> part = gpu_dx(b);
        EXPECT_TRUE(same_bits(part.data() + row * K, all.data() + row * K, K))
            << "row " << row << " of a batch of " << M << " differs from the batch of 16384";
      }
    }
    BackwardDataProblem alone = whole;
    alone.M = 1;
    alone.g.assign(whole.g.begin() + 16383 * N, whole.g.end());
    const std::vector<float> last = gpu_dx(alone);
    EXPECT_TRUE(same_bits(last.data(), all.data() + 16383 * K, K)) << "the last row alone";
  }
}

// An FP32 output placed `offset` bytes into a poisoned buffer with 64 guard bytes on either side: the
// general kernel stores a 16-byte aligned Y through shared memory and TMA boxes of 64 x 32 (which write only
// the elements inside Y), any other Y thread by thread.
struct GuardedOutput {
  static constexpr std::size_t kGuard = 64;
  std::size_t offset, bytes;
  DeviceArray buffer;
  GuardedOutput(std::size_t elements, std::size_t off)
      : offset(off), bytes(elements * sizeof(float)), buffer(kGuard + off + elements * sizeof(float) + kGuard) {
    buffer.fill(kPoison);
  }
  float* data() const { return reinterpret_cast<float*>(static_cast<char*>(buffer.get()) + kGuard + offset); }
  std::vector<float> values() const {
    std::vector<float> v(bytes / sizeof(float));
    check_cuda(cudaMemcpy(v.data(), data(), bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    return v;
  }
  // "" when every byte outside Y still holds the poison, else the first one that does not.
  std::string guards_intact() const {
    const std::vector<unsigned char> all = buffer.read<unsigned char>();
    for (std::size_t i = 0; i < all.size(); ++i) {
      const bool inside = i >= kGuard + offset && i < kGuard + offset + bytes;
      if (!inside && all[i] != kPoison)
        return "byte " + std::to_string(static_cast<std::int64_t>(i) - static_cast<std::int64_t>(kGuard + offset)) +
               " relative to Y was written";
    }
    return "";
  }
};

// dX [1000, 2056] over N = 200: 8 x 9 = 72 tiles, more than half a wave, so whole 128x256 tiles on the
// general kernel; the last tile row has 104 rows (its second consumer 40), the last tile column 8 columns
// (one live 32-column store box, seven past K). At offsets 0 and 16 bytes Y is stored through TMA boxes,
// at 4 and 8 thread by thread; both equal the emulator and write nothing outside Y. [700, 1288] over 136
// likewise: 6 x 6 tiles, every tile in halves on the general kernel, the last tile column's second half
// wholly past K (8 columns in the first, so an odd number of store boxes per unit there).
TEST_F(WgmmaDx, StagedAndDirectStoresWriteExactlyTheOutput) {
  std::uint64_t seed = 0x73746f72;
  for (const auto& [M, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1000, 2056}, {700, 1288}}) {
    const BackwardDataProblem p = problem(M, M == 1000 ? 200 : 136, K, properties::ValueFamily::uniform, ++seed);
    const std::vector<float> want = emulate(p);
    const DeviceArray g = upload_operand(p.g, true), w = upload_operand(p.w, true);
    for (const std::size_t offset : {0, 4, 8, 16}) {
      GuardedOutput dx(static_cast<std::size_t>(p.M * p.K), offset);
      kernels::BackwardDataArgs a;
      a.g = {g.get(), DType::bf16, p.M, p.N};
      a.w = {w.get(), DType::bf16, p.N, p.K};
      a.dx = {dx.data(), DType::f32, p.M, p.K};
      ASSERT_TRUE(kernels::backward_data(kVariant, a).ok()) << shape_of(p);
      check_cuda(cudaDeviceSynchronize(), "dX kernel");
      EXPECT_EQ(first_difference(dx.values(), want, "dX (kernel vs emulator)"), "")
          << shape_of(p) << ", Y " << offset << " bytes past a 16-byte boundary";
      EXPECT_EQ(dx.guards_intact(), "") << shape_of(p) << ", Y " << offset << " bytes past a 16-byte boundary";
    }
  }
}

// The TMA requirements fail closed with their own codes and leave dX untouched; the valid call runs.
TEST_F(WgmmaDx, TmaRequirementsFailClosed) {
  constexpr std::int64_t M = 33, N = 40, K = 72;
  DeviceArray g(static_cast<std::size_t>(M * N + 64) * 2), w(static_cast<std::size_t>(N * K + 64) * 2);
  DeviceArray dx(static_cast<std::size_t>(M * K) * sizeof(float));
  g.fill(0);
  w.fill(0);
  const std::function<kernels::BackwardDataArgs()> valid = [&] {
    kernels::BackwardDataArgs a;
    a.g = {g.get(), DType::bf16, M, N};
    a.w = {w.get(), DType::bf16, N, K};
    a.dx = {dx.get(), DType::f32, M, K};
    return a;
  };
  ASSERT_TRUE(kernels::backward_data(kVariant, valid()).ok());
  check_cuda(cudaDeviceSynchronize(), "the valid call");
  using A = kernels::BackwardDataArgs;
  const std::vector<Refusal<A>> list = {
      {"N = 36, not a multiple of 8", StatusCode::unsupported_shape,
       [](A& a) {
         a.g.cols = 36;
         a.w.rows = 36;
       }},
      {"K = 68, not a multiple of 8", StatusCode::unsupported_shape,
       [](A& a) {
         a.w.cols = 68;
         a.dx.cols = 68;
       }},
      {"g 8 bytes past a 16-byte boundary", StatusCode::misaligned,
       [](A& a) { a.g.data = static_cast<const char*>(a.g.data) + 8; }},
      {"w 2 bytes past a 16-byte boundary", StatusCode::misaligned,
       [](A& a) { a.w.data = static_cast<const char*>(a.w.data) + 2; }},
      {"g is f32", StatusCode::wrong_dtype, [](A& a) { a.g.dtype = DType::f32; }},
  };
  expect_refusals<A>(list, valid, [](const A& a) { return kernels::backward_data(kVariant, a); }, {&dx});
}

// dW and db of p through the dW variant, from +0 or (accumulate) from `out`'s contents; *in_place
// says whether the call read its rows in place.
Status run_dw(const BackwardWeightProblem& p, DeviceWeightGrad& out, bool accumulate, bool* in_place = nullptr,
              const kernels::LaunchOptions& options = {}) {
  const DeviceArray x = upload_operand(p.x, true), g = upload_operand(p.g, true);
  const DeviceArray keys = p.keys ? DeviceArray::from(p.keys->values) : DeviceArray();
  kernels::BackwardWeightArgs a;
  a.x = {x.get(), DType::bf16, p.T, p.K};
  a.g = {g.get(), DType::bf16, p.T, p.N};
  if (p.keys) a.keys = {keys.get(), DType::i64, p.T, p.keys->width};
  a.dw = out.dw_ref();
  a.db = out.db_ref();
  a.accumulate = accumulate;
  a.options = options;
  kernels::BackwardWeightPlan plan;
  if (Status s = kernels::plan_backward_weight(kDwVariant, a, &plan); !s.ok()) return s;
  if (in_place) *in_place = plan.in_place;
  Status s = kernels::backward_weight(kDwVariant, a);
  check_cuda(cudaDeviceSynchronize(), "dW kernels");
  return s;
}

BackwardWeightResult emulate_dw(const BackwardWeightProblem& p) {
  return emulate_ok(p, contract_bwd_dw_bf16_tc_fdpa_sm90());
}

// dW [N, K] over T tokens with db: grids of 8 x 21 = 168 tiles (a last wave of 36 in halves), 8 x 16 =
// 128 (one wave), 42 x 21 = 882; each in place (no keys) and gathered (keys in random order, padding).
TEST_F(WgmmaDw, GridsWithAndWithoutHalvesEqualEmulator) {
  std::uint64_t seed = 0x64776772;
  for (const auto& [N, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1024, 5376}, {1024, 4096}, {5376, 5376}})
    for (const std::int64_t width : {0, 2}) {
      ForwardCase c;
      c.M = N;  // weight_problem reads the forward case's (M, N, K) as dW's (N, K, T)
      c.N = K;
      c.K = 72;
      c.family = properties::ValueFamily::uniform;
      c.has_bias = true;
      c.seed = ++seed;
      c.bf16_operands = true;
      BackwardWeightProblem p = properties::weight_problem(c, width);
      if (width > 0) p = properties::with_padding(p, 3, seed);
      DeviceWeightGrad out(p.N, p.K, true);
      bool in_place = false;
      ASSERT_TRUE(run_dw(p, out, false, &in_place).ok()) << describe(p, c);
      EXPECT_EQ(in_place, width == 0) << describe(p, c);
      EXPECT_EQ(first_difference(out.read(), emulate_dw(p)), "") << describe(p, c);
    }
}

// Without accumulate the launcher runs the pipelined dW kernels (no start-value load) at every token count;
// --wgmma-dw serial runs the kernels that load start values from +0 instead (the launcher's measurement
// switch; with accumulate they always run), and gathered rows also go through the producers that wait for their
// own copies (--wgmma-gather wait). All equal the emulator bit for bit, in place and gathered (keys
// in random order, 3 padding rows): on 128x128 halves (dW [136, 264]) and on whole tiles with partial edges
// (dW [1000, 2056], 72 tiles), token counts on and off the 16-token step, a few and thousands.
TEST_F(WgmmaDw, BothKernelsEqualEmulator) {
  std::uint64_t seed = 0x73776974;
  struct Shape {
    std::int64_t N, K, tokens;
  };
  for (const Shape& shape : std::vector<Shape>{{136, 264, 4100}, {136, 264, 17}, {1000, 2056, 1000}, {1000, 2056, 33}})
    for (const bool gathered : {false, true}) {
      ForwardCase c;
      c.M = shape.N;  // weight_problem reads the forward case's (M, N, K) as dW's (N, K, T)
      c.N = shape.K;
      c.K = shape.tokens;
      c.family = properties::ValueFamily::uniform;
      c.has_bias = true;
      c.seed = ++seed;
      c.bf16_operands = true;
      BackwardWeightProblem p = properties::weight_problem(c, gathered ? 2 : 0);
      if (gathered) p = properties::with_padding(p, 3, seed);
      const BackwardWeightResult want = emulate_dw(p);
      // 0: the pipelined kernel; 1: the start-value kernel (--wgmma-dw serial); 2, gathered only: the
      // producers that wait for their own copies (--wgmma-gather wait, the start-value kernel, one wgmma
      // group in flight: with two it deadlocked).
      for (int mode = 0; mode < (gathered ? 3 : 2); ++mode) {
        DeviceWeightGrad out(p.N, p.K, true);
        bool in_place = false;
        kernels::LaunchOptions options;
        if (mode == 1) options.wgmma.dw = kernels::WgmmaDwKernel::serial;
        if (mode == 2) options.wgmma.gather = kernels::WgmmaGather::wait;
        const Status s = run_dw(p, out, false, &in_place, options);
        const std::string kernel = mode == 0   ? ", the pipelined kernel"
                                   : mode == 1 ? ", the start-value kernel"
                                               : ", the waiting gather producers";
        ASSERT_TRUE(s.ok()) << describe(p, c) << kernel;
        EXPECT_EQ(in_place, !gathered) << describe(p, c);
        EXPECT_EQ(first_difference(out.read(), want), "") << describe(p, c) << kernel;
      }
    }
}

// dW [1000, 2056] over 72 tokens (in place) and 72 + 3 padding rows (gathered): 72 tiles, whole ones on the
// general kernel, partial in both directions at the edges. dW at offsets 0 and 16 bytes is stored through TMA
// boxes, at 4 and 8 thread by thread: both equal the emulator and write nothing outside dW. Then, from the
// result as start values (accumulate, the kernel that loads them), the same call again equals the same call
// with every store thread by thread (--wgmma-stores direct, the launcher's measurement switch): the
// staged stores of continued chains.
TEST_F(WgmmaDw, StagedAndDirectStoresWriteExactlyTheOutput) {
  std::uint64_t seed = 0x64777374;
  for (const bool gathered : {false, true}) {
    ForwardCase c;
    c.M = 1000;  // weight_problem reads the forward case's (M, N, K) as dW's (N, K, T)
    c.N = 2056;
    c.K = 72;
    c.family = properties::ValueFamily::uniform;
    c.seed = ++seed;
    c.bf16_operands = true;
    BackwardWeightProblem p = properties::weight_problem(c, gathered ? 2 : 0);
    if (gathered) p = properties::with_padding(p, 3, seed);
    const std::vector<float> want = emulate_dw(p).dw;
    const DeviceArray x = upload_operand(p.x, true), g = upload_operand(p.g, true);
    const DeviceArray keys = p.keys ? DeviceArray::from(p.keys->values) : DeviceArray();
    const std::string label = std::string(gathered ? "gathered" : "in place") + " dW [1000, 2056], T = " +
                              std::to_string(p.T);
    auto run = [&](float* dw, bool accumulate, kernels::WgmmaStores stores = kernels::WgmmaStores::staged) {
      kernels::BackwardWeightArgs a;
      a.x = {x.get(), DType::bf16, p.T, p.K};
      a.g = {g.get(), DType::bf16, p.T, p.N};
      if (p.keys) a.keys = {keys.get(), DType::i64, p.T, p.keys->width};
      a.dw = {dw, DType::f32, p.N, p.K};
      a.accumulate = accumulate;
      a.options.wgmma.stores = stores;
      Status s = kernels::backward_weight(kDwVariant, a);
      check_cuda(cudaDeviceSynchronize(), "dW kernels");
      return s;
    };
    for (const std::size_t offset : {0, 4, 8, 16}) {
      const std::string where = label + ", dW " + std::to_string(offset) + " bytes past a 16-byte boundary";
      GuardedOutput dw(static_cast<std::size_t>(p.N * p.K), offset);
      ASSERT_TRUE(run(dw.data(), false).ok()) << where;
      EXPECT_EQ(first_difference(dw.values(), want, "dW (kernel vs emulator)"), "") << where;
      EXPECT_EQ(dw.guards_intact(), "") << where;
      GuardedOutput direct(static_cast<std::size_t>(p.N * p.K), offset);
      check_cuda(cudaMemcpy(direct.data(), dw.data(), dw.bytes, cudaMemcpyDeviceToDevice), "dW start values");
      ASSERT_TRUE(run(dw.data(), true).ok()) << where;
      const Status direct_status = run(direct.data(), true, kernels::WgmmaStores::direct);
      ASSERT_TRUE(direct_status.ok()) << where;
      EXPECT_EQ(first_difference(dw.values(), direct.values(), "dW continued (staged vs direct stores)"), "") << where;
      EXPECT_EQ(dw.guards_intact(), "") << where << ", continued";
    }
  }
}

// No active token: chains of no step. From +0 they give +0 (dW and db); continued, they leave dW and db
// as they were. Both with T = 0 and with only padding rows.
TEST_F(WgmmaDw, NoActiveTokenGivesTheStartValues) {
  constexpr std::int64_t N = 136, K = 264;
  for (const bool only_padding : {false, true}) {
    BackwardWeightProblem p;
    p.N = N;
    p.K = K;
    p.with_bias_grad = true;
    p.bf16_operands = true;
    if (only_padding) {
      p.T = 3;
      p.x.assign(static_cast<std::size_t>(p.T * K), 1.0f);
      p.g.assign(static_cast<std::size_t>(p.T * N), 0.0f);
      p.keys = LogicalKeys{2, {-1, 0, -2, 0, -3, 0}};
    }
    DeviceWeightGrad out(N, K, true);  // poisoned
    ASSERT_TRUE(run_dw(p, out, false).ok());
    const BackwardWeightResult zero = out.read();
    for (const float v : zero.dw) ASSERT_EQ(bits_of(v), 0u) << "dW not +0";
    for (const float v : *zero.db) ASSERT_EQ(bits_of(v), 0u) << "db not +0";
    // Continue from a known state: unchanged.
    std::vector<float> start(static_cast<std::size_t>(N * K));
    for (std::size_t i = 0; i < start.size(); ++i) start[i] = static_cast<float>(i % 97) - 48.5f;
    check_cuda(cudaMemcpy(out.dw.get(), start.data(), start.size() * 4, cudaMemcpyHostToDevice), "dW start");
    ASSERT_TRUE(run_dw(p, out, true).ok());
    EXPECT_EQ(first_difference(out.read().dw, start, "dW"), "") << (only_padding ? "only padding" : "T = 0");
  }
}

TEST_F(WgmmaDw, TmaRequirementsFailClosed) {
  constexpr std::int64_t T = 20, N = 40, K = 72;
  DeviceArray x(static_cast<std::size_t>(T * K + 64) * 2), g(static_cast<std::size_t>(T * N + 64) * 2);
  DeviceWeightGrad out(N, K, true);
  x.fill(0);
  g.fill(0);
  const std::function<kernels::BackwardWeightArgs()> valid = [&] {
    kernels::BackwardWeightArgs a;
    a.x = {x.get(), DType::bf16, T, K};
    a.g = {g.get(), DType::bf16, T, N};
    a.dw = out.dw_ref();
    a.db = out.db_ref();
    return a;
  };
  ASSERT_TRUE(kernels::backward_weight(kDwVariant, valid()).ok());
  check_cuda(cudaDeviceSynchronize(), "the valid call");
  using A = kernels::BackwardWeightArgs;
  const std::vector<Refusal<A>> list = {
      {"N = 36, not a multiple of 8", StatusCode::unsupported_shape,
       [](A& a) {
         a.g.cols = 36;
         a.dw.rows = 36;
         a.db.cols = 36;
       }},
      {"K = 68, not a multiple of 8", StatusCode::unsupported_shape,
       [](A& a) {
         a.x.cols = 68;
         a.dw.cols = 68;
       }},
      {"x 8 bytes past a 16-byte boundary", StatusCode::misaligned,
       [](A& a) { a.x.data = static_cast<const char*>(a.x.data) + 8; }},
      {"g 4 bytes past a 16-byte boundary", StatusCode::misaligned,
       [](A& a) { a.g.data = static_cast<const char*>(a.g.data) + 4; }},
  };
  expect_refusals<A>(list, valid, [](const A& a) { return kernels::backward_weight(kDwVariant, a); },
                     {&out.dw, &out.db});
}

}  // namespace
}  // namespace ordo::testing
