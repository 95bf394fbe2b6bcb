#pragma once
#include <rapidcheck.h>

#include <atomic>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "properties/check_result.h"
#include "properties/forward_case.h"
#include "core/run_record.h"
#include "subjects/fail_closed.h"

namespace ordo::properties {

// One property as the runner sees it: a case generator and a check. `expect_failure` marks a
// self-test: the subject is a deliberately broken kernel, and the property passes only if the
// check catches it.
struct PropertySpec {
  std::string name;         // e.g. "forward.kernel_equals_emulator"
  std::string description;
  std::string backend;      // the subject's kind: "cuda", "plugin", "emulator", "oracle"
  std::string kernel;       // the subject's id
  std::string contract;
  std::int64_t cases = 100;
  rc::Gen<ForwardCase> gen = rc::gen::just(ForwardCase{});
  std::function<CheckResult(const ForwardCase&)> check;
  bool expect_failure = false;
  std::string not_runnable;  // non-empty: the suite knows this cannot run here (why), e.g. another SM
  PropertyKind kind = PropertyKind::bitwise;
  // A scenario property (kind scenario) runs these instead of generated cases: each is one case.
  std::function<std::vector<FailClosedOutcome>()> scenarios;
};

struct RunOptions {
  std::uint64_t seed = 1;
  std::int64_t only_case = -1;      // run just this case index (reproduce)
  std::int64_t cases_override = -1; // replace spec.cases
  int max_failures = 1;             // stop a property after this many failures
  int shrink_budget = 300;          // check evaluations spent minimising one failure
  std::string reproduce_prefix = "ordo verify";
  // Set: writes the reproduce line of a failure instead of the command-line form (reproduce_prefix and
  // the flags), for callers that reproduce through a call, e.g. ordo.verify(..., case=I) in Python.
  // `index` is -1 for a scenario property (its malformed calls are not numbered cases).
  std::function<std::string(const std::string& property, const std::string& kernel, std::uint64_t seed,
                            std::int64_t index)>
      reproduce;
  std::function<void(const std::string& property, std::int64_t done, std::int64_t total)> progress;
  // Set (by a SIGINT handler) to stop after the case in progress; the run then has fewer cases than
  // requested and no skip reason, so it never passes a report.
  const std::atomic<bool>* stop = nullptr;
};

// The shape classes a case counts towards, for coverage in reports: "M=1", "N=1", "K=1",
// "edge 16+-1" (the k slab), "edge 128+-1" (the block tile), "dim>=4096".
std::vector<std::string> classify_shape(const ForwardCase& c);

PropertyRun run_property(const PropertySpec& spec, const RunOptions& options);

// The pieces run_property is made of, for campaigns that walk the case stream in their own order (shards,
// workers, resumption): the stream of a property (case i is its i-th split), one case checked (and, if it
// fails, minimised), and its outcome folded into a run. A run folded from any partition of the indices
// has the same counts as one folded in order; failures keep their case index.
struct CaseOutcome {
  std::int64_t index = -1;
  ForwardCase c;
  CheckResult r;
  std::optional<FailureRecord> failure;
  std::optional<ForwardCase> minimal;  // the minimised case of a failure
};
PropertyRun start_run(const PropertySpec& spec);
rc::Random case_stream(const PropertySpec& spec, std::uint64_t seed);
CaseOutcome run_case(const PropertySpec& spec, const RunOptions& options, std::int64_t index, const rc::Random& random);
void record_case(PropertyRun& run, const CaseOutcome& outcome, std::size_t max_kept_failures);

// The row of a property that cannot run here: every planned case skipped, with the reason.
PropertyRun not_run(const PropertySpec& spec, std::int64_t planned, const std::string& reason);

}  // namespace ordo::properties
