#pragma once
// The suite `ordo verify` runs, built from subjects and their declared traits (never from registry ids):
//   host properties: for each contract in SuiteOptions::contracts, its emulator against the plain scalar
//     reference, within the plan's error bound, and its invariances; the exact engines against each other;
//   per forward subject: bitwise == the emulator of its contract, batch invariance, column shards, the
//     error bound, the fail-closed scenarios when it promises them (a mutant: caught by the bitwise check);
//   per backward subject: dX or dW/db == the emulator, permutation and padding invariance, shards,
//     microbatches (when it accumulates).
// Budgets by level: 1 (default; CI) and 2 (qualifying a kernel on a GPU: 10,000 bitwise cases per device
// subject, shapes up to M = 4096, K, N = 6000).
#include <memory>
#include <string>
#include <vector>

#include "core/contract.h"
#include "properties/property_runner.h"
#include "subjects/backward_subject.h"
#include "subjects/forward_subject.h"

namespace ordo::properties {

struct SuiteOptions {
  int level = 1;
  bool gpu_present = false;
  int device_sm = 0;  // 0: unknown
  std::string gpu_absent_reason = "no GPU";
  std::vector<Contract> contracts;  // contracts whose host properties run (empty: none)
  bool exact_engines = true;        // the exact-oracle self-checks
  // A mutant subject gets every property a production subject of its traits gets (each expecting a
  // failure), not only selftest.mutant_caught: `ordo selftest` proves that the suite itself kills it.
  bool mutants_get_full_suite = false;
};

// Subjects and their reference emulators live as long as the suite that refers to them.
struct Suite {
  std::vector<std::unique_ptr<ForwardSubject>> forward_subjects;
  std::vector<std::unique_ptr<BackwardSubject>> backward_subjects;
  std::vector<PropertySpec> properties;
};

// Every built-in contract (forward ones first).
std::vector<Contract> builtin_contracts();

void add_host_properties(Suite& suite, const SuiteOptions& options);
void add_forward_subject(Suite& s, std::unique_ptr<ForwardSubject> owned, const SuiteOptions& o);
void add_backward_subject(Suite& s, std::unique_ptr<BackwardSubject> owned, const SuiteOptions& o);
// The host properties of one forward contract (add_host_properties' rows) run on `emulator`, an emulator
// of that contract other than ordo's own (the self-test's emulator mutants), against ordo's plain scalar
// reference, its bound and its invariances, and against the bits GPUs recorded for the contract in
// `golden_dir` (corpus/golden; none when empty or absent).
void add_emulator_subject(Suite& suite, std::unique_ptr<ForwardSubject> emulator, const SuiteOptions& options,
                          const std::string& golden_dir);

ShapeLimits host_shape_limits();
ShapeLimits gpu_shape_limits(int level);
// The cases the exact engines are compared on (exact.superacc_vs_mpfr, and the self-test's engine
// mutants): a third long vectors (K up to 4096, M, N <= 3), two thirds batches of up to 16 x 16 short
// ones; about 130,000 dot products at level 1 and 1,100,000 at level 2.
rc::Gen<ForwardCase> gen_exact_engine_case();
std::int64_t exact_engine_cases(int level);
// What a subject's cases need: operand dtype, K multiple, a BF16 Y in half the cases where allowed.
CaseOptions case_options(const SubjectTraits& traits);
// ... and a backward subject's (the forward case's dimensions as dX or dW reads them).
CaseOptions backward_case_options(const SubjectTraits& traits);

}  // namespace ordo::properties
