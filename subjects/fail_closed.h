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
#include "kernels/backward_api.h"
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

// What the backward scenarios drive: one operation (its traits' contract says dX or dW), each raw call
// through `call_data` or `call_weight` (a plugin's ordo_subject_backward_data / _weight).
struct BackwardFailClosedTarget {
  SubjectTraits traits;
  std::function<Status(const kernels::BackwardDataArgs& args)> call_data;
  std::function<Status(const kernels::BackwardWeightArgs& args)> call_weight;
  FailClosedProgress progress;
};

// dX: wrong dtypes, bad and inconsistent sizes, null, misaligned and host pointers, dX aliasing an input, K
// off the k multiple; dW: the same for x, g, dW and db, and for a contract of logical keys the keys it refuses
// (not int64, not 2 or 3 columns, not T rows, misaligned, two active rows with one key, a padding row with a
// gradient). Then the control: the valid call is accepted and writes every output (subjects/backward_fail_closed.cpp).
std::vector<FailClosedOutcome> run_backward_fail_closed(const BackwardFailClosedTarget& target);

}  // namespace ordo
