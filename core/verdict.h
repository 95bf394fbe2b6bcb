#pragma once
// The verdict of a report row, computed in one place from the evidence alone. A row passes only when it
// ran at least one case and nothing failed: zero cases run is never a pass.
#include <cstdint>
#include <string>
#include <string_view>

namespace ordo {

enum class PropertyKind {
  bitwise,     // two implementations must give the same bits
  bound,       // every output within an error bound of the exact result
  invariance,  // the subject against itself under a relation (batch, shard, permutation, microbatch)
  scenario,    // malformed calls that must be refused (fail-closed)
};

enum class Verdict {
  pass,
  mismatch,                    // a bitwise or invariance check failed
  bound_violation,             // an output outside its error bound
  expected_rejection_missing,  // a malformed call was accepted, or refused with the wrong code
  mutant_missed,               // a self-test subject (deliberately broken) passed every case
  subject_fault,               // the subject broke the calling convention, or its process exited, crashed or hung
  inconclusive,                // nothing ran (no GPU, another SM, zero cases)
  tool_error,                  // the harness could not check a case
};

struct RowEvidence {
  PropertyKind kind = PropertyKind::bitwise;
  bool expect_failure = false;  // self-test: the subject is a mutant
  std::int64_t requested = 0;   // cases planned
  std::int64_t run = 0;         // cases checked
  std::int64_t skipped = 0;     // cases planned but not run, with a reason
  std::int64_t failed = 0;      // cases where the check failed (subject faults included)
  std::int64_t subject_faults = 0;  // of those, cases where the subject itself faulted
  std::int64_t tool_errors = 0;
};

Verdict compute_verdict(const RowEvidence& e);
std::string_view verdict_name(Verdict v);
// Every verdict but pass and inconclusive fails a run.
bool verdict_fails(Verdict v);
// Whether a row lets a run pass: a pass, or inconclusive with a stated reason (no GPU, another SM). An
// inconclusive row without a reason (zero cases asked for, a run stopped early) fails the run.
bool row_lets_run_pass(Verdict v, const std::string& skip_reason);

}  // namespace ordo
