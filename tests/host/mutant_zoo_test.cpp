// The self-test's zoo: its catalogue is complete and consistent, the host twins' own code is the
// contract's wherever no defect can show (so that a kill is the defect's, not a slip of the twin), and each
// defect does show where it says it does.
#include "subjects/mutants/mutant_zoo.h"

#include <gtest/gtest.h>

#include <set>

#include "core/contract.h"
#include "core/float_bits.h"
#include "kernels/backward_api.h"
#include "kernels/forward_api.h"
#include "kernels/mutants/bwd_dw_orders.h"
#include "kernels/mutants/mutant_registry.h"
#include "oracle/plan_error_bound.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/backward_case.h"
#include "properties/forward_checks.h"
#include "properties/suite.h"
#include "subjects/mutants/host_mutants_internal.h"
#include "subjects/mutants/oracle_mutants.h"

namespace ordo::mutants {
namespace {

using properties::ForwardCase;
using properties::ValueFamily;

TEST(MutantZoo, IdsAreUniqueAndEveryMutantRunsSomewhere) {
  std::set<std::string> ids;
  const std::set<std::string> categories{"order", "arithmetic", "edges", "backward", "pipeline", "oracle"};
  for (const MutantInfo& m : mutant_zoo()) {
    EXPECT_TRUE(ids.insert(m.id).second) << m.id;
    EXPECT_TRUE(m.host || m.gpu) << m.id;
    EXPECT_TRUE(categories.count(m.category)) << m.id << ": " << m.category;
    EXPECT_FALSE(m.defect.empty()) << m.id;
    EXPECT_TRUE(m.contract == "exact" || find_contract(m.contract)) << m.id;
  }
  EXPECT_EQ(find_mutant("mutant.fwd.f32.k-reversed")->id, "mutant.fwd.f32.k-reversed");
  EXPECT_EQ(find_mutant("mutant.none"), nullptr);
}

TEST(MutantZoo, EveryGpuMutantIsARegisteredMutantVariantOfItsContract) {
  for (const MutantInfo& m : mutant_zoo()) {
    if (!m.gpu) continue;
    const KernelVariant* v = kernels::find_mutant_variant(m.id);
    if (!v) v = kernels::find_forward_variant(m.id);
    if (!v) v = kernels::find_backward_variant(m.id);
    ASSERT_NE(v, nullptr) << m.id;
    EXPECT_TRUE(v->is_mutant) << m.id;
    EXPECT_EQ(v->contract_id, m.contract) << m.id;
  }
  // Production lists never hold the self-test's own mutants.
  for (const KernelVariant& v : kernels::mutant_forward_variants())
    EXPECT_EQ(kernels::find_forward_variant(v.id), nullptr);
  for (const KernelVariant& v : kernels::mutant_backward_weight_variants())
    EXPECT_EQ(kernels::find_backward_variant(v.id), nullptr);
}

TEST(MutantZoo, OnlyTheRaceIsGpuOnlyAndOnlyTheOracleIsHostOnly) {
  for (const MutantInfo& m : mutant_zoo()) {
    EXPECT_EQ(!m.host, m.id == "mutant.fwd.f32.smem-missing-barrier") << m.id;
    EXPECT_EQ(!m.gpu, m.category == "oracle") << m.id;
  }
}

TEST(MutantZoo, EveryHostMutantHasASubjectThatDeclaresItself) {
  for (const MutantInfo& m : mutant_zoo()) {
    if (!m.host) continue;
    if (m.target == MutantTarget::forward || m.target == MutantTarget::emulator) {
      auto s = host_forward_mutant(m);
      EXPECT_TRUE(s->traits().is_mutant) << m.id;
      EXPECT_EQ(s->contract_id(), m.contract);
    } else if (m.target == MutantTarget::backward_weight) {
      auto s = host_backward_mutant(m);
      EXPECT_TRUE(s->traits().is_mutant && s->traits().accumulate) << m.id;
    } else if (m.target == MutantTarget::exact_engine) {
      EXPECT_TRUE(host_engine_mutant(m)->is_mutant()) << m.id;
    }
  }
  EXPECT_THROW(host_forward_mutant(*find_mutant("mutant.fwd.f32.smem-missing-barrier")), std::invalid_argument);
}

// Bitwise equality with the contract's emulator, the difference described otherwise.
bool equals_emulator(ForwardSubject& subject, const ForwardCase& c, std::string* detail) {
  auto emulator = make_emulator_subject(subject.traits().contract);
  const properties::CheckResult r = properties::check_bitwise_equal(subject, *emulator, c);
  if (!r.passed) *detail = r.detail;
  return r.passed;
}

ForwardCase a_case(std::int64_t M, std::int64_t N, std::int64_t K, ValueFamily f, std::uint64_t seed,
                   bool bf16 = false) {
  ForwardCase c;
  c.M = M;
  c.N = N;
  c.K = K;
  c.family = f;
  c.has_bias = seed % 2 == 0;
  c.seed = seed;
  c.bf16_operands = bf16;
  c.bf16_output = bf16 && seed % 3 == 0;
  return c;
}

TEST(HostTwins, TheTwinsContractPathIsTheEmulator) {
  auto f32 = make_fwd_f32_contract_twin();
  auto bf16 = make_fwd_bf16_contract_twin();
  std::string detail;
  for (std::uint64_t seed = 0; seed < 60; ++seed)
    for (const ValueFamily f : properties::all_families()) {
      const std::int64_t M = 1 + static_cast<std::int64_t>(seed % 5), N = 1 + static_cast<std::int64_t>(seed % 7),
                         K = 1 + static_cast<std::int64_t>(seed * 13 % 70);
      ASSERT_TRUE(equals_emulator(*f32, a_case(M, N, K, f, seed), &detail)) << detail;
      ASSERT_TRUE(equals_emulator(*bf16, a_case(M, N, K, f, seed, true), &detail)) << detail;
    }
}

// Each defect leaves the bits alone where its own description says it cannot act, and changes them
// somewhere it can: the mutants are as narrow as they claim to be.
struct Narrow {
  const char* id;
  ForwardCase untouched;  // the defect cannot show here
  ForwardCase exposed;    // it shows here (uniform values: no accident of zeros or NaNs)
};

TEST(HostTwins, EachForwardDefectShowsOnlyWhereItSays) {
  const ValueFamily u = ValueFamily::uniform;
  const Narrow cases[] = {
      {"mutant.fwd.f32.stream-k-last-wave", a_case(40, 40, 31, u, 1), a_case(40, 40, 200, u, 1)},
      {"mutant.fwd.f32.split-k-small-m", a_case(17, 3, 300, u, 2), a_case(16, 3, 300, u, 2)},
      {"mutant.fwd.f32.k-tail-dropped", a_case(3, 5, 64, u, 3), a_case(3, 5, 65, u, 3)},
      {"mutant.fwd.f32.k-tail-overread", a_case(3, 5, 48, u, 4), a_case(3, 5, 47, u, 4)},
      {"mutant.fwd.f32.edge-last-column", a_case(3, 32, 40, u, 5), a_case(3, 33, 40, u, 5)},
      {"mutant.fwd.f32.edge-last-row", a_case(32, 3, 40, u, 6), a_case(33, 3, 40, u, 6)},
      {"mutant.fwd.f32.daz-inputs", a_case(4, 4, 50, u, 7), a_case(4, 4, 50, ValueFamily::subnormal_only, 7)},
      {"mutant.fwd.f32.nan-payload", a_case(4, 4, 50, u, 8), a_case(4, 4, 50, ValueFamily::nan_inf, 8)},
      {"mutant.fwd.f32.start-negative-zero", a_case(4, 4, 50, u, 9), a_case(4, 4, 50, ValueFamily::negative_zero, 9)},
      {"mutant.fwd.bf16.acc-rounded-bf16", a_case(4, 4, 32, u, 10, true), a_case(4, 4, 300, u, 10, true)},
      {"mutant.fwd.bf16.output-round-toward-zero", a_case(4, 4, 100, u, 11, true), a_case(4, 4, 100, u, 12, true)},
  };
  for (const Narrow& n : cases) {
    auto twin = make_host_forward_twin(n.id);
    ASSERT_NE(twin, nullptr) << n.id;
    std::string detail;
    EXPECT_TRUE(equals_emulator(*twin, n.untouched, &detail)) << n.id << " changed bits it must not: " << detail;
    ForwardCase exposed = n.exposed;
    if (std::string(n.id).find("round-toward-zero") != std::string::npos) exposed.bf16_output = true;
    EXPECT_FALSE(equals_emulator(*twin, exposed, &detail)) << n.id << " left " << exposed.summary() << " alone";
  }
}

TEST(DwOrders, TheDefectsOrderAndRefuseAsTheySay) {
  LogicalKeys keys{2, {5, 0, -1, 0, 2, 0, 5, 0}};  // rows 0 and 3 share (5, 0); row 1 is padding
  const std::vector<float> g(4 * 1, 0.0f);
  const LogicalKeysView view = keys.view();
  EXPECT_EQ(dw_orders(DwDefect::atomics, &view, 4, g.data(), 1).status.code, StatusCode::duplicate_key);
  const DwOrders dup = dw_orders(DwDefect::duplicate_keys_accepted, &view, 4, g.data(), 1);
  ASSERT_TRUE(dup.status.ok());
  EXPECT_EQ(dup.dw_rows, (std::vector<int>{2, 0, 3}));
  keys.values[7] = 1;  // row 3 becomes (5, 1): unique
  const LogicalKeysView unique = keys.view();
  EXPECT_EQ(dw_orders(DwDefect::padding_reduced, &unique, 4, g.data(), 1).dw_rows, (std::vector<int>{1, 2, 0, 3}));
  EXPECT_EQ(dw_orders(DwDefect::call_order, &unique, 4, g.data(), 1).dw_rows, (std::vector<int>{0, 2, 3}));
  const DwOrders db = dw_orders(DwDefect::db_call_order, &unique, 4, g.data(), 1);
  EXPECT_EQ(db.dw_rows, (std::vector<int>{2, 0, 3}));
  EXPECT_EQ(db.db_rows, (std::vector<int>{0, 2, 3}));
  std::vector<float> bad_g = g;
  bad_g[1] = 1.0f;  // the padding row's gradient
  EXPECT_EQ(dw_orders(DwDefect::duplicate_keys_accepted, &unique, 4, bad_g.data(), 1).status.code,
            StatusCode::padding_gradient_nonzero);
}

TEST(OracleMutants, TheRoundingStepEqualsTheModelWhereTheSumIsExactAndNotElsewhere) {
  const oracle::TcFdpaParams p = oracle::tc_fdpa_params_sm90();
  const float a[2] = {1.0f, 2.0f}, b[2] = {3.0f, 0.5f};
  EXPECT_EQ(bits_of(tc_fdpa_step_rounding(p.L, p.F, p.e_zero, a, b, 2, 0.25f)),
            bits_of(oracle::tc_fdpa_step(p, a, b, 2, 0.25f)));
  // 1 + 1 * 1 + 3 * 2^-24 = 2 + 0.75 ulp: kept whole by the F = 25 alignment, then truncated to 2 by the model
  // and rounded up to 2 + 2^-22 by the mutant.
  const float x[2] = {1.0f, 3 * std::ldexp(1.0f, -24)}, w[2] = {1.0f, 1.0f};
  EXPECT_EQ(oracle::tc_fdpa_step(p, x, w, 2, 1.0f), 2.0f);
  EXPECT_EQ(tc_fdpa_step_rounding(p.L, p.F, p.e_zero, x, w, 2, 1.0f), 2.0f + std::ldexp(1.0f, -22));
}

TEST(OracleMutants, TheShortBoundRejectsAnInexactSingleProduct) {
  // For K = 1 the short bound is that of no rounding at all: an inexact product is outside it.
  const float x = 1.0f + std::ldexp(1.0f, -23), w = 1.0f + std::ldexp(1.0f, -22);
  const float y = std::fma(x, w, 0.0f);
  const ReductionPlan& plan = contract_fwd_f32_fma_chain().plan;
  EXPECT_TRUE(oracle::judge_plan_element(plan, &x, &w, 1, std::nullopt, y, false).within_bound);
  EXPECT_FALSE(judge_with_short_bound(plan, &x, &w, 1, std::nullopt, y, false).within_bound);
}

}  // namespace
}  // namespace ordo::mutants
