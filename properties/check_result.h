#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ordo::properties {

// The outcome of checking one case. `passed` is false only for a real failure of the property;
// a case that could not be checked at all (a backend refused it) is a tool error, reported as such.
struct CheckResult {
  bool passed = true;
  bool tool_error = false;
  // The subject broke the calling convention, or its process exited, crashed or hung (a failure of the
  // subject, counted with the failures and reported as its own verdict).
  bool subject_fault = false;
  bool hung = false;  // a subject fault by timeout: not repeated while shrinking (each try costs the timeout)
  std::string detail;  // for a failure: the first differing element, both values in hex, its inputs
  std::int64_t elements = 0;            // output elements compared or judged
  double max_error_over_bound = 0;      // bound properties: the tightness seen in this case
  double max_relative_error = 0;        // against the exact result (bound properties)
  double normwise_relative_error = 0;   // ||y - exact||_F / ||exact||_F (bound properties)
  std::int64_t overflowed = 0;          // finite inputs, non-finite output (bound premise excluded)
  std::int64_t nonfinite_inputs = 0;    // elements with NaN/Inf among their inputs
  // Bitwise checks asked to keep them (DifferenceOptions::kept): the flat indices of the first differing
  // elements, in order (a folder's bound check judges these first).
  std::vector<std::int64_t> differing;

  static CheckResult failure(std::string why) {
    CheckResult r;
    r.passed = false;
    r.detail = std::move(why);
    return r;
  }
  static CheckResult fault(std::string why, bool hung = false) {
    CheckResult r = failure(std::move(why));
    r.subject_fault = true;
    r.hung = hung;
    return r;
  }
  static CheckResult error(std::string why) {
    CheckResult r = failure(std::move(why));
    r.tool_error = true;
    return r;
  }
};

}  // namespace ordo::properties
