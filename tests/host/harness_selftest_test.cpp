// The harness must catch broken implementations: host mutants of the contract, run through the
// same properties and runner that `ordo verify` uses.
#include <gtest/gtest.h>

#include <cmath>

#include "subjects/forward_subject.h"
#include "core/contract.h"
#include "core/float_bits.h"
#include "properties/forward_checks.h"
#include "properties/suite.h"

namespace ordo::properties {
namespace {

enum class Defect { k_reversed, k_split_halves, last_term_dropped };

// A scalar chain with one planted defect.
class HostMutant final : public ForwardSubject {
 public:
  explicit HostMutant(Defect d) : defect_(d) {
    traits_.id = "host.mutant";
    traits_.kind = "host-mutant";
    traits_.contract = contract_fwd_f32_fma_chain();
    traits_.is_mutant = true;
  }
  const SubjectTraits& traits() const override { return traits_; }
  BackendResult forward(const ForwardProblem& p) override {
    BackendResult r;
    r.y.resize(static_cast<std::size_t>(p.M * p.N));
    for (std::int64_t m = 0; m < p.M; ++m)
      for (std::int64_t n = 0; n < p.N; ++n) {
        float acc = 0.0f;
        if (defect_ == Defect::k_reversed) {
          for (std::int64_t k = p.K - 1; k >= 0; --k) acc = std::fma(p.x_at(m, k), p.w_at(n, k), acc);
        } else if (defect_ == Defect::k_split_halves) {
          float lo = 0.0f, hi = 0.0f;
          for (std::int64_t k = 0; k < p.K / 2; ++k) lo = std::fma(p.x_at(m, k), p.w_at(n, k), lo);
          for (std::int64_t k = p.K / 2; k < p.K; ++k) hi = std::fma(p.x_at(m, k), p.w_at(n, k), hi);
          acc = lo + hi;
        } else {
          for (std::int64_t k = 0; k + 1 < p.K; ++k) acc = std::fma(p.x_at(m, k), p.w_at(n, k), acc);
        }
        float y = p.bias ? acc + (*p.bias)[static_cast<std::size_t>(n)] : acc;
        r.y[static_cast<std::size_t>(m * p.N + n)] = std::isnan(y) ? canonical_nan() : y;
      }
    return r;
  }

 private:
  Defect defect_;
  SubjectTraits traits_;
};

PropertyRun hunt(std::function<CheckResult(const ForwardCase&)> check) {
  PropertySpec spec;
  spec.name = "selftest.host_mutant";
  spec.kernel = "host.mutant";
  spec.cases = 300;
  spec.gen = gen_forward_case(host_shape_limits(), all_families());
  spec.check = std::move(check);
  spec.expect_failure = true;
  RunOptions o;
  o.seed = 5;
  return run_property(spec, o);
}

TEST(HarnessSelfTest, BitwisePropertyCatchesReversedK) {
  auto emulator = make_emulator_subject(contract_fwd_f32_fma_chain());
  HostMutant mutant(Defect::k_reversed);
  const PropertyRun run = hunt([&](const ForwardCase& c) { return check_bitwise_equal(mutant, *emulator, c); });
  ASSERT_TRUE(run.passed()) << "the reversed-K mutant survived " << run.cases << " cases";
  ASSERT_EQ(run.failures.size(), 1u);
  // Shrinking must end at a case a person can read.
  EXPECT_LT(run.failures[0].minimised.size(), 2000u) << run.failures[0].minimised;
  EXPECT_FALSE(run.failures[0].detail.empty());
}

TEST(HarnessSelfTest, BitwisePropertyCatchesSplitK) {
  auto emulator = make_emulator_subject(contract_fwd_f32_fma_chain());
  HostMutant mutant(Defect::k_split_halves);
  EXPECT_TRUE(hunt([&](const ForwardCase& c) { return check_bitwise_equal(mutant, *emulator, c); }).passed());
}

TEST(HarnessSelfTest, BoundPropertyCatchesADroppedTerm) {
  HostMutant mutant(Defect::last_term_dropped);
  EXPECT_TRUE(hunt([&](const ForwardCase& c) { return check_within_error_bound(mutant, c); }).passed());
}

TEST(HarnessSelfTest, ReproduceCommandRerunsTheSameCase) {
  auto emulator = make_emulator_subject(contract_fwd_f32_fma_chain());
  HostMutant mutant(Defect::k_reversed);
  PropertySpec spec;
  spec.name = "selftest.host_mutant";
  spec.kernel = "host.mutant";
  spec.cases = 300;
  spec.gen = gen_forward_case(host_shape_limits(), all_families());
  std::vector<std::string> failing;
  spec.check = [&](const ForwardCase& c) {
    CheckResult r = check_bitwise_equal(mutant, *emulator, c);
    if (!r.passed) failing.push_back(c.summary());
    return r;
  };
  RunOptions o;
  o.seed = 5;
  o.shrink_budget = 0;
  const PropertyRun first = run_property(spec, o);
  ASSERT_EQ(first.failed, 1);
  ASSERT_FALSE(failing.empty());
  const std::string found = failing.front();
  failing.clear();
  o.only_case = first.cases - 1;
  const PropertyRun again = run_property(spec, o);
  EXPECT_EQ(again.cases, 1);
  EXPECT_EQ(again.failed, 1);
  ASSERT_FALSE(failing.empty());
  EXPECT_EQ(failing.front(), found);
}

}  // namespace
}  // namespace ordo::properties
