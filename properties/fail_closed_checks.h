#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace ordo::properties {

// One malformed call to a forward kernel: what is wrong with it, the status code it must get, and
// what happened.
struct FailClosedOutcome {
  std::string scenario;
  StatusCode expected = StatusCode::ok;
  StatusCode got = StatusCode::ok;
  std::string message;        // the kernel's error message
  bool output_untouched = true;
  bool skipped = false;       // e.g. "another device" with one GPU
  std::string skip_reason;
  bool passed() const { return skipped || (got == expected && output_untouched); }
};

// Runs every malformed-call scenario against `variant_id` on the current CUDA device. Each one
// must be refused with its specific code and leave the output buffer byte for byte as it was.
std::vector<FailClosedOutcome> run_fail_closed_scenarios(const std::string& variant_id);

}  // namespace ordo::properties
