// The GPU suite as tests: one test per registered subject (every production tile, forward and backward,
// and every mutant), a thin loop over the properties the suite builds from its traits. The case budget
// per property is ORDO_GPU_TEST_CASES (default 200); `ordo verify --level 2` is the qualification run.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <iostream>

#include "gpu_test_support.h"
#include "kernels/forward_api.h"
#include "properties/suite.h"
#include "subjects/registered_subjects.h"

namespace ordo::properties {
namespace {

std::int64_t case_budget() {
  const char* env = std::getenv("ORDO_GPU_TEST_CASES");
  return env ? std::max<std::int64_t>(1, std::atoll(env)) : 200;
}

std::vector<std::string> registered_ids() {
  std::vector<std::string> ids;
  for (const auto& s : registered_forward_subjects()) ids.push_back(s->kernel_id());
  for (const auto& s : registered_backward_subjects()) ids.push_back(s->kernel_id());
  return ids;
}

class GpuSuite : public ordo::testing::GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(GpuSuite, SubjectPassesEveryPropertyItsTraitsSelect) {
  const kernels::DeviceInfo device = kernels::device_info(0);
  SuiteOptions so;
  so.gpu_present = true;
  so.device_sm = device.sm;
  Suite suite;
  for (auto& f : registered_forward_subjects())
    if (f->kernel_id() == GetParam()) add_forward_subject(suite, std::move(f), so);
  for (auto& b : registered_backward_subjects())
    if (b->kernel_id() == GetParam()) add_backward_subject(suite, std::move(b), so);
  ASSERT_FALSE(suite.properties.empty()) << GetParam();
  RunOptions ro;
  ro.seed = 20261201;
  int ran = 0;
  for (const PropertySpec& spec : suite.properties) {
    if (!spec.not_runnable.empty()) {
      std::cout << "[ NOTE ] " << spec.name << " on " << spec.kernel << " not run: " << spec.not_runnable << "\n";
      continue;
    }
    // Scenario properties run their whole list and a mutant's self-test its own budget (it stops at the
    // first catch, and a small budget could miss a defect that needs a bias or a long K); generated ones
    // the budget (the large grid a tenth of it).
    ro.cases_override = spec.kind == PropertyKind::scenario || spec.expect_failure ? -1
                        : spec.name.find("large_grid") != std::string::npos ? std::max<std::int64_t>(1, case_budget() / 10)
                                                                             : case_budget();
    const PropertyRun run = run_property(spec, ro);
    ++ran;
    EXPECT_TRUE(run.passed()) << spec.name << " on " << spec.kernel << ": " << verdict_name(run.verdict()) << " after "
                              << run.cases << " cases" << (run.failures.empty() ? "" : ": " + run.failures[0].detail);
    if (spec.expect_failure && !run.failures.empty())
      std::cout << "[ CAUGHT ] " << spec.kernel << " after " << run.cases << " cases: " << run.failures[0].detail << "\n";
  }
  if (ran == 0) GTEST_SKIP() << GetParam() << " does not run on this GPU (sm_" << device.sm << ")";
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (const char ch : info.param) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Registered, GpuSuite, ::testing::ValuesIn(registered_ids()), test_name);

}  // namespace
}  // namespace ordo::properties
