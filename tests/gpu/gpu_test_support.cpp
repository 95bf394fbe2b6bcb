#include "gpu_test_support.h"

#include <iostream>

#include "kernels/forward_api.h"

namespace ordo::testing {

void GpuTest::SetUp() {
  static const kernels::DeviceInfo info = kernels::device_info(0);
  if (!info.present) GTEST_SKIP() << "no usable CUDA device (" << info.reason << "): GPU test not run";
}

std::vector<std::string> production_forward_variants() {
  const int sm = kernels::device_info(0).sm;
  std::vector<std::string> ids;
  for (const KernelVariant& v : kernels::forward_variants()) {
    if (v.is_mutant) continue;
    if (!v.runs_on(sm)) {
      std::cout << "[ NOTE ] " << v.id << " not run: it claims " << v.contract_id << " on " << v.sm.text()
                << ", this GPU is sm_" << sm << "\n";
      continue;
    }
    ids.push_back(v.id);
  }
  return ids;
}

std::vector<std::string> mutant_forward_variants() {
  std::vector<std::string> ids;
  for (const KernelVariant& v : kernels::forward_variants())
    if (v.is_mutant) ids.push_back(v.id);
  return ids;
}

}  // namespace ordo::testing
