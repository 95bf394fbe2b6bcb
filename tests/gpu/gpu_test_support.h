#pragma once
#include <gtest/gtest.h>

#include <string>

namespace ordo::testing {

// Skips the test, with the reason, when no CUDA device is usable. Every GPU test derives from this.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

// The production (non-mutant) forward variants whose SM range includes device 0 (the others are
// named on stdout as not run), and the mutants.
std::vector<std::string> production_forward_variants();
std::vector<std::string> mutant_forward_variants();

}  // namespace ordo::testing
