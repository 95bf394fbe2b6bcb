// Subjects from outside ordo: the host-buffer test plugins (tests/plugins/host_gemm_plugin.cpp) loaded
// through include/ordo/subject.h and run through the same suite `ordo verify --plugin` builds. A correct
// plugin passes every property its traits select; each defect is caught by the property meant for it;
// each malformed description gets its own located error.
#include <gtest/gtest.h>

#include <string>

#include "properties/suite.h"
#include "subjects/plugin_subject.h"

namespace ordo {
namespace {

std::string plugin(const std::string& suffix) {
  return std::string(ORDO_TEST_PLUGIN_DIR) + "/libordo_test_plugin_" + suffix + ".so";
}

properties::Suite suite_of(const std::string& path) {
  properties::SuiteOptions so;
  properties::Suite suite;
  PluginSubjects loaded = load_plugin_subjects(path);
  for (auto& f : loaded.forward) properties::add_forward_subject(suite, std::move(f), so);
  for (auto& b : loaded.backward) properties::add_backward_subject(suite, std::move(b), so);
  return suite;
}

PropertyRun run(const properties::Suite& suite, const std::string& name, std::int64_t cases = 40) {
  for (const properties::PropertySpec& spec : suite.properties)
    if (spec.name == name) {
      properties::RunOptions ro;
      ro.seed = 3;
      ro.cases_override = spec.kind == PropertyKind::scenario ? -1 : cases;
      return properties::run_property(spec, ro);
    }
  ADD_FAILURE() << "no property " << name;
  return {};
}

TEST(Plugins, TheCorrectPluginDescribesItsThreeOperations) {
  const PluginSubjects s = load_plugin_subjects(plugin("correct"));
  ASSERT_EQ(s.forward.size(), 1u);
  ASSERT_EQ(s.backward.size(), 2u);
  const SubjectTraits& t = s.forward[0]->traits();
  EXPECT_EQ(t.id, "plugin:host-gemm/forward");
  EXPECT_EQ(t.contract.id, "fwd.f32.fma-chain/1");
  EXPECT_FALSE(t.device_buffers);
  EXPECT_TRUE(t.fail_closed);
  EXPECT_TRUE(s.backward[1]->traits().accumulate);
}

TEST(Plugins, TheCorrectPluginPassesEveryPropertyItsTraitsSelect) {
  const properties::Suite suite = suite_of(plugin("correct"));
  int ran = 0;
  for (const properties::PropertySpec& spec : suite.properties) {
    properties::RunOptions ro;
    ro.seed = 5;
    ro.cases_override = spec.kind == PropertyKind::scenario ? -1 : 40;
    const PropertyRun r = properties::run_property(spec, ro);
    EXPECT_TRUE(r.passed()) << spec.name << " on " << spec.kernel << ": " << verdict_name(r.verdict())
                            << (r.failures.empty() ? "" : ": " + r.failures[0].detail);
    ++ran;
  }
  // forward: bitwise, batch, shard, bound, fail-closed; dX: bitwise, fail-closed; dW: bitwise, refused keys,
  // permutation, shard, microbatches, fail-closed
  EXPECT_EQ(ran, 13);
}

TEST(Plugins, EveryOperationDeclaredFailClosedGetsItsFailClosedRow) {
  const properties::Suite suite = suite_of(plugin("correct"));
  for (const char* name : {"forward.kernel_fail_closed", "backward.dx_kernel_fail_closed", "backward.dw_kernel_fail_closed"}) {
    const PropertyRun r = run(suite, name);
    EXPECT_TRUE(r.passed()) << name << ": " << (r.failures.empty() ? "" : r.failures[0].detail);
    EXPECT_GE(r.cases, 15) << name;  // each malformed call is one case, and the control
  }
  // The dW row asks for the keys the contract refuses, by shape and by value.
  const PropertyRun dw = run(suite, "backward.dw_kernel_fail_closed");
  EXPECT_EQ(dw.failed, 0);
}

TEST(Plugins, ADwThatComputesWithKeysItMustRefuseFailsItsFailClosedRow) {
  const properties::Suite suite = suite_of(plugin("dw_lax_keys"));
  const PropertyRun fail_closed = run(suite, "backward.dw_kernel_fail_closed");
  EXPECT_EQ(fail_closed.verdict(), Verdict::expected_rejection_missing);
  // Exactly the key-shape scenarios: not int64, 1 and 4 columns, T - 1 rows.
  EXPECT_EQ(fail_closed.failed, 4);
  ASSERT_FALSE(fail_closed.failures.empty());
  EXPECT_NE(fail_closed.failures[0].detail.find("keys are f32: expected bad_keys, got ok"), std::string::npos)
      << fail_closed.failures[0].detail;
  EXPECT_NE(fail_closed.failures[0].detail.find("the output buffer was written"), std::string::npos)
      << fail_closed.failures[0].detail;
  // The generated cases cannot see it: their keys are always int64 [T, 2 or 3], and duplicates and padding
  // gradients it still refuses.
  EXPECT_TRUE(run(suite, "backward.dw_kernel_refuses_invalid_keys").passed());
  EXPECT_TRUE(run(suite, "backward.dw_kernel_equals_emulator").passed());
  EXPECT_TRUE(run(suite, "backward.dx_kernel_fail_closed").passed());
}

TEST(Plugins, AnOrderThatSwitchesAtABatchSizeIsCaught) {
  const properties::Suite suite = suite_of(plugin("batch_switch"));
  const PropertyRun batch = run(suite, "forward.kernel_batch_invariance", 100);
  EXPECT_EQ(batch.verdict(), Verdict::mismatch);
  ASSERT_FALSE(batch.failures.empty());
  // The counterexample is minimised: the batch of the failing case is still >= 64 rows, K tiny.
  EXPECT_NE(batch.failures[0].detail.find("batch of"), std::string::npos) << batch.failures[0].detail;
  EXPECT_NE(batch.failures[0].minimised.find("K="), std::string::npos);
}

TEST(Plugins, AnUnwrittenOutputElementIsASubjectFault) {
  const properties::Suite suite = suite_of(plugin("short_write"));
  const PropertyRun r = run(suite, "forward.kernel_equals_emulator", 5);
  EXPECT_EQ(r.verdict(), Verdict::subject_fault);
  EXPECT_EQ(r.subject_faults, r.failed);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].detail.find("subject_fault: left 1 of"), std::string::npos) << r.failures[0].detail;
  EXPECT_NE(r.failures[0].detail.find("elements of y unwritten"), std::string::npos) << r.failures[0].detail;
}

TEST(Plugins, AWriteOutsideTheOutputIsASubjectFault) {
  const properties::Suite suite = suite_of(plugin("overrun"));
  const PropertyRun r = run(suite, "forward.kernel_equals_emulator", 5);
  EXPECT_EQ(r.verdict(), Verdict::subject_fault);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].detail.find("wrote outside its output y: 4 byte(s) in the 4096 bytes after it"),
            std::string::npos)
      << r.failures[0].detail;
}

struct BadDescription {
  const char* suffix;
  const char* message;
};

TEST(Plugins, EachMalformedDescriptionGetsItsOwnError) {
  const BadDescription cases[] = {
      {"bad_abi", "abi_version: 99, but this ordo speaks 1"},
      {"bad_count", "operation_count: must be 1..8, got 0"},
      {"bad_contract", "operations[0].contract: unknown contract \"no.such.contract/1\""},
      {"bad_contract_json", "operations[0].contract: colour: unknown field"},
      {"bad_dtype", "operations[0].operand_dtype: must be ORDO_DTYPE_F32 (1) or ORDO_DTYPE_BF16 (2), got 7"},
      {"bad_kmultiple", "operations[0].k_multiple: must be in [1, 2^20], got 0"},
      {"bad_kind", "operations[0].contract: \"bwd.dx.f32.fma-chain/1\" is a backward_data contract, but the operation is forward"},
      {"no_describe", "does not export ordo_subject_describe"},
  };
  for (const BadDescription& c : cases) {
    try {
      load_plugin_subjects(plugin(c.suffix));
      ADD_FAILURE() << c.suffix << " was accepted";
    } catch (const PluginError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(plugin(c.suffix), 0), 0u) << "the error must start with the library's path: " << what;
      EXPECT_NE(what.find(c.message), std::string::npos) << c.suffix << ": " << what;
    }
  }
  EXPECT_THROW(load_plugin_subjects(plugin("no_such_library")), PluginError);
}

}  // namespace
}  // namespace ordo
