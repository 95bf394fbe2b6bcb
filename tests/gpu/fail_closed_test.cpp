#include <gtest/gtest.h>

#include "gpu_test_support.h"
#include "properties/fail_closed_checks.h"

namespace ordo::properties {
namespace {

class FailClosed : public ordo::testing::GpuTest {};

TEST_F(FailClosed, EachMalformedCallGetsItsErrorAndLeavesTheOutputUntouched) {
  for (const std::string& id : ordo::testing::production_forward_variants()) {
    int checked = 0;
    for (const FailClosedOutcome& o : run_fail_closed_scenarios(id)) {
      if (o.skipped) {
        std::cout << "[ NOTE ] " << id << ": " << o.scenario << " not run: " << o.skip_reason << "\n";
        continue;
      }
      ++checked;
      EXPECT_EQ(o.got, o.expected) << id << ": " << o.scenario << " -> " << status_code_name(o.got) << " ("
                                   << o.message << "), expected " << status_code_name(o.expected);
      EXPECT_TRUE(o.output_untouched) << id << ": " << o.scenario << ": output buffer changed";
    }
    EXPECT_GE(checked, 20);
  }
}

}  // namespace
}  // namespace ordo::properties
