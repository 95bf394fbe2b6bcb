// Kernel properties on the GPU (300 cases each under ctest; `ordo verify --level 2` runs the large
// qualification budget).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <memory>

#include "backends/backend.h"
#include "core/contract.h"
#include "gpu_test_support.h"
#include "kernels/forward_api.h"
#include "properties/forward_checks.h"
#include "properties/forward_suite.h"

namespace ordo::properties {
namespace {

using ordo::testing::GpuTest;

// The emulator of the contract a variant claims.
ForwardBackend& emulator_for(const std::string& variant_id) {
  static std::map<std::string, std::unique_ptr<ForwardBackend>> cache;
  const std::string contract = kernels::find_forward_variant(variant_id)->contract_id;
  auto& slot = cache[contract];
  if (!slot) slot = make_emulator_backend(contract);
  return *slot;
}

// The case as variant `id` takes it: bfloat16 operands for bf16 variants.
// The case as the variant takes it: its operand type, K rounded up to its K granularity, and for
// variants with a bf16 output, a bf16 Y in every other case (by seed).
ForwardCase for_variant(ForwardCase c, const std::string& id) {
  const KernelVariant* v = kernels::find_forward_variant(id);
  c.bf16_operands = v->operand_dtype == DType::bf16;
  c.K = (c.K + v->k_multiple - 1) / v->k_multiple * v->k_multiple;
  c.bf16_output = v->bf16_output && (c.seed & 1) != 0;
  return c;
}

ForwardBackend& kernel(const std::string& id) {
  static std::map<std::string, std::unique_ptr<ForwardBackend>> cache;
  auto& slot = cache[id];
  if (!slot) slot = make_cuda_backend(id);
  return *slot;
}

rc::Gen<ForwardCase> gpu_cases() { return gen_forward_case(gpu_shape_limits(1), all_families()); }

void require(const CheckResult& r, const ForwardCase& c) {
  RC_TAG(std::string(family_name(c.family)));
  if (!r.passed) RC_FAIL(r.detail);
}

class KernelProperties : public GpuTest {};

// RapidCheck's fixture properties build their own fixture per case, bypassing SetUp's skip, so the
// GPU properties run rc::check inside an ordinary (skippable) test instead; RC_PARAMS still applies.
TEST_F(KernelProperties, EveryVariantEqualsEmulatorBitwise) {
  EXPECT_TRUE(rc::check("kernel == emulator, bit for bit", [] {
    const ForwardCase c = *gpu_cases();
    for (const std::string& id : ordo::testing::production_forward_variants())
      require(check_bitwise_equal(kernel(id), emulator_for(id), for_variant(c, id)), c);
  }));
}

TEST_F(KernelProperties, RowAloneEqualsRowInBatchOfUpTo4096) {
  EXPECT_TRUE(rc::check("row alone == row in batch", [] {
    const ForwardCase c = *gpu_cases();
    for (const std::string& id : ordo::testing::production_forward_variants())
      require(check_batch_invariance(kernel(id), for_variant(c, id), std::max<std::int64_t>(2, c.M)), c);
  }));
}

TEST_F(KernelProperties, ColumnShardEqualsSliceOfWhole) {
  EXPECT_TRUE(rc::check("column shard == slice of whole", [] {
    const ForwardCase c = *gpu_cases();
    for (const std::string& id : ordo::testing::production_forward_variants())
      require(check_column_shard_equals_slice(kernel(id), for_variant(c, id)), c);
  }));
}

TEST_F(KernelProperties, ReviewersOrderValuesOnTileEdges) {
  // 1, 2^-24, -1 in both orders at K = 1..3 and around the 16-wide k slab and the 128 tile.
  for (std::int64_t K : {3, 15, 16, 17, 127, 128, 129}) {
    ForwardCase c;
    c.M = 129;
    c.N = 130;
    c.K = K;
    c.family = ValueFamily::order_2m24;
    c.seed = static_cast<std::uint64_t>(K);
    for (const std::string& id : ordo::testing::production_forward_variants()) {
      const CheckResult r = check_bitwise_equal(kernel(id), emulator_for(id), for_variant(c, id));
      EXPECT_TRUE(r.passed) << id << ": " << r.detail;
    }
  }
}

}  // namespace
}  // namespace ordo::properties
