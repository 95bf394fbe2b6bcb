// The host properties of the suite, as RapidCheck properties (200 cases each under ctest).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "subjects/forward_subject.h"
#include "core/contract.h"
#include "properties/forward_checks.h"
#include "properties/suite.h"

namespace ordo::properties {
namespace {

ForwardSubject& emulator() {
  static auto b = make_emulator_subject(contract_fwd_f32_fma_chain());
  return *b;
}
ForwardSubject& scalar_reference() {
  static auto b = make_scalar_reference_subject(contract_fwd_f32_fma_chain());
  return *b;
}

rc::Gen<ForwardCase> host_cases() { return gen_forward_case(host_shape_limits(), all_families()); }

void require(const CheckResult& r, const ForwardCase& c) {
  RC_TAG(std::string(family_name(c.family)));
  if (!r.passed) RC_FAIL(r.detail);
}

RC_GTEST_PROP(EmulatorProperties, WithinErrorBoundOfExactResult, ()) {
  const ForwardCase c = *host_cases();
  require(check_within_error_bound(emulator(), c), c);
}

RC_GTEST_PROP(EmulatorProperties, EqualsScalarReferenceBitwise, ()) {
  const ForwardCase c = *host_cases();
  require(check_bitwise_equal(emulator(), scalar_reference(), c), c);
}

RC_GTEST_PROP(EmulatorProperties, RowAloneEqualsRowInBatch, ()) {
  const ForwardCase c = *host_cases();
  require(check_batch_invariance(emulator(), c, std::max<std::int64_t>(2, c.M)), c);
}

RC_GTEST_PROP(EmulatorProperties, ColumnShardEqualsSliceOfWhole, ()) {
  const ForwardCase c = *host_cases();
  require(check_column_shard_equals_slice(emulator(), c), c);
}

RC_GTEST_PROP(ExactOracleProperties, CorrectlyRoundedResultIndependentOfKOrder, ()) {
  const ForwardCase c = *host_cases();
  require(check_exact_result_order_independent(c), c);
}

}  // namespace
}  // namespace ordo::properties
