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
#include "properties/verdict.h"
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

struct FailureRecord {
  std::string reproduce;  // a command line that re-runs exactly this case
  std::string detail;     // what differed, on the minimised case
  std::string original;   // the case as first found
  std::string minimised;  // the case after shrinking (and value simplification)
  int shrink_steps = 0;
  std::int64_t case_index = -1;  // which case of the property's stream it was
  std::string family{};          // the value family of the case ("" in reports written before it was recorded)
};

struct PropertyRun {
  std::string name, description, backend, kernel, contract;
  bool expect_failure = false;
  std::int64_t cases = 0;        // cases run
  std::int64_t failed = 0;       // cases where the check failed
  std::int64_t subject_faults = 0;  // of the failed cases: the subject faulted (exited, crashed, hung, broke the ABI)
  std::int64_t tool_errors = 0;  // cases that could not be checked
  std::int64_t elements = 0;     // output elements compared / judged in total
  std::int64_t overflowed = 0, nonfinite_inputs = 0;
  double max_error_over_bound = 0;
  double max_relative_error = 0, max_normwise_relative_error = 0;  // against the exact result
  std::map<std::string, double> max_error_over_bound_by_family;
  std::map<std::string, std::int64_t> families;
  std::map<std::string, std::int64_t> shape_classes;  // see classify_shape()
  std::vector<FailureRecord> failures;
  double seconds = 0;
  PropertyKind kind = PropertyKind::bitwise;
  std::int64_t requested = 0;  // cases planned
  std::int64_t skipped = 0;    // cases planned but not run (scenarios that need two GPUs, ...)
  std::string skip_reason;
  // What `cases` counts: "cases" (generated problems, malformed calls) or "relations" (`ordo check`'s
  // invariance rows: pairs of outputs that must be equal).
  std::string unit = "cases";
  RowEvidence evidence() const { return {kind, expect_failure, requested, cases, skipped, failed, subject_faults, tool_errors}; }
  Verdict verdict() const { return compute_verdict(evidence()); }
  bool passed() const { return verdict() == Verdict::pass; }
};

struct RunOptions {
  std::uint64_t seed = 1;
  std::int64_t only_case = -1;      // run just this case index (reproduce)
  std::int64_t cases_override = -1; // replace spec.cases
  int max_failures = 1;             // stop a property after this many failures
  int shrink_budget = 300;          // check evaluations spent minimising one failure
  std::string reproduce_prefix = "ordo verify";
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
