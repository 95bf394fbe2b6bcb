#pragma once
// The fail-closed scenarios: malformed calls a subject that promises fail-closed checks must refuse with
// their specific status code, leaving its output byte for byte as it was. Run through the subject's own
// raw entry point (a registered variant's kernels::forward, or a plugin's ordo_subject_forward), so the
// properties never see a CUDA type.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "kernels/forward_api.h"
#include "subjects/subject_traits.h"

namespace ordo {

// One malformed call: what is wrong with it, the status code it must get, and what happened.
struct FailClosedOutcome {
  std::string scenario;
  StatusCode expected = StatusCode::ok;
  StatusCode got = StatusCode::ok;
  std::string message;  // the subject's error message
  bool output_untouched = true;
  bool skipped = false;  // e.g. "another device" with one GPU
  std::string skip_reason;
  bool passed() const { return skipped || (got == expected && output_untouched); }
};

// Where a run of the scenarios starts and who hears of each one as it goes. A subject that runs in its
// own process (subjects/subject_worker.h) streams each scenario to ordo as it starts and as it finishes;
// when the process dies in scenario i, a fresh one resumes at i + 1. Indices count every scenario in
// the order of the run, skipped ones included.
struct FailClosedProgress {
  std::size_t first = 0;  // the scenarios before this index are not run
  std::function<void(std::size_t index, const std::string& scenario, StatusCode expected)> started;
  std::function<void(std::size_t index, const FailClosedOutcome& outcome)> finished;
};

// What the scenarios drive. `call` runs one raw forward call (the variant id is the one the scenario
// passes: only ordo variants have ids, and only they get the "unknown variant" scenario).
struct FailClosedTarget {
  SubjectTraits traits;
  bool has_variant_id = false;
  std::function<Status(const std::string& variant, const kernels::ForwardArgs& args)> call;
  FailClosedProgress progress;
};

// Every scenario that applies to the target (device or host buffers, its dtypes, K multiple and
// alignment), then the controls: the valid call is accepted and writes y. Returns the outcomes of the
// scenarios from target.progress.first on.
std::vector<FailClosedOutcome> run_forward_fail_closed(const FailClosedTarget& target);

}  // namespace ordo
