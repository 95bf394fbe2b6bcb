// Each deliberately broken kernel (kernels/mutants/) must be caught by the bitwise property.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "core/contract.h"
#include "gpu_test_support.h"
#include "properties/forward_checks.h"
#include "properties/forward_suite.h"

namespace ordo::properties {
namespace {

class Mutants : public ordo::testing::GpuTest {};

TEST_F(Mutants, BitwisePropertyCatchesEveryMutant) {
  auto emulator = make_emulator_backend(contract_fwd_f32_fma_chain().id);
  const auto mutants = ordo::testing::mutant_forward_variants();
  ASSERT_GE(mutants.size(), 2u);
  for (const std::string& id : mutants) {
    auto mutant = make_cuda_backend(id);
    PropertySpec spec;
    spec.name = "selftest.mutant_caught";
    spec.kernel = id;
    spec.cases = 500;
    spec.gen = gen_forward_case({.max_m = 64, .max_n = 64, .max_k = 512, .max_volume = 1 << 18}, all_families());
    spec.check = [&](const ForwardCase& c) { return check_bitwise_equal(*mutant, *emulator, c); };
    spec.expect_failure = true;
    const PropertyRun run = run_property(spec, RunOptions{});
    EXPECT_TRUE(run.passed()) << id << " survived " << run.cases << " cases";
    if (!run.failures.empty()) std::cout << "[ CAUGHT ] " << id << " after " << run.cases << " cases: " << run.failures[0].detail << "\n";
  }
}

}  // namespace
}  // namespace ordo::properties
