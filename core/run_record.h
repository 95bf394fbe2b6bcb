#pragma once
// What a property's run found, as every report and campaign records it: one row per property and subject
// (the counts its verdict is computed from, core/verdict.h), with the failures it kept. Plain data, so that
// the report writers and readers need nothing of the property runner that fills it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/verdict.h"

namespace ordo {

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

// A row before anything ran: what it checks, on which subject (backend and id) and under which contract.
inline PropertyRun named_run(const std::string& name, const std::string& description, const std::string& backend,
                             const std::string& kernel, const std::string& contract) {
  PropertyRun r;
  r.name = name;
  r.description = description;
  r.backend = backend;
  r.kernel = kernel;
  r.contract = contract;
  return r;
}

}  // namespace ordo
