// The backward kernels (kernels/backward_api.h) on the GPU. Every property runs for each flavour of
// production variants (a dX variant and a dW/db variant with the contracts they claim):
//   f32:       the FP32 SIMT tiles, bwd.{dx,dw}.f32.fma-chain/1;
//   bf16_sm90: the BF16 tensor-core tiles for sm_90, bwd.{dx,dw}.bf16.tc-fdpa-sm90/1;
//   bf16_sm80: the BF16 tensor-core tiles for sm_80..sm_89, bwd.{dx,dw}.bf16.tc-fdpa-sm80/1.
// Properties: bitwise equality with the host emulators of the contract (oracle/backward_emulator.h),
// tile-edge shapes, the token-order invariances of dW and db (joint permutation, padding, in place ==
// gathered, microbatches accumulated in key order == one call), the reviewer's repro, and fail-closed
// calls. A flavour whose variants do not run on this GPU is skipped with the reason; that such a
// variant refuses the GPU (unsupported_device) is checked by BackwardKernelsAll. Without a GPU every
// test is skipped with the reason.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../host/backward_test_support.h"
#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/float_bits.h"
#include "backward_gpu_support.h"
#include "forced_tile_cases.h"
#include "gpu_test_support.h"
#include "kernels/backward_api.h"
#include "kernels/backward_internal.h"
#include "oracle/backward_emulator.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::testing {
namespace {

constexpr const char* kDxF32 = "sm80.bwd.dx.f32.fma.simt.128x128x16";
constexpr const char* kDwF32 = "sm80.bwd.dw.f32.fma.simt.128x128x16";
constexpr const char* kMutant = "mutant.bwd.dw.f32.call-order";

// A pair of production variants, dX and dW/db, with the contracts they claim and what their cases
// need: bfloat16 operands, and the sizes at the edges of their tiles and instruction steps.
struct Flavour {
  const char* name;  // the suffix of the test names
  const char* dx;
  const char* dw;
  const Contract& (*dx_contract)();
  const Contract& (*dw_contract)();
  bool bf16;
  int min_sm, max_sm;  // the SM range the variants claim (max_sm 0: any newer)
  std::vector<std::int64_t> edges;
  // TMA-fed variants: every operand row a whole number of 16-byte units (N, K multiples of 8); the
  // generated shapes are rounded up to it.
  int row_multiple = 1;
};

const std::vector<Flavour>& flavours() {
  static const std::vector<Flavour> list = {
      {"f32",
       kDxF32,
       kDwF32,
       &contract_bwd_dx_f32_fma_chain,
       &contract_bwd_dw_f32_fma_chain,
       false,
       80,
       0,
       {1, 127, 128, 129}},
      // The variants chosen by shape: the properties run on whichever tile the rule picks for each case.
      {"f32_by_shape",
       "sm80.bwd.dx.f32.fma.simt.by-shape",
       "sm80.bwd.dw.f32.fma.simt.by-shape",
       &contract_bwd_dx_f32_fma_chain,
       &contract_bwd_dw_f32_fma_chain,
       false,
       80,
       0,
       {1, 15, 16, 17, 31, 32, 33, 127, 128, 129}},
      {"bf16_sm90",
       "sm90.bwd.dx.bf16.mma-sync.32x32x16",
       "sm90.bwd.dw.bf16.mma-sync.32x32x16",
       &contract_bwd_dx_bf16_tc_fdpa_sm90,
       &contract_bwd_dw_bf16_tc_fdpa_sm90,
       true,
       90,
       90,
       {1, 15, 16, 17, 32, 33, 129}},
      {"bf16_sm80",
       "sm80.bwd.dx.bf16.mma-sync.32x32x16",
       "sm80.bwd.dw.bf16.mma-sync.32x32x16",
       &contract_bwd_dx_bf16_tc_fdpa_sm80,
       &contract_bwd_dw_bf16_tc_fdpa_sm80,
       true,
       80,
       89,
       {1, 15, 16, 17, 32, 33, 129}},
      {"bf16_sm90_wgmma",
       "sm90.bwd.dx.bf16.wgmma.128x256x64",
       "sm90.bwd.dw.bf16.wgmma.128x256x64",
       &contract_bwd_dx_bf16_tc_fdpa_sm90,
       &contract_bwd_dw_bf16_tc_fdpa_sm90,
       true,
       90,
       90,
       {8, 16, 24, 64, 72, 136, 264},  // 64-wide boxes and k tiles, 128 x 256 tiles, 16-wide steps
       8},
  };
  return list;
}

// Shapes through the forward case generator (biased to 1 and the tile edges 15..17, 127..129, ...):
// dX reads (M, N, K) as (M, K, N), dW as (N, K, T), so the reduced axis is the forward K. With bf16,
// every operand value is rounded to bfloat16.
constexpr properties::ShapeLimits kLimits{
    .max_m = 300, .max_n = 300, .max_k = 1100, .max_volume = std::int64_t{1} << 22};
rc::Gen<ForwardCase> gen_case(const Flavour& f) {
  const int m = f.row_multiple;
  return rc::gen::resize(100, properties::gen_forward_case(kLimits, properties::all_families(),
                                                           {.bf16_operands = f.bf16, .k_multiple = m, .n_multiple = m,
                                                            .m_multiple = m}));
}

// p with zero columns appended to G and X up to multiples of m (the original outputs unchanged).
BackwardWeightProblem widened(const BackwardWeightProblem& p, std::int64_t m) {
  BackwardWeightProblem q = p;
  q.N = (p.N + m - 1) / m * m;
  q.K = (p.K + m - 1) / m * m;
  q.g.assign(static_cast<std::size_t>(p.T * q.N), 0.0f);
  q.x.assign(static_cast<std::size_t>(p.T * q.K), 0.0f);
  for (std::int64_t t = 0; t < p.T; ++t) {
    std::copy(p.g_row(t), p.g_row(t) + p.N, q.g.begin() + t * q.N);
    std::copy(p.x_row(t), p.x_row(t) + p.K, q.x.begin() + t * q.K);
  }
  return q;
}


// dX of p (f32 or bf16 operands, as p says) through variant `id`; throws if the call is refused.
std::vector<float> gpu_dx(const std::string& id, const BackwardDataProblem& p,
                          const kernels::LaunchOptions& options = {}) {
  const DeviceArray g = upload_operand(p.g, p.bf16_operands), w = upload_operand(p.w, p.bf16_operands);
  DeviceArray dx(static_cast<std::size_t>(p.M * p.K) * sizeof(float));
  dx.fill(kPoison);
  kernels::BackwardDataArgs a;
  a.g = {g.get(), operand_dtype(p.bf16_operands), p.M, p.N};
  a.w = {w.get(), operand_dtype(p.bf16_operands), p.N, p.K};
  a.dx = {dx.get(), DType::f32, p.M, p.K};
  a.options = options;
  const Status s = kernels::backward_data(id, a);
  if (!s.ok()) throw std::runtime_error("backward_data(" + id + ") refused a valid problem: " + s.to_string());
  check_cuda(cudaDeviceSynchronize(), "dX kernel");
  return dx.read<float>();
}

// One dW call for p (X, G and keys uploaded, operands as p says), into `out`; with `plan`,
// plan_backward_weight first.
Status run_dw(const std::string& id, const BackwardWeightProblem& p, DeviceWeightGrad& out, bool accumulate,
              kernels::BackwardWeightPlan* plan = nullptr, const kernels::LaunchOptions& options = {}) {
  const DeviceArray x = upload_operand(p.x, p.bf16_operands), g = upload_operand(p.g, p.bf16_operands);
  const DeviceArray keys = p.keys ? DeviceArray::from(p.keys->values) : DeviceArray();
  kernels::BackwardWeightArgs a;
  a.x = {x.get(), operand_dtype(p.bf16_operands), p.T, p.K};
  a.g = {g.get(), operand_dtype(p.bf16_operands), p.T, p.N};
  if (p.keys) a.keys = {keys.get(), DType::i64, p.T, p.keys->width};
  a.dw = {out.dw.get(), DType::f32, p.N, p.K};
  if (out.with_db) a.db = {out.db.get(), DType::f32, 1, p.N};
  a.accumulate = accumulate;
  a.options = options;
  if (plan)
    if (Status s = kernels::plan_backward_weight(id, a, plan); !s.ok()) return s;
  Status s = kernels::backward_weight(id, a);
  check_cuda(cudaDeviceSynchronize(), "dW kernels");
  return s;
}

// dW/db of p in one call from +0; throws if the call is refused.
BackwardWeightResult gpu_dw(const std::string& id, const BackwardWeightProblem& p,
                            kernels::BackwardWeightPlan* plan = nullptr, const kernels::LaunchOptions& options = {}) {
  DeviceWeightGrad out(p.N, p.K, p.with_bias_grad);
  if (Status s = run_dw(id, p, out, false, plan, options); !s.ok())
    throw std::runtime_error("backward_weight(" + id + ") refused a valid problem: " + s.to_string());
  return out.read();
}

std::vector<float> emulate_dx(const Flavour& f, const BackwardDataProblem& p) {
  return oracle::emulate_backward_data(p, f.dx_contract().plan);
}

BackwardWeightResult emulate_dw(const Flavour& f, const BackwardWeightProblem& p) {
  return emulate_ok(p, f.dw_contract());
}

// Keys of width 0 (none), 2 or 3, and up to 5 padding rows when there are keys.
BackwardWeightProblem keyed_problem(const ForwardCase& c, std::int64_t width, std::int64_t padding) {
  BackwardWeightProblem p = weight_problem(c, width);
  return width > 0 && padding > 0 ? with_padding(p, padding, c.seed ^ 0x706164ull) : p;
}

bool is_identity(const std::vector<std::int64_t>& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

// The properties, once per flavour (test names end in /f32, /bf16_sm90, /bf16_sm80).
class BackwardKernels : public GpuTest, public ::testing::WithParamInterface<std::size_t> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    for (const char* id : {flavour().dx, flavour().dw}) {
      const KernelVariant* v = kernels::find_backward_variant(id);
      ASSERT_NE(v, nullptr) << id << " is not registered";
      if (const std::string why = outside_sm_range(*v); !why.empty())
        GTEST_SKIP() << why << ": not run on this GPU (that it refuses this GPU is checked by "
                     << "BackwardKernelsAll.OutOfRangeVariantsRefuseTheDevice)";
    }
  }
  static const Flavour& flavour() { return flavours()[GetParam()]; }
};

INSTANTIATE_TEST_SUITE_P(, BackwardKernels, ::testing::Range<std::size_t>(0, flavours().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& param_info) {
                           return std::string(flavours()[param_info.param].name);
                         });

TEST_P(BackwardKernels, DataEqualsEmulatorBitwise) {
  const Flavour& f = flavour();
  EXPECT_TRUE(rc::check(std::string("dX kernel == emulator, bit for bit (") + f.dx + ")", [&f] {
    const ForwardCase c = *gen_case(f);
    RC_TAG(std::string(properties::family_name(c.family)));
    const BackwardDataProblem p = data_problem(c);
    const std::string d = first_difference(gpu_dx(f.dx, p), emulate_dx(f, p), "dX (kernel vs emulator)");
    if (!d.empty())
      RC_FAIL(d + " at M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
              " (from " + c.summary() + ")");
  }));
}

TEST_P(BackwardKernels, WeightEqualsEmulatorBitwise) {
  const Flavour& f = flavour();
  EXPECT_TRUE(
      rc::check(std::string("dW, db kernel == emulator, bit for bit, keys in any order, padding (") + f.dw + ")", [&f] {
        const ForwardCase c = *gen_case(f);
        const std::int64_t width = *rc::gen::elementOf(std::vector<std::int64_t>{0, 2, 3});
        const BackwardWeightProblem p =
            keyed_problem(c, width, *rc::gen::resize(100, rc::gen::inRange<std::int64_t>(0, 6)));
        RC_TAG(std::string(properties::family_name(c.family)));
        RC_CLASSIFY(width == 0, "no keys");
        kernels::BackwardWeightPlan plan;
        const std::string d = first_difference(gpu_dw(f.dw, p, &plan), emulate_dw(f, p));
        RC_CLASSIFY(plan.in_place, "in place");
        if (!d.empty()) RC_FAIL(d + " at " + describe(p, c));
      }));
}

TEST_P(BackwardKernels, TileEdgeShapesEqualEmulator) {
  // Every combination of the flavour's edge sizes for the three dimensions of dX and of dW (keys
  // permuted, two padding rows), the value family rotating over all of them.
  const Flavour& f = flavour();
  const auto& families = properties::all_families();
  int i = 0;
  for (const std::int64_t a : f.edges)
    for (const std::int64_t b : f.edges)
      for (const std::int64_t k : f.edges) {
        ForwardCase c;
        c.M = a;
        c.N = b;
        c.K = k;
        c.family = families[static_cast<std::size_t>(i) % families.size()];
        c.has_bias = true;
        c.bf16_operands = f.bf16;
        c.seed = 0xed9e0000ull + static_cast<std::uint64_t>(i++);
        const BackwardDataProblem pd = data_problem(c);
        EXPECT_EQ(first_difference(gpu_dx(f.dx, pd), emulate_dx(f, pd), "dX"), "") << c.summary();
        const BackwardWeightProblem pw = keyed_problem(c, 2, 2);
        EXPECT_EQ(first_difference(gpu_dw(f.dw, pw), emulate_dw(f, pw)), "") << describe(pw, c);
      }
  std::cout << "[ CASES ] " << i << " shapes of dX and of dW through " << f.dx << ", " << f.dw << "\n";
}

TEST_P(BackwardKernels, InPlaceEqualsGathered) {
  const Flavour& f = flavour();
  EXPECT_TRUE(rc::check(
      std::string("keys already canonical (in place) == the same rows permuted (gathered) (") + f.dw + ")", [&f] {
        const ForwardCase c = *gen_case(f);
        const std::int64_t width = *rc::gen::elementOf(std::vector<std::int64_t>{2, 3});
        const BackwardWeightProblem canonical = weight_problem(c, width, /*ascending_keys=*/true);
        Rng rng(c.seed ^ 0x67617468ull);
        const std::vector<std::int64_t> perm = random_permutation(canonical.T, rng);
        const BackwardWeightProblem permuted = select_rows(canonical, perm);
        kernels::BackwardWeightPlan in_place, gathered;
        const BackwardWeightResult a = gpu_dw(f.dw, canonical, &in_place);
        const BackwardWeightResult b = gpu_dw(f.dw, permuted, &gathered);
        RC_ASSERT(in_place.in_place);
        RC_ASSERT(gathered.in_place == is_identity(perm));
        RC_CLASSIFY(!gathered.in_place, "gathered");
        if (const std::string d = first_difference(a, b); !d.empty())
          RC_FAIL("in place vs gathered: " + d + " at " + describe(canonical, c));
        if (const std::string d = first_difference(a, emulate_dw(f, canonical)); !d.empty())
          RC_FAIL("vs emulator: " + d);
      }));
}

TEST_P(BackwardKernels, JointPermutationAndPaddingInvariant) {
  const Flavour& f = flavour();
  EXPECT_TRUE(rc::check(
      std::string("dW, db unchanged by a joint permutation of (x, g, keys) and by padding rows (") + f.dw + ")", [&f] {
        const ForwardCase c = *gen_case(f);
        const std::int64_t width = *rc::gen::elementOf(std::vector<std::int64_t>{2, 3});
        const BackwardWeightProblem base = weight_problem(c, width);
        const BackwardWeightProblem padded =
            with_padding(base, *rc::gen::resize(100, rc::gen::inRange<std::int64_t>(1, 8)), c.seed ^ 0x31ull);
        Rng rng(c.seed ^ 0x7065726dull);
        const BackwardWeightProblem permuted = select_rows(padded, random_permutation(padded.T, rng));
        const BackwardWeightResult r0 = gpu_dw(f.dw, base);
        if (const std::string d = first_difference(r0, gpu_dw(f.dw, padded)); !d.empty())
          RC_FAIL("padding: " + d + " at " + describe(padded, c));
        if (const std::string d = first_difference(r0, gpu_dw(f.dw, permuted)); !d.empty())
          RC_FAIL("permutation: " + d + " at " + describe(permuted, c));
      }));
}

TEST_P(BackwardKernels, MicrobatchesAccumulatedInKeyOrderEqualOneCall) {
  // FP32: any split. BF16: every microbatch but the last holds a multiple of 16 active tokens, the
  // condition under which the GPU API's accumulate continues the whole batch's 16-token groups
  // (kernels/backward_api.h); the last holds any number.
  const Flavour& f = flavour();
  EXPECT_TRUE(rc::check(std::string("microbatches in key order with accumulate == one call (") + f.dw + ")", [&f] {
    const ForwardCase c = *gen_case(f);
    const std::int64_t width = *rc::gen::elementOf(std::vector<std::int64_t>{0, 2, 3});
    const BackwardWeightProblem p =
        keyed_problem(c, width, *rc::gen::resize(100, rc::gen::inRange<std::int64_t>(0, 6)));
    const BackwardWeightResult whole = gpu_dw(f.dw, p);

    // Cut the reduction order into consecutive pieces (some may be empty), at multiples of `unit`
    // active tokens. With keys, each piece's rows are shuffled and the padding rows spread over the
    // pieces: the kernels only need the pieces to arrive in key order.
    const std::vector<std::int64_t> order = token_order(p).rows;
    const std::size_t unit = f.bf16 ? 16 : 1;
    const int pieces = *rc::gen::resize(100, rc::gen::inRange(1, 7));
    Rng rng(c.seed ^ 0x6d6963ull);
    std::vector<std::size_t> cuts = {0, order.size()};
    for (int i = 1; i < pieces; ++i)
      cuts.push_back(unit * static_cast<std::size_t>(rng.next() % (order.size() / unit + 1)));
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::vector<std::int64_t>> rows(cuts.size() - 1);
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
      rows[i].assign(order.begin() + static_cast<std::ptrdiff_t>(cuts[i]),
                     order.begin() + static_cast<std::ptrdiff_t>(cuts[i + 1]));
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) RC_ASSERT(rows[i].size() % unit == 0);
    if (p.keys) {
      for (std::int64_t t = 0; t < p.T; ++t)
        if (p.keys->view().is_padding(t)) rows[rng.next() % rows.size()].push_back(t);
      for (auto& r : rows)
        for (std::size_t i = r.size(); i > 1; --i) std::swap(r[i - 1], r[rng.next() % i]);
    }
    RC_CLASSIFY(rows.size() > 1, "split");
    DeviceWeightGrad acc(p.N, p.K, p.with_bias_grad);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Status s = run_dw(f.dw, select_rows(p, rows[i]), acc, /*accumulate=*/i > 0);
      if (!s.ok()) RC_FAIL("microbatch " + std::to_string(i) + " refused: " + s.to_string());
    }
    if (const std::string d = first_difference(acc.read(), whole); !d.empty())
      RC_FAIL("accumulated vs one call: " + d + " at " + describe(p, c) + ", " + std::to_string(rows.size()) +
              " microbatches");
  }));
}

// The seed's review: x = ones(3, 32), g[:, 0] = [1, 2^-24, -1], the rows given in `order`, keys (0, t)
// for the original row t. In key order the db chain gives +0 (1 + 2^-24 rounds to 1, then 1 - 1), and
// so does the FP32 dW chain; in the call order (0, 2, 1) they would give 2^-24. A BF16 dW element sums
// the three products in one tensor-core instruction, exactly: 2^-24 in every order.
BackwardWeightProblem reviewers_repro(const std::vector<std::int64_t>& order, bool bf16) {
  BackwardWeightProblem p;
  p.T = 3;
  p.N = 5376;
  p.K = 32;
  p.with_bias_grad = true;
  p.bf16_operands = bf16;
  p.x.assign(static_cast<std::size_t>(p.T * p.K), 1.0f);
  p.g.assign(static_cast<std::size_t>(p.T * p.N), 0.0f);
  const float column0[3] = {1.0f, std::ldexp(1.0f, -24), -1.0f};  // bfloat16 values too
  p.keys = LogicalKeys{2, {}};
  for (std::int64_t i = 0; i < p.T; ++i) {
    const std::int64_t t = order[static_cast<std::size_t>(i)];
    p.g[static_cast<std::size_t>(i * p.N)] = column0[t];
    p.keys->values.insert(p.keys->values.end(), {0, t});
  }
  return p;
}

TEST_P(BackwardKernels, ReviewersRepro) {
  const Flavour& f = flavour();
  const BackwardWeightResult a = gpu_dw(f.dw, reviewers_repro({0, 1, 2}, f.bf16));
  const BackwardWeightResult b = gpu_dw(f.dw, reviewers_repro({0, 2, 1}, f.bf16));
  EXPECT_EQ(first_difference(a, b), "");
  EXPECT_EQ(bits_of(a.dw[0]), f.bf16 ? bits_of(std::ldexp(1.0f, -24)) : 0u) << describe_float(a.dw[0]);
  EXPECT_EQ(bits_of((*a.db)[0]), 0u) << describe_float((*a.db)[0]);
  EXPECT_EQ(first_difference(b, emulate_dw(f, reviewers_repro({0, 2, 1}, f.bf16))), "");
  if (!f.bf16) return;
  // Three tokens sum exactly in one tensor-core instruction whatever their order; 17 tokens in two
  // 16-token groups do not (tests/host/backward_test_support.h): the kernel must follow the keys.
  // (A TMA-fed variant gets it with zero columns up to its row multiple.)
  auto repro = [&f](bool reversed, bool with_keys) { return widened(bf16_order_repro(reversed, with_keys), f.row_multiple); };
  const BackwardWeightResult keyed = gpu_dw(f.dw, repro(false, true));
  const BackwardWeightResult reversed = gpu_dw(f.dw, repro(true, true));
  EXPECT_EQ(first_difference(keyed, reversed), "");
  EXPECT_EQ(first_difference(keyed, emulate_dw(f, repro(false, true))), "");
  EXPECT_NE(first_difference(keyed, emulate_dw(f, repro(true, false))), "") << "the data does not expose the order";
}

// ---- fail closed ----------------------------------------------------------------------------------

constexpr unsigned char kSentinel = 0x5A;
constexpr std::int64_t kM = 5, kT = 6, kN = 7, kK = 9, kW = 3;  // dX [kM, kK]; dW over kT tokens, keys [kT, kW]
constexpr std::int64_t kPadRow = 2;                             // the padding token of the valid dW call

// Valid operands of a dX and a dW call (f32 or bf16 operands, f32 outputs) in one allocation, in
// 64-byte aligned pieces, so that aliasing scenarios can point one operand into another; plus G with
// bad padding rows and keys with a duplicate.
struct FailClosedBuffers {
  static constexpr std::size_t kAlign = 64;  // bytes
  static std::size_t up(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }
  bool bf16;
  std::int64_t es;  // operand element bytes
  DType od;         // operand dtype
  DeviceArray arena;
  char *g_dx, *w, *x, *g, *g_bad_pad, *g_nan_pad;  // operands
  float *dx, *dw, *db;
  std::int64_t *keys, *keys_dup;

  explicit FailClosedBuffers(bool bf16_operands)
      : bf16(bf16_operands), es(bf16_operands ? 2 : 4), od(operand_dtype(bf16_operands)) {
    const auto ob = [this](std::int64_t n) { return static_cast<std::size_t>(n * es); };
    const auto fb = [](std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(float); };
    const auto kb = [](std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(std::int64_t); };
    std::vector<std::pair<void**, std::size_t>> pieces = {{reinterpret_cast<void**>(&g_dx), ob(kM * kN)},
                                                          {reinterpret_cast<void**>(&w), ob(kN * kK)},
                                                          {reinterpret_cast<void**>(&dx), fb(kM * kK)},
                                                          {reinterpret_cast<void**>(&x), ob(kT * kK)},
                                                          {reinterpret_cast<void**>(&g), ob(kT * kN)},
                                                          {reinterpret_cast<void**>(&g_bad_pad), ob(kT * kN)},
                                                          {reinterpret_cast<void**>(&g_nan_pad), ob(kT * kN)},
                                                          {reinterpret_cast<void**>(&dw), fb(kN * kK)},
                                                          {reinterpret_cast<void**>(&db), fb(kN)},
                                                          {reinterpret_cast<void**>(&keys), kb(kT * kW)},
                                                          {reinterpret_cast<void**>(&keys_dup), kb(kT * kW)}};
    std::vector<std::size_t> offsets;
    offsets.reserve(pieces.size());
    std::size_t at = 0;
    for (const auto& piece : pieces) offsets.push_back(std::exchange(at, at + up(piece.second)));
    arena = DeviceArray(at + kAlign);
    const auto base = reinterpret_cast<std::uintptr_t>(arena.get());
    const std::uintptr_t aligned = (base + kAlign - 1) / kAlign * kAlign;
    for (std::size_t i = 0; i < pieces.size(); ++i) *pieces[i].first = reinterpret_cast<void*>(aligned + offsets[i]);

    Rng rng(7);
    auto values = [&](std::int64_t n) {
      std::vector<float> v(static_cast<std::size_t>(n));
      for (float& e : v) e = static_cast<float>(rng.in_range(-1000, 1000)) / 512.0f;
      return v;
    };
    auto put = [](void* dst, const auto& v) {
      check_cuda(cudaMemcpy(dst, v.data(), v.size() * sizeof(v[0]), cudaMemcpyHostToDevice), "cudaMemcpy");
    };
    // An operand in the operand dtype (bfloat16: rounded to nearest even first).
    auto put_operand = [&](void* dst, const std::vector<float>& v) {
      if (!bf16) return put(dst, v);
      std::vector<std::uint16_t> h(v.size());
      for (std::size_t i = 0; i < v.size(); ++i)
        h[i] = static_cast<std::uint16_t>(bits_of(oracle::round_to_bf16(v[i])) >> 16);
      put(dst, h);
    };
    put_operand(g_dx, values(kM * kN));
    put_operand(w, values(kN * kK));
    put_operand(x, values(kT * kK));
    std::vector<float> gv = values(kT * kN);
    for (std::int64_t n = 0; n < kN; ++n) gv[static_cast<std::size_t>(kPadRow * kN + n)] = n % 2 ? -0.0f : 0.0f;
    put_operand(g, gv);
    gv[static_cast<std::size_t>(kPadRow * kN + 3)] = 1.0f;
    put_operand(g_bad_pad, gv);
    gv[static_cast<std::size_t>(kPadRow * kN + 3)] = 0.0f;
    gv[static_cast<std::size_t>(kPadRow * kN)] = std::nanf("");
    put_operand(g_nan_pad, gv);
    std::vector<std::int64_t> kv;
    for (std::int64_t t = 0; t < kT; ++t) kv.insert(kv.end(), {t == kPadRow ? -1 : (kT - t) / 2, t % 2, 7});
    put(keys, kv);
    kv[4 * kW + 0] = kv[3 * kW + 0];  // rows 3 and 4 share a key
    kv[4 * kW + 1] = kv[3 * kW + 1];
    put(keys_dup, kv);
  }
};

kernels::BackwardDataArgs valid_dx_args(const FailClosedBuffers& b) {
  kernels::BackwardDataArgs a;
  a.g = {b.g_dx, b.od, kM, kN};
  a.w = {b.w, b.od, kN, kK};
  a.dx = {b.dx, DType::f32, kM, kK};
  return a;
}

kernels::BackwardWeightArgs valid_dw_args(const FailClosedBuffers& b, bool accumulate) {
  kernels::BackwardWeightArgs a;
  a.x = {b.x, b.od, kT, kK};
  a.g = {b.g, b.od, kT, kN};
  a.keys = {b.keys, DType::i64, kT, kW};
  a.dw = {b.dw, DType::f32, kN, kK};
  a.db = {b.db, DType::f32, 1, kN};
  a.accumulate = accumulate;
  return a;
}

// Host memory the scenarios point operands at.
struct HostBlocks {
  std::vector<float> pageable = std::vector<float>(4096, 1.0f);
  void* pinned = nullptr;
  HostBlocks() { check_cuda(cudaMallocHost(&pinned, 4096 * sizeof(float)), "cudaMallocHost"); }
  ~HostBlocks() { cudaFreeHost(pinned); }
};

template <class Args>
struct Scenario {
  std::string name;
  StatusCode expected;
  std::function<void(Args&, std::string& id, const FailClosedBuffers&, HostBlocks&)> mutate;
};

// Runs each scenario with the outputs set to a sentinel first; every one must get its code and leave
// the outputs' bytes as they were.
template <class Args>
void run_scenarios(const std::vector<Scenario<Args>>& list, const std::function<Args()>& valid, const char* variant,
                   const std::function<Status(const std::string&, const Args&)>& call, const FailClosedBuffers& buf,
                   const std::vector<std::pair<void*, std::size_t>>& outputs) {
  HostBlocks host;
  for (const Scenario<Args>& s : list) {
    std::vector<std::vector<unsigned char>> before;
    for (const auto& [p, bytes] : outputs) {
      check_cuda(cudaMemset(p, kSentinel, bytes), "cudaMemset");
      before.emplace_back(bytes, kSentinel);
    }
    Args a = valid();
    std::string id = variant;
    s.mutate(a, id, buf, host);
    const Status st = call(id, a);
    check_cuda(cudaDeviceSynchronize(), "after " + s.name);
    EXPECT_EQ(st.code, s.expected) << id << ": " << s.name << " -> " << status_code_name(st.code) << " (" << st.message
                                   << "), expected " << status_code_name(s.expected);
    if (st.code == s.expected) std::cout << "[ REFUSED ] " << id << ": " << s.name << ": " << st.message << "\n";
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      std::vector<unsigned char> after(outputs[i].second);
      check_cuda(cudaMemcpy(after.data(), outputs[i].first, after.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
      EXPECT_TRUE(after == before[i]) << id << ": " << s.name << ": output " << i << " changed";
    }
  }
}

// The scenarios of a dX variant `id`, each from the valid dX call on buf; dX must keep its bytes.
void run_dx_scenarios(const std::vector<Scenario<kernels::BackwardDataArgs>>& list, const char* id,
                      const FailClosedBuffers& buf) {
  using A = kernels::BackwardDataArgs;
  run_scenarios<A>(
      list, [&] { return valid_dx_args(buf); }, id,
      [](const std::string& variant, const A& a) { return kernels::backward_data(variant, a); }, buf,
      {{buf.dx, kM * kK * sizeof(float)}});
}

// The scenarios of a dW variant `id`, each from the valid dW call on buf (from +0, or accumulating); dW
// and db must keep their bytes.
void run_dw_scenarios(const std::vector<Scenario<kernels::BackwardWeightArgs>>& list, const char* id,
                      const FailClosedBuffers& buf, bool accumulate) {
  using A = kernels::BackwardWeightArgs;
  run_scenarios<A>(
      list, [&] { return valid_dw_args(buf, accumulate); }, id,
      [](const std::string& variant, const A& a) { return kernels::backward_weight(variant, a); }, buf,
      {{buf.dw, kN * kK * sizeof(float)}, {buf.db, kN * sizeof(float)}});
}

// The operand dtype a flavour does not take, named for the scenarios.
DType other_operand_dtype(const Flavour& f) { return f.bf16 ? DType::f32 : DType::bf16; }
std::string is_other(const char* operand, const Flavour& f) {
  return std::string(operand) + " is " + std::string(dtype_name(other_operand_dtype(f))) + " (the variant takes " +
         std::string(dtype_name(operand_dtype(f.bf16))) + ")";
}

// The scenarios' fixed shapes (kM x kN x kK) are not whole 16-byte rows: a TMA-fed flavour refuses even
// the valid call (unsupported_shape), so its requirements have their own test.
std::string scenario_shapes_refused(const Flavour& f) {
  if (f.row_multiple == 1) return "";
  return std::string(f.name) + ": the scenarios' shapes are not multiples of " + std::to_string(f.row_multiple) +
         "; its variants' own checks are WgmmaDx.TmaRequirementsFailClosed and WgmmaDw.TmaRequirementsFailClosed, "
         "and the other checks are the same validation code";
}

TEST_P(BackwardKernels, DataFailsClosed) {
  using A = kernels::BackwardDataArgs;
  using B = const FailClosedBuffers&;
  const Flavour& f = flavour();
  if (const std::string why = scenario_shapes_refused(f); !why.empty()) GTEST_SKIP() << why;
  const FailClosedBuffers buf(f.bf16);
  const std::int64_t es = buf.es;
  const DType other = other_operand_dtype(f);
  auto args = [](auto fn) { return [fn](A& a, std::string&, B, HostBlocks&) { fn(a); }; };
  const char* dw_id = f.dw;
  const std::vector<Scenario<A>> list = {
      {"a dW variant id", StatusCode::unknown_variant, [dw_id](A&, std::string& id, B, HostBlocks&) { id = dw_id; }},
      {is_other("g", f), StatusCode::wrong_dtype, args([other](A& a) { a.g.dtype = other; })},
      {is_other("w", f), StatusCode::wrong_dtype, args([other](A& a) { a.w.dtype = other; })},
      {"g is f16", StatusCode::wrong_dtype, args([](A& a) { a.g.dtype = DType::f16; })},
      {"dx is bf16", StatusCode::wrong_dtype, args([](A& a) { a.dx.dtype = DType::bf16; })},
      {"dx is f64", StatusCode::wrong_dtype, args([](A& a) { a.dx.dtype = DType::f64; })},
      {"M = 0", StatusCode::bad_size, args([](A& a) {
         a.g.rows = 0;
         a.dx.rows = 0;
       })},
      {"N = -1", StatusCode::bad_size, args([](A& a) {
         a.g.cols = -1;
         a.w.rows = -1;
       })},
      {"K = 0", StatusCode::bad_size, args([](A& a) {
         a.w.cols = 0;
         a.dx.cols = 0;
       })},
      {"w.rows != g.cols", StatusCode::inconsistent_size, args([](A& a) { a.w.rows = kN + 1; })},
      {"dx rows != M", StatusCode::inconsistent_size, args([](A& a) { a.dx.rows = kM - 1; })},
      {"dx cols != K", StatusCode::inconsistent_size, args([](A& a) { a.dx.cols = kK + 1; })},
      {"g is null", StatusCode::null_pointer, args([](A& a) { a.g.data = nullptr; })},
      {"dx is null", StatusCode::null_pointer, args([](A& a) { a.dx.data = nullptr; })},
      {"g is pageable host memory", StatusCode::host_pointer,
       [](A& a, std::string&, B, HostBlocks& h) { a.g.data = h.pageable.data(); }},
      {"w is pinned host memory", StatusCode::host_pointer,
       [](A& a, std::string&, B, HostBlocks& h) { a.w.data = h.pinned; }},
      {"g is misaligned by 1 byte", StatusCode::misaligned,
       args([](A& a) { a.g.data = static_cast<const char*>(a.g.data) + 1; })},
      {"dx is g", StatusCode::aliasing, [](A& a, std::string&, B b, HostBlocks&) { a.dx.data = b.g_dx; }},
      {"dx overlaps the last element of w", StatusCode::aliasing,
       [es](A& a, std::string&, B b, HostBlocks&) {
         a.w.data = reinterpret_cast<const char*>(b.dx) - (kN * kK - 1) * es;
       }},
  };
  // The valid call itself succeeds (so the scenarios fail for their one defect).
  EXPECT_TRUE(kernels::backward_data(f.dx, valid_dx_args(buf)).ok());
  check_cuda(cudaDeviceSynchronize(), "valid dX call");
  run_dx_scenarios(list, f.dx, buf);
}

TEST_P(BackwardKernels, WeightFailsClosed) {
  using A = kernels::BackwardWeightArgs;
  using B = const FailClosedBuffers&;
  const Flavour& f = flavour();
  if (const std::string why = scenario_shapes_refused(f); !why.empty()) GTEST_SKIP() << why;
  const FailClosedBuffers buf(f.bf16);
  const std::int64_t es = buf.es;
  const DType other = other_operand_dtype(f);
  auto args = [](auto fn) { return [fn](A& a, std::string&, B, HostBlocks&) { fn(a); }; };
  const char* dx_id = f.dx;
  std::vector<Scenario<A>> list = {
      {"a dX variant id", StatusCode::unknown_variant, [dx_id](A&, std::string& id, B, HostBlocks&) { id = dx_id; }},
      {is_other("x", f), StatusCode::wrong_dtype, args([other](A& a) { a.x.dtype = other; })},
      {is_other("g", f), StatusCode::wrong_dtype, args([other](A& a) { a.g.dtype = other; })},
      {"g is f16", StatusCode::wrong_dtype, args([](A& a) { a.g.dtype = DType::f16; })},
      {"dw is f16", StatusCode::wrong_dtype, args([](A& a) { a.dw.dtype = DType::f16; })},
      {"dw is bf16", StatusCode::wrong_dtype, args([](A& a) { a.dw.dtype = DType::bf16; })},
      {"db is f64", StatusCode::wrong_dtype, args([](A& a) { a.db.dtype = DType::f64; })},
      {"db is bf16", StatusCode::wrong_dtype, args([](A& a) { a.db.dtype = DType::bf16; })},
      {"T = -1", StatusCode::bad_size, args([](A& a) {
         a.x.rows = -1;
         a.g.rows = -1;
         a.keys.rows = -1;
       })},
      {"K = 0", StatusCode::bad_size, args([](A& a) {
         a.x.cols = 0;
         a.dw.cols = 0;
       })},
      {"N = 0", StatusCode::bad_size, args([](A& a) {
         a.g.cols = 0;
         a.dw.rows = 0;
         a.db.cols = 0;
       })},
      {"g.rows != x.rows", StatusCode::inconsistent_size, args([](A& a) { a.g.rows = kT - 1; })},
      {"dw is [N+1, K]", StatusCode::inconsistent_size, args([](A& a) { a.dw.rows = kN + 1; })},
      {"db has N-1 entries", StatusCode::inconsistent_size, args([](A& a) { a.db.cols = kN - 1; })},
      {"keys have width 4", StatusCode::bad_keys, args([](A& a) { a.keys.cols = 4; })},
      {"keys have width 1", StatusCode::bad_keys, args([](A& a) { a.keys.cols = 1; })},
      {"keys are f32", StatusCode::bad_keys, args([](A& a) { a.keys.dtype = DType::f32; })},
      {"keys have T-1 rows", StatusCode::bad_keys, args([](A& a) { a.keys.rows = kT - 1; })},
      {"keys are null with T rows", StatusCode::bad_keys, args([](A& a) { a.keys.data = nullptr; })},
      {"x is null", StatusCode::null_pointer, args([](A& a) { a.x.data = nullptr; })},
      {"g is null", StatusCode::null_pointer, args([](A& a) { a.g.data = nullptr; })},
      {"dw is null", StatusCode::null_pointer, args([](A& a) { a.dw.data = nullptr; })},
      {"keys are pageable host memory", StatusCode::host_pointer,
       [](A& a, std::string&, B, HostBlocks& h) { a.keys.data = h.pageable.data(); }},
      {"keys are pinned host memory", StatusCode::host_pointer,
       [](A& a, std::string&, B, HostBlocks& h) { a.keys.data = h.pinned; }},
      {"x is pinned host memory", StatusCode::host_pointer,
       [](A& a, std::string&, B, HostBlocks& h) { a.x.data = h.pinned; }},
      {"g is misaligned by 1 byte", StatusCode::misaligned,
       args([](A& a) { a.g.data = static_cast<const char*>(a.g.data) + 1; })},
      {"keys are misaligned by 4 bytes", StatusCode::misaligned,
       args([](A& a) { a.keys.data = static_cast<const char*>(a.keys.data) + 4; })},
      {"db is misaligned by 2 bytes", StatusCode::misaligned,
       args([](A& a) { a.db.data = static_cast<char*>(a.db.data) + 2; })},
      {"dw aliases x", StatusCode::aliasing, [](A& a, std::string&, B b, HostBlocks&) { a.x.data = b.dw; }},
      {"dw overlaps the last two elements of g", StatusCode::aliasing,
       [es](A& a, std::string&, B b, HostBlocks&) {
         a.g.data = reinterpret_cast<const char*>(b.dw) - (kT * kN - 2) * es;
       }},
      {"db overlaps dw", StatusCode::aliasing, [](A& a, std::string&, B b, HostBlocks&) { a.db.data = b.dw + kK; }},
      {"db is inside g", StatusCode::aliasing, [](A& a, std::string&, B b, HostBlocks&) { a.db.data = b.g + 8; }},
      {"dw overlaps the keys", StatusCode::aliasing,
       [](A& a, std::string&, B b, HostBlocks&) { a.keys.data = b.dw + 2; }},
      {"two active rows share a key", StatusCode::duplicate_key,
       [](A& a, std::string&, B b, HostBlocks&) { a.keys.data = b.keys_dup; }},
      {"padding row has gradient 1.0", StatusCode::padding_gradient_nonzero,
       [](A& a, std::string&, B b, HostBlocks&) { a.g.data = b.g_bad_pad; }},
      {"padding row has a NaN gradient", StatusCode::padding_gradient_nonzero,
       [](A& a, std::string&, B b, HostBlocks&) { a.g.data = b.g_nan_pad; }},
  };
  int devices = 0;
  check_cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  DeviceArray other_device_keys;
  if (devices >= 2) {
    check_cuda(cudaSetDevice(1), "cudaSetDevice(1)");
    other_device_keys = DeviceArray(static_cast<std::size_t>(kT * kW) * sizeof(std::int64_t));
    check_cuda(cudaSetDevice(0), "cudaSetDevice(0)");
    void* p = other_device_keys.get();
    list.push_back({"keys are memory of device 1", StatusCode::wrong_device,
                    [p](A& a, std::string&, B, HostBlocks&) { a.keys.data = p; }});
  } else {
    std::cout << "[ NOTE ] wrong_device scenario not run: it needs a second GPU (" << devices << " present)\n";
  }
  for (const bool accumulate : {false, true}) {
    EXPECT_TRUE(kernels::backward_weight(f.dw, valid_dw_args(buf, accumulate)).ok());
    check_cuda(cudaDeviceSynchronize(), "valid dW call");
    run_dw_scenarios(list, f.dw, buf, accumulate);
  }
}

// ---- across flavours ------------------------------------------------------------------------------

class BackwardKernelsAll : public GpuTest {};

TEST_F(BackwardKernelsAll, VariantsClaimTheirContracts) {
  for (const Flavour& f : flavours()) {
    const KernelVariant* dx = kernels::find_backward_variant(f.dx);
    const KernelVariant* dw = kernels::find_backward_variant(f.dw);
    ASSERT_TRUE(dx && dw) << f.name;
    EXPECT_EQ(dx->contract_id, f.dx_contract().id);
    EXPECT_EQ(dw->contract_id, f.dw_contract().id);
    for (const KernelVariant* v : {dx, dw}) {
      EXPECT_FALSE(v->is_mutant) << v->id;
      EXPECT_EQ(v->operand_dtype, operand_dtype(f.bf16)) << v->id;
      EXPECT_EQ(v->sm.min, f.min_sm) << v->id;
      EXPECT_EQ(v->sm.max, f.max_sm) << v->id;
    }
  }
  const KernelVariant* mutant = kernels::find_backward_variant(kMutant);
  ASSERT_TRUE(mutant);
  EXPECT_EQ(mutant->contract_id, contract_bwd_dw_f32_fma_chain().id);
  EXPECT_TRUE(mutant->is_mutant);
}

TEST_F(BackwardKernelsAll, OutOfRangeVariantsRefuseTheDevice) {
  // Every production backward variant whose SM range excludes this GPU refuses a valid call with
  // unsupported_device, writing nothing (and plan_backward_weight refuses it too).
  int checked = 0;
  for (const Flavour& f : flavours()) {
    const FailClosedBuffers buf(f.bf16);
    const KernelVariant* dx = kernels::find_backward_variant(f.dx);
    const KernelVariant* dw = kernels::find_backward_variant(f.dw);
    ASSERT_TRUE(dx && dw) << f.name;
    if (const std::string why = outside_sm_range(*dx); !why.empty()) {
      using A = kernels::BackwardDataArgs;
      run_dx_scenarios(
          {{why, StatusCode::unsupported_device, [](A&, std::string&, const FailClosedBuffers&, HostBlocks&) {}}}, f.dx,
          buf);
      ++checked;
    }
    if (const std::string why = outside_sm_range(*dw); !why.empty()) {
      using A = kernels::BackwardWeightArgs;
      for (const bool accumulate : {false, true})
        run_dw_scenarios(
            {{why, StatusCode::unsupported_device, [](A&, std::string&, const FailClosedBuffers&, HostBlocks&) {}}},
            f.dw, buf, accumulate);
      kernels::BackwardWeightPlan plan;
      EXPECT_EQ(kernels::plan_backward_weight(f.dw, valid_dw_args(buf, false), &plan).code,
                StatusCode::unsupported_device)
          << f.dw;
      ++checked;
    }
  }
  std::cout << "[ NOTE ] " << checked << " variant(s) outside this GPU's SM range checked for unsupported_device\n";
}

TEST_F(BackwardKernelsAll, CallOrderMutantIsCaught) {
  const Flavour& f = flavours()[0];  // the FP32 flavour, whose dW tile the mutant shares
  // The reviewer's repro with the rows in call order (0, 2, 1): the mutant chains 1, -1, 2^-24.
  const BackwardWeightProblem repro = reviewers_repro({0, 2, 1}, false);
  const std::string on_repro = first_difference(gpu_dw(kMutant, repro), emulate_dw(f, repro));
  EXPECT_NE(on_repro, "") << kMutant << " agrees with the contract on the reviewer's repro";
  if (!on_repro.empty()) std::cout << "[ CAUGHT ] " << kMutant << " on the reviewer's repro: " << on_repro << "\n";
  int caught_at = -1;
  std::string detail;
  // Random cases: keys in random order over every value family, until the first mismatch.
  const auto& families = properties::all_families();
  Rng rng(20261130);
  for (int i = 1; caught_at < 0 && i <= 500; ++i) {
    ForwardCase c;
    c.M = 1 + rng.in_range(0, 8);
    c.N = 1 + rng.in_range(0, 8);
    c.K = 2 + rng.in_range(0, 64);
    c.family = families[static_cast<std::size_t>(i) % families.size()];
    c.has_bias = true;
    c.seed = rng.next();
    const BackwardWeightProblem p = keyed_problem(c, 2, 1);
    if (const std::string d = first_difference(gpu_dw(kMutant, p), emulate_dw(f, p)); !d.empty()) {
      caught_at = i;
      detail = describe(p, c) + ": " + d;
    }
  }
  EXPECT_GE(caught_at, 1) << kMutant << " survived 500 random cases with keys in random order";
  if (caught_at >= 0)
    std::cout << "[ CAUGHT ] " << kMutant << " after " << caught_at << " random case(s): " << detail << "\n";
  // It is only the order: with keys already ascending the mutant agrees with the contract.
  for (int i = 0; i < 20; ++i) {
    ForwardCase c;
    c.M = 1 + rng.in_range(0, 8);
    c.N = 1 + rng.in_range(0, 8);
    c.K = 2 + rng.in_range(0, 64);
    c.family = ValueFamily::order_2m24;
    c.has_bias = true;
    c.seed = rng.next();
    const BackwardWeightProblem p = weight_problem(c, 3, /*ascending_keys=*/true);
    EXPECT_EQ(first_difference(gpu_dw(kMutant, p), emulate_dw(f, p)), "") << describe(p, c);
  }
}

// Every tile of sm80.bwd.dx.f32.fma.simt.by-shape, forced by LaunchOptions::fp32.tile, on random shapes of up to two of its
// tiles plus two in M and K, reductions across its ring with a tail, every value family: kernel == emulator, bit
// for bit. The rule runs its first tiles only on grids of many waves, which the generated cases do not reach.
TEST_F(BackwardKernelsAll, EveryDxByShapeTileEqualsEmulator) {
  const Flavour& f = flavours()[1];
  ASSERT_EQ(f.dx, std::string("sm80.bwd.dx.f32.fma.simt.by-shape"));
  const auto& families = properties::all_families();
  Rng rng(20261203);
  int cases = 0;
  for (const kernels::detail::ByShapeTile& tile : kernels::detail::dx_by_shape_tiles()) {
    kernels::LaunchOptions forced;
    forced.fp32.tile = tile.name;
    for (int i = 0; i < 60; ++i) {
      // read as dX's (M, K, N) (properties/backward_case.h): N is the reduction
      const ForwardCase c = ordo::testing::case_around_tile(rng, tile, i, families);
      const BackwardDataProblem p = data_problem(c);
      EXPECT_EQ(first_difference(gpu_dx(f.dx, p, forced), emulate_dx(f, p), "dX (kernel vs emulator)"), "")
          << tile.name << ": M=" << p.M << " N=" << p.N << " K=" << p.K << " (" << c.summary() << ")";
      ++cases;
    }
  }
  std::printf("dX by-shape: %d cases over %zu forced tiles\n", cases, kernels::detail::dx_by_shape_tiles().size());
}

// Every tile of sm80.bwd.dw.f32.fma.simt.by-shape, forced by LaunchOptions::fp32.tile, on random dW [N, K] of up to two of
// its tiles plus two, over token counts across its ring with a tail, keys of width 0, 2 or 3 (rows gathered in
// key order) and padding rows, every value family, with db: kernel == emulator, bit for bit.
TEST_F(BackwardKernelsAll, EveryDwByShapeTileEqualsEmulator) {
  const Flavour& f = flavours()[1];
  ASSERT_EQ(f.dw, std::string("sm80.bwd.dw.f32.fma.simt.by-shape"));
  const auto& families = properties::all_families();
  Rng rng(20261204);
  int cases = 0;
  for (const kernels::detail::ByShapeTile& tile : kernels::detail::dw_by_shape_tiles()) {
    kernels::LaunchOptions forced;
    forced.fp32.tile = tile.name;
    for (int i = 0; i < 40; ++i) {
      ForwardCase c = ordo::testing::case_around_tile(rng, tile, i, families);  // read as dW's (N, K, T)
      c.has_bias = true;
      const std::int64_t width = i % 3 == 0 ? 0 : i % 3 == 1 ? 2 : 3;
      const BackwardWeightProblem p = keyed_problem(c, width, width > 0 ? rng.in_range(0, 5) : 0);
      EXPECT_EQ(first_difference(gpu_dw(f.dw, p, nullptr, forced), emulate_dw(f, p)), "") << tile.name << ": " << describe(p, c);
      ++cases;
    }
  }
  std::printf("dW by-shape: %d cases over %zu forced tiles\n", cases, kernels::detail::dw_by_shape_tiles().size());
}

// sm80.bwd.dx.f32.fma.simt.by-shape picks its tile from dX's shape [M, K], and a second tile for the rows past a
// 128x128 tile's whole waves (kernels::detail::plan_dx_by_shape): at every M in 1..16384 where the plan changes
// (up to 2048 rows, ordo::testing::plan_code; for widths K around and between the tiles' widths), a row of G
// alone (M = 1) gives the same dX row, bit for bit, as inside batches of M_switch - 1 and M_switch rows (first,
// last, random position), and inside a batch of 16384 rows.
class ByShapeDx : public GpuTest {};

TEST_F(ByShapeDx, RowBitsDoNotChangeAcrossTheTileSwitchPoints) {
  const std::string id = "sm80.bwd.dx.f32.fma.simt.by-shape";
  int sm_count = 0;
  check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0), "SM count");
  // The reduction: a tail in every tile's slab, and long enough for the split of the rows (at least 256 steps).
  constexpr std::int64_t kReduced = 261;
  properties::Rng rng(20261201);
  const auto value = [&rng] { return static_cast<float>(static_cast<double>(rng.next() >> 40) * 0x1p-23 - 1.0); };
  int switches = 0, split_batches = 0;
  for (std::int64_t K : {1, 16, 31, 32, 33, 64, 100, 129, 512, 5376}) {
    const auto plan = [&](std::int64_t M) { return kernels::detail::plan_dx_by_shape(M, kReduced, K, sm_count); };
    const std::vector<std::int64_t> batches =
        switch_point_batches([&](std::int64_t M) { return ordo::testing::plan_code(plan(M), M); }, 16384, &switches);
    for (std::int64_t rows : batches) split_batches += rows * K <= (std::int64_t{1} << 26) && plan(rows).tail_tile >= 0;
    BackwardDataProblem alone;
    alone.M = 1, alone.N = kReduced, alone.K = K;
    for (std::int64_t i = 0; i < kReduced; ++i) alone.g.push_back(value());
    for (std::int64_t i = 0; i < kReduced * K; ++i) alone.w.push_back(value());
    const std::vector<float> want = gpu_dx(id, alone);
    for (std::int64_t rows : batches) {
      if (rows < 2 || rows * K > (std::int64_t{1} << 26)) continue;  // a batch needs two rows; bound the memory
      BackwardDataProblem batch = alone;
      batch.M = rows;
      batch.g.clear();
      for (std::int64_t i = 0; i < rows * kReduced; ++i) batch.g.push_back(value());
      for (const std::int64_t pos : {std::int64_t{0}, rows - 1, static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(rows))}) {
        std::copy(alone.g.begin(), alone.g.end(), batch.g.begin() + pos * kReduced);
        const std::vector<float> got = gpu_dx(id, batch);
        const std::vector<float> row(got.begin() + pos * K, got.begin() + (pos + 1) * K);
        EXPECT_EQ(first_difference(row, want, "dX row in a batch vs alone"), "")
            << "K = " << K << ", batch of " << rows << " rows, row at " << pos;
      }
    }
  }
  EXPECT_GT(switches, 0) << "the rule never switched: the test would test nothing";
  EXPECT_GT(split_batches, 0) << "no batch ran two tiles: the split would go untested";
  std::printf("dX by-shape: %d switch points over M = 1..16384 tested, %d batches in two tiles\n", switches,
              split_batches);
}

class ByShapeDw : public GpuTest {};

// dW [N, K] of the by-shape variant: a feature's row of dW (and its db) computed with that feature alone equals
// the same row inside problems of N features at every N where the rule switches tile (N = 1..16384, K fixed),
// and a column of dW likewise across the switch points in K (N fixed). X (or G) is shared; 37 tokens leave a
// tail in every tile's slab.
TEST_F(ByShapeDw, RowAndColumnBitsDoNotChangeAcrossTheTileSwitchPoints) {
  const std::string id = "sm80.bwd.dw.f32.fma.simt.by-shape";
  int sm_count = 0;
  check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0), "SM count");
  constexpr std::int64_t kTokens = 37;
  properties::Rng rng(20261202);
  const auto value = [&rng] { return static_cast<float>(static_cast<double>(rng.next() >> 40) * 0x1p-23 - 1.0); };
  const auto values = [&](std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& e : v) e = value();
    return v;
  };
  int switches = 0;
  // Features: G [T, N] column `pos` is the lone feature's G; dW row pos and db[pos] must equal the lone ones.
  for (std::int64_t K : {1, 16, 31, 32, 33, 64, 100, 129, 512, 5376}) {
    const std::vector<std::int64_t> batches = switch_point_batches(
        [&](std::int64_t N) { return kernels::detail::choose_dw_by_shape_tile(N, K, kTokens, sm_count); }, 16384,
        &switches);
    BackwardWeightProblem alone;
    alone.T = kTokens, alone.N = 1, alone.K = K, alone.with_bias_grad = true;
    alone.g = values(kTokens);
    alone.x = values(kTokens * K);
    const BackwardWeightResult want = gpu_dw(id, alone);
    for (std::int64_t N : batches) {
      if (N < 2 || N * K > (std::int64_t{1} << 26)) continue;  // a batch needs two features; bound the memory
      BackwardWeightProblem batch = alone;
      batch.N = N;
      batch.g = values(kTokens * N);
      for (const std::int64_t pos : {std::int64_t{0}, N - 1, static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(N))}) {
        for (std::int64_t t = 0; t < kTokens; ++t) batch.g[static_cast<std::size_t>(t * N + pos)] = alone.g[static_cast<std::size_t>(t)];
        const BackwardWeightResult got = gpu_dw(id, batch);
        const std::vector<float> row(got.dw.begin() + pos * K, got.dw.begin() + (pos + 1) * K);
        EXPECT_EQ(first_difference(row, want.dw, "dW row in a batch vs alone"), "")
            << "K = " << K << ", " << N << " features, feature " << pos;
        EXPECT_EQ(bits_of((*got.db)[static_cast<std::size_t>(pos)]), bits_of((*want.db)[0]))
            << "db, K = " << K << ", " << N << " features, feature " << pos;
      }
    }
  }
  // Columns: X [T, K] column `pos` is the lone column's X; dW column pos must equal the lone one.
  for (std::int64_t N : {1, 16, 31, 32, 33, 100, 512, 5376}) {
    const std::vector<std::int64_t> batches = switch_point_batches(
        [&](std::int64_t K) { return kernels::detail::choose_dw_by_shape_tile(N, K, kTokens, sm_count); }, 16384,
        &switches);
    BackwardWeightProblem alone;
    alone.T = kTokens, alone.N = N, alone.K = 1;
    alone.g = values(kTokens * N);
    alone.x = values(kTokens);
    const BackwardWeightResult want = gpu_dw(id, alone);
    for (std::int64_t K : batches) {
      if (K < 2 || N * K > (std::int64_t{1} << 26)) continue;
      BackwardWeightProblem batch = alone;
      batch.K = K;
      batch.x = values(kTokens * K);
      for (const std::int64_t pos : {std::int64_t{0}, K - 1, static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(K))}) {
        for (std::int64_t t = 0; t < kTokens; ++t) batch.x[static_cast<std::size_t>(t * K + pos)] = alone.x[static_cast<std::size_t>(t)];
        const BackwardWeightResult got = gpu_dw(id, batch);
        std::vector<float> column;
        for (std::int64_t n = 0; n < N; ++n) column.push_back(got.dw[static_cast<std::size_t>(n * K + pos)]);
        EXPECT_EQ(first_difference(column, want.dw, "dW column in a batch vs alone"), "")
            << "N = " << N << ", " << K << " columns, column " << pos;
      }
    }
  }
  EXPECT_GT(switches, 0) << "the rule never switched: the test would test nothing";
  std::printf("dW by-shape: %d switch points over N, K = 1..16384 tested\n", switches);
}

}  // namespace
}  // namespace ordo::testing
