// The GPU dW/db session (kernels/backward_session.h), for the FP32 dW variant and the sm_90 BF16 dW
// variant (test names end in /f32, /bf16_sm90):
//   - expected-keys mode: any split of a keyed batch with padding rows, the microbatches submitted in
//     any order, gives the bits of one whole-batch backward_weight call and of the host emulator;
//   - in-order mode: in-order microbatches of any sizes (for BF16 also sizes that are not multiples of
//     16) give the bits of the whole batch, and the staging never holds a whole 16-token group;
//   - refusals (an out-of-order microbatch in in-order mode, a duplicate key, an unexpected key,
//     finish() with missing keys, and the validation codes) change nothing: dW, db and the session's
//     counters stay as they were and the session, continued, still gives the whole batch's bits;
//   - create() refuses mutants, bad expected keys and bad outputs.
// A variant that does not run on this GPU is skipped with the reason; without a GPU every test is.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../host/backward_test_support.h"
#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/float_bits.h"
#include "backward_gpu_support.h"
#include "gpu_test_support.h"
#include "kernels/backward_api.h"
#include "kernels/backward_session.h"
#include "oracle/backward_emulator.h"

namespace ordo::testing {
namespace {

struct SessionFlavour {
  const char* name;
  const char* dw;
  const Contract& (*contract)();
  bool bf16;
};

const std::vector<SessionFlavour>& session_flavours() {
  static const std::vector<SessionFlavour> list = {
      {"f32", "sm80.bwd.dw.f32.fma.simt.128x128x16", &contract_bwd_dw_f32_fma_chain, false},
      {"bf16_sm90", "sm90.bwd.dw.bf16.mma-sync.32x32x16", &contract_bwd_dw_bf16_tc_fdpa_sm90, true},
  };
  return list;
}


// A microbatch in device memory, with the TensorRefs a session takes.
struct DeviceBatch {
  DeviceArray x, g, keys;
  kernels::TensorRef xr, gr, kr;
  explicit DeviceBatch(const BackwardWeightProblem& p)
      : x(upload_operand(p.x, p.bf16_operands)),
        g(upload_operand(p.g, p.bf16_operands)),
        keys(p.keys ? DeviceArray::from(p.keys->values) : DeviceArray()) {
    xr = {x.get(), operand_dtype(p.bf16_operands), p.T, p.K};
    gr = {g.get(), operand_dtype(p.bf16_operands), p.T, p.N};
    if (p.keys) kr = {keys.get(), DType::i64, p.T, p.keys->width};
  }
  Status submit(kernels::BackwardWeightSession& s) const { return s.submit(xr, gr, kr); }
};

// dW/db of p in one backward_weight call from +0; throws if the call is refused.
BackwardWeightResult whole_batch(const std::string& id, const BackwardWeightProblem& p) {
  const DeviceBatch b(p);
  DeviceWeightGrad out(p.N, p.K, p.with_bias_grad);
  kernels::BackwardWeightArgs a;
  a.x = b.xr;
  a.g = b.gr;
  a.keys = b.kr;
  a.dw = out.dw_ref();
  a.db = out.db_ref();
  if (const Status s = kernels::backward_weight(id, a); !s.ok())
    throw std::runtime_error("backward_weight(" + id + ") refused a valid problem: " + s.to_string());
  return out.read();
}

BackwardWeightResult emulate(const SessionFlavour& f, const BackwardWeightProblem& p) {
  const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, f.contract().plan);
  if (!r.status.ok()) throw std::runtime_error("emulate_backward_weight refused a valid problem: " + r.status.to_string());
  return r.result;
}

// A session of f's dW variant writing dW/db into `out`, expecting `expected` keys (nullopt: in-order mode).
kernels::BackwardWeightSessionConfig session_config(const SessionFlavour& f, const DeviceWeightGrad& out,
                                                    std::optional<LogicalKeys> expected) {
  kernels::BackwardWeightSessionConfig cfg;
  cfg.variant_id = f.dw;
  cfg.N = out.N;
  cfg.K = out.K;
  cfg.dw = out.dw_ref();
  cfg.db = out.db_ref();
  cfg.expected_keys = std::move(expected);
  return cfg;
}

std::unique_ptr<kernels::BackwardWeightSession> make_session(const SessionFlavour& f, const DeviceWeightGrad& out,
                                                             std::optional<LogicalKeys> expected) {
  const kernels::BackwardWeightSessionConfig cfg = session_config(f, out, std::move(expected));
  std::unique_ptr<kernels::BackwardWeightSession> s;
  if (const Status st = kernels::BackwardWeightSession::create(cfg, &s); !st.ok())
    throw std::runtime_error("BackwardWeightSession::create refused a valid configuration: " + st.to_string());
  return s;
}

// "" when variant id runs on device 0, else why not.
std::string outside_sm_range(const std::string& id) {
  const KernelVariant* v = kernels::find_backward_variant(id);
  return v ? ordo::testing::outside_sm_range(*v) : id + " is not registered";
}

// Shapes through the forward case generator, read as dW (N, K, T): biased to the tile edges.
constexpr properties::ShapeLimits kLimits{.max_m = 160, .max_n = 160, .max_k = 400, .max_volume = std::int64_t{1} << 20};
rc::Gen<ForwardCase> gen_case(bool bf16) {
  return rc::gen::resize(100, properties::gen_forward_case(kLimits, properties::all_families(), bf16));
}

void shuffle(std::vector<std::int64_t>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
}

// `rows` cut into `pieces` consecutive pieces at random places (some may be empty).
std::vector<std::vector<std::int64_t>> cut(const std::vector<std::int64_t>& rows, int pieces, Rng& rng) {
  std::vector<std::size_t> cuts = {0, rows.size()};
  for (int i = 1; i < pieces; ++i) cuts.push_back(rng.next() % (rows.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::vector<std::int64_t>> out(cuts.size() - 1);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    out[i].assign(rows.begin() + static_cast<std::ptrdiff_t>(cuts[i]), rows.begin() + static_cast<std::ptrdiff_t>(cuts[i + 1]));
  return out;
}

class BackwardWeightSessionTest : public GpuTest, public ::testing::WithParamInterface<std::size_t> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    if (const std::string why = outside_sm_range(flavour().dw); !why.empty())
      GTEST_SKIP() << why << ": the session is not run with it on this GPU";
  }
  static const SessionFlavour& flavour() { return session_flavours()[GetParam()]; }
};

INSTANTIATE_TEST_SUITE_P(, BackwardWeightSessionTest, ::testing::Range<std::size_t>(0, session_flavours().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& param_info) {
                           return std::string(session_flavours()[param_info.param].name);
                         });

TEST_P(BackwardWeightSessionTest, ExpectedKeysAnySplitAnyOrderEqualsOneCall) {
  const SessionFlavour& f = flavour();
  EXPECT_TRUE(rc::check(
      std::string("expected keys: microbatches in any order == one backward_weight call == emulator (") + f.dw + ")",
      [&f] {
        const ForwardCase c = *gen_case(f.bf16);
        const std::int64_t width = *rc::gen::elementOf(std::vector<std::int64_t>{2, 3});
        const bool ascending = *rc::gen::arbitrary<bool>();
        BackwardWeightProblem p = weight_problem(c, width, ascending);
        const std::int64_t padding = *rc::gen::resize(100, rc::gen::inRange<std::int64_t>(0, 6));
        if (padding > 0) p = with_padding(p, padding, c.seed ^ 0x706164ull);
        // Pieces of consecutive rows (rows read in place where they are canonical) or of shuffled rows,
        // submitted in a random order.
        const bool consecutive = *rc::gen::arbitrary<bool>();
        const int pieces = *rc::gen::resize(100, rc::gen::inRange(1, 9));
        Rng rng(c.seed ^ 0x73657373ull);
        std::vector<std::int64_t> all(static_cast<std::size_t>(p.T));
        for (std::int64_t t = 0; t < p.T; ++t) all[static_cast<std::size_t>(t)] = t;
        if (!consecutive) shuffle(all, rng);
        const std::vector<std::vector<std::int64_t>> parts = cut(all, pieces, rng);
        const std::vector<std::int64_t> arrival = random_permutation(static_cast<std::int64_t>(parts.size()), rng);
        RC_CLASSIFY(consecutive, "consecutive rows");
        RC_CLASSIFY(parts.size() > 1, "split");

        DeviceWeightGrad out(p.N, p.K, p.with_bias_grad);
        auto session = make_session(f, out, canonical_keys(p));
        std::vector<DeviceBatch> batches;
        batches.reserve(parts.size());
        std::int64_t max_staged = 0;
        for (const std::int64_t i : arrival) {
          batches.emplace_back(select_rows(p, parts[static_cast<std::size_t>(i)]));
          const Status s = batches.back().submit(*session);
          if (!s.ok()) RC_FAIL("microbatch " + std::to_string(i) + " refused: " + s.to_string());
          max_staged = std::max(max_staged, session->staged_tokens());
        }
        RC_CLASSIFY(max_staged > 0, "rows staged");
        const Status fin = session->finish();
        if (!fin.ok()) RC_FAIL("finish refused: " + fin.to_string());
        RC_ASSERT(session->staged_tokens() == 0);
        RC_ASSERT(session->reduced_tokens() == static_cast<std::int64_t>(token_order(p).rows.size()));
        const BackwardWeightResult got = out.read();
        if (const std::string d = first_difference(got, whole_batch(f.dw, p)); !d.empty())
          RC_FAIL("session vs one call: " + d + " at " + describe(p, c) + ", " + std::to_string(parts.size()) +
                  " microbatches");
        if (const std::string d = first_difference(got, emulate_ok(p, f.contract())); !d.empty())
          RC_FAIL("session vs emulator: " + d + " at " + describe(p, c));
      }));
}

TEST_P(BackwardWeightSessionTest, InOrderAnySizesEqualsOneCall) {
  const SessionFlavour& f = flavour();
  EXPECT_TRUE(rc::check(
      std::string("in order: microbatches of any sizes in key order == one backward_weight call (") + f.dw + ")",
      [&f] {
        const ForwardCase c = *gen_case(f.bf16);
        const std::int64_t width = *rc::gen::elementOf(std::vector<std::int64_t>{0, 2, 3});
        BackwardWeightProblem p = weight_problem(c, width);
        const std::int64_t padding = width > 0 ? *rc::gen::resize(100, rc::gen::inRange<std::int64_t>(0, 6)) : 0;
        if (padding > 0) p = with_padding(p, padding, c.seed ^ 0x706164ull);
        const int pieces = *rc::gen::resize(100, rc::gen::inRange(1, 9));
        Rng rng(c.seed ^ 0x696e6f72ull);
        // Consecutive pieces of the reduction order cut anywhere; with keys, the padding rows spread
        // over the pieces and each piece's rows shuffled (the session only needs the pieces in order).
        std::vector<std::vector<std::int64_t>> parts = cut(token_order(p).rows, pieces, rng);
        bool unaligned = false;
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) unaligned = unaligned || parts[i].size() % 16 != 0;
        if (p.keys) {
          for (std::int64_t t = 0; t < p.T; ++t)
            if (p.keys->view().is_padding(t)) parts[rng.next() % parts.size()].push_back(t);
          for (auto& part : parts) shuffle(part, rng);
        }
        RC_CLASSIFY(width == 0, "no keys");
        RC_CLASSIFY(unaligned, "a piece not a multiple of 16");

        DeviceWeightGrad out(p.N, p.K, p.with_bias_grad);
        auto session = make_session(f, out, std::nullopt);
        std::vector<DeviceBatch> batches;
        batches.reserve(parts.size());
        for (std::size_t i = 0; i < parts.size(); ++i) {
          batches.emplace_back(select_rows(p, parts[i]));
          const Status s = batches.back().submit(*session);
          if (!s.ok()) RC_FAIL("microbatch " + std::to_string(i) + " refused: " + s.to_string());
          // In order the staging holds only the BF16 carry: never a whole group, nothing for FP32.
          RC_ASSERT(session->staged_tokens() < (f.bf16 ? 16 : 1));
        }
        const Status fin = session->finish();
        if (!fin.ok()) RC_FAIL("finish refused: " + fin.to_string());
        const BackwardWeightResult got = out.read();
        if (const std::string d = first_difference(got, whole_batch(f.dw, p)); !d.empty())
          RC_FAIL("session vs one call: " + d + " at " + describe(p, c) + ", " + std::to_string(parts.size()) +
                  " microbatches");
        if (const std::string d = first_difference(got, emulate_ok(p, f.contract())); !d.empty())
          RC_FAIL("session vs emulator: " + d + " at " + describe(p, c));
      }));
}

// ---- refusals change nothing ------------------------------------------------------------------------

// A fixed batch: 100 active rows with keys (0, 2i) ascending, 3 padding rows inserted.
BackwardWeightProblem fixed_problem(bool bf16) {
  ForwardCase c;
  c.M = 37;   // N
  c.N = 45;   // K
  c.K = 100;  // T
  c.family = ValueFamily::uniform;
  c.has_bias = true;
  c.bf16_operands = bf16;
  c.seed = 0x5e5510ull;
  BackwardWeightProblem p = weight_problem(c, 2, /*ascending_keys=*/true);
  for (std::int64_t t = 0; t < p.T; ++t) {
    p.keys->values[static_cast<std::size_t>(2 * t)] = 0;
    p.keys->values[static_cast<std::size_t>(2 * t + 1)] = 2 * t;
  }
  return properties::with_padding(p, 3, c.seed);
}

// What a refusal must leave as it was.
struct Snapshot {
  BackwardWeightResult out;
  std::int64_t reduced, staged;
};
Snapshot snapshot(const DeviceWeightGrad& out, const kernels::BackwardWeightSession& s) {
  return {out.read(), s.reduced_tokens(), s.staged_tokens()};
}

void expect_refused(const std::string& what, StatusCode expected, const Status& got, const Snapshot& before,
                    const DeviceWeightGrad& out, const kernels::BackwardWeightSession& s) {
  EXPECT_EQ(got.code, expected) << what << ": got " << status_code_name(got.code) << " (" << got.message
                                << "), expected " << status_code_name(expected);
  if (got.code == expected) std::cout << "[ REFUSED ] " << what << ": " << got.message << "\n";
  EXPECT_EQ(first_difference(out.read(), before.out), "") << what << ": dW or db changed";
  EXPECT_EQ(s.reduced_tokens(), before.reduced) << what;
  EXPECT_EQ(s.staged_tokens(), before.staged) << what;
}

// The canonical rows [from, to) of p, with the padding rows of p when `padding`.
std::vector<std::int64_t> canonical_range(const BackwardWeightProblem& p, std::size_t from, std::size_t to,
                                          bool padding) {
  const std::vector<std::int64_t> order = token_order(p).rows;
  std::vector<std::int64_t> rows(order.begin() + static_cast<std::ptrdiff_t>(from),
                                 order.begin() + static_cast<std::ptrdiff_t>(to));
  if (padding)
    for (std::int64_t t = 0; t < p.T; ++t)
      if (p.keys->view().is_padding(t)) rows.push_back(t);
  return rows;
}

TEST_P(BackwardWeightSessionTest, ExpectedKeysRefusalsChangeNothing) {
  const SessionFlavour& f = flavour();
  const BackwardWeightProblem p = fixed_problem(f.bf16);
  const std::vector<std::int64_t> order = token_order(p).rows;
  ASSERT_EQ(order.size(), 100u);
  DeviceWeightGrad out(p.N, p.K, p.with_bias_grad);
  auto session = make_session(f, out, canonical_keys(p));

  const DeviceBatch a(select_rows(p, canonical_range(p, 0, 41, true)));
  const DeviceBatch b(select_rows(p, canonical_range(p, 41, 70, false)));
  const DeviceBatch c(select_rows(p, canonical_range(p, 70, 100, false)));
  ASSERT_TRUE(b.submit(*session).ok());  // ahead of the gap: staged
  EXPECT_EQ(session->staged_tokens(), 29);
  EXPECT_EQ(session->reduced_tokens(), 0);

  Snapshot before = snapshot(out, *session);
  expect_refused("finish with 71 keys missing", StatusCode::missing_keys, session->finish(), before, out, *session);
  {
    const DeviceBatch dup(select_rows(p, {order[10], order[45]}));
    expect_refused("a staged key again", StatusCode::duplicate_key, dup.submit(*session), before, out, *session);
  }
  {
    BackwardWeightProblem q = select_rows(p, {order[5], order[80]});
    q.keys->values[1] = 1;  // (0, 1): odd, not among the keys (0, 2i)
    const DeviceBatch bad(q);
    expect_refused("an unexpected key", StatusCode::unexpected_key, bad.submit(*session), before, out, *session);
  }
  {
    BackwardWeightProblem q = select_rows(p, {order[5]});
    q.keys.reset();
    const DeviceBatch keyless(q);
    expect_refused("a microbatch without keys", StatusCode::bad_keys, keyless.submit(*session), before, out, *session);
  }
  {
    BackwardWeightProblem q = select_rows(p, {order[5], order[6]});
    q.keys = LogicalKeys{3, {0, 10, 0, 0, 12, 0}};
    const DeviceBatch wide(q);
    expect_refused("keys of width 3", StatusCode::bad_keys, wide.submit(*session), before, out, *session);
  }
  {
    const DeviceBatch one(select_rows(p, {order[5]}));
    kernels::TensorRef x = one.xr;
    x.dtype = operand_dtype(!f.bf16);
    expect_refused("x of the other operand dtype", StatusCode::wrong_dtype, session->submit(x, one.gr, one.kr), before,
                   out, *session);
    kernels::TensorRef g = one.gr;
    g.cols = p.N - 1;
    expect_refused("g with N-1 columns", StatusCode::inconsistent_size, session->submit(one.xr, g, one.kr), before, out,
                   *session);
  }
  ASSERT_TRUE(a.submit(*session).ok());  // fills the gap
  EXPECT_EQ(session->reduced_tokens(), f.bf16 ? 64 : 70);
  EXPECT_EQ(session->staged_tokens(), f.bf16 ? 6 : 0);
  before = snapshot(out, *session);
  {
    const DeviceBatch dup(select_rows(p, {order[0]}));
    expect_refused("a reduced key again", StatusCode::duplicate_key, dup.submit(*session), before, out, *session);
  }
  ASSERT_TRUE(c.submit(*session).ok());
  ASSERT_TRUE(session->finish().ok());
  const BackwardWeightResult got = out.read();
  EXPECT_EQ(first_difference(got, whole_batch(f.dw, p)), "");
  EXPECT_EQ(first_difference(got, emulate(f, p)), "");
  EXPECT_EQ(session->finish().code, StatusCode::tool_error);
  EXPECT_EQ(c.submit(*session).code, StatusCode::tool_error);
}

TEST_P(BackwardWeightSessionTest, InOrderRefusalsChangeNothing) {
  const SessionFlavour& f = flavour();
  const BackwardWeightProblem p = fixed_problem(f.bf16);
  const std::vector<std::int64_t> order = token_order(p).rows;
  DeviceWeightGrad out(p.N, p.K, p.with_bias_grad);
  auto session = make_session(f, out, std::nullopt);

  // Row order[20] is held back; it comes after the session has gone past it.
  std::vector<std::int64_t> first = canonical_range(p, 0, 37, true);
  first.erase(std::find(first.begin(), first.end(), order[20]));
  std::reverse(first.begin(), first.end());  // rows of a microbatch in any order
  const DeviceBatch a(select_rows(p, first));
  const DeviceBatch b(select_rows(p, canonical_range(p, 37, 61, false)));
  const DeviceBatch c(select_rows(p, canonical_range(p, 61, 100, false)));
  ASSERT_TRUE(a.submit(*session).ok());
  ASSERT_TRUE(b.submit(*session).ok());
  EXPECT_EQ(session->reduced_tokens() + session->staged_tokens(), 60);
  EXPECT_EQ(session->staged_tokens(), f.bf16 ? 12 : 0);  // the BF16 carry

  const Snapshot before = snapshot(out, *session);
  {
    const DeviceBatch late(select_rows(p, {order[20]}));
    expect_refused("a key before the last consumed", StatusCode::key_out_of_order, late.submit(*session), before, out,
                   *session);
    const DeviceBatch mixed(select_rows(p, {order[70], order[50]}));
    expect_refused("a microbatch reaching back", StatusCode::key_out_of_order, mixed.submit(*session), before, out,
                   *session);
    const DeviceBatch again(select_rows(p, {order[60], order[61]}));
    expect_refused("the last consumed key again", StatusCode::duplicate_key, again.submit(*session), before, out,
                   *session);
  }
  {
    BackwardWeightProblem q = select_rows(p, {order[61]});
    q.keys.reset();
    const DeviceBatch keyless(q);
    expect_refused("a keyless microbatch in a keyed session", StatusCode::bad_keys, keyless.submit(*session), before,
                   out, *session);
  }
  ASSERT_TRUE(c.submit(*session).ok());
  ASSERT_TRUE(session->finish().ok());
  std::vector<std::int64_t> kept;
  for (std::int64_t t = 0; t < p.T; ++t)
    if (t != order[20]) kept.push_back(t);
  const BackwardWeightProblem without = select_rows(p, kept);
  const BackwardWeightResult got = out.read();
  EXPECT_EQ(first_difference(got, whole_batch(f.dw, without)), "");
  EXPECT_EQ(first_difference(got, emulate(f, without)), "");
}

TEST_P(BackwardWeightSessionTest, EmptyBatchWritesZeros) {
  // No active row at all (one padding-only microbatch): finish() starts and ends the chains at +0.
  const SessionFlavour& f = flavour();
  const BackwardWeightProblem p = fixed_problem(f.bf16);
  std::vector<std::int64_t> padding;
  for (std::int64_t t = 0; t < p.T; ++t)
    if (p.keys->view().is_padding(t)) padding.push_back(t);
  DeviceWeightGrad out(p.N, p.K, true);
  auto session = make_session(f, out, LogicalKeys{2, {}});
  const DeviceBatch pad(select_rows(p, padding));
  ASSERT_TRUE(pad.submit(*session).ok());
  ASSERT_TRUE(session->finish().ok());
  const BackwardWeightResult got = out.read();
  EXPECT_EQ(first_difference(got, whole_batch(f.dw, select_rows(p, padding))), "");
  for (const float v : got.dw) EXPECT_EQ(bits_of(v), 0u);
}

TEST_P(BackwardWeightSessionTest, CreateFailsClosed) {
  const SessionFlavour& f = flavour();
  DeviceWeightGrad out(7, 9, true);
  const auto create = [&](const std::function<void(kernels::BackwardWeightSessionConfig&)>& change) {
    kernels::BackwardWeightSessionConfig cfg = session_config(f, out, LogicalKeys{2, {0, 1, 0, 2, 3, -5}});  // N 7, K 9
    change(cfg);
    std::unique_ptr<kernels::BackwardWeightSession> s;
    const Status st = kernels::BackwardWeightSession::create(cfg, &s);
    EXPECT_EQ(st.ok(), s != nullptr);
    return st.code;
  };
  using C = kernels::BackwardWeightSessionConfig;
  EXPECT_EQ(create([](C&) {}), StatusCode::ok);
  EXPECT_EQ(create([](C& c) { c.variant_id = "mutant.bwd.dw.f32.call-order"; }), StatusCode::unknown_variant);
  EXPECT_EQ(create([](C& c) { c.variant_id = "sm80.bwd.dx.f32.fma.simt.128x128x16"; }), StatusCode::unknown_variant);
  EXPECT_EQ(create([](C& c) { c.expected_keys = LogicalKeys{2, {0, 2, 0, 1}}; }), StatusCode::bad_keys);
  EXPECT_EQ(create([](C& c) { c.expected_keys = LogicalKeys{2, {0, 1, 0, 1}}; }), StatusCode::duplicate_key);
  EXPECT_EQ(create([](C& c) { c.expected_keys = LogicalKeys{2, {-1, 0, 0, 1}}; }), StatusCode::bad_keys);
  EXPECT_EQ(create([](C& c) { c.expected_keys = LogicalKeys{4, {0, 1, 2, 3}}; }), StatusCode::bad_keys);
  EXPECT_EQ(create([](C& c) { c.expected_keys = LogicalKeys{2, {0, 1, 2}}; }), StatusCode::bad_keys);
  EXPECT_EQ(create([](C& c) { c.dw.rows = 8; }), StatusCode::inconsistent_size);
  EXPECT_EQ(create([](C& c) { c.K = 10; }), StatusCode::inconsistent_size);
  EXPECT_EQ(create([](C& c) { c.db.cols = 6; }), StatusCode::inconsistent_size);
  EXPECT_EQ(create([](C& c) { c.dw.data = nullptr; }), StatusCode::null_pointer);
  EXPECT_EQ(create([](C& c) { c.dw.dtype = DType::bf16; }), StatusCode::wrong_dtype);
  EXPECT_EQ(create([&](C& c) { c.db.data = out.dw.get(); }), StatusCode::aliasing);
}

}  // namespace
}  // namespace ordo::testing
