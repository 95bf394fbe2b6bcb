#pragma once
// The self-test's zoo: every mutant `ordo selftest` must kill, what it breaks, and where it runs. A mutant
// has a host twin (subjects/mutants/host_mutants.h, oracle_mutants.h: CI runs it), a GPU mutant
// (kernels/mutants/: the H200 runs it), or both; the missing-barrier mutant is GPU only. The catalogue
// only names and builds subjects; which properties run against each is the suite's business
// (properties/selftest_suite.h).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "subjects/backward_subject.h"
#include "subjects/exact_engine.h"
#include "subjects/forward_subject.h"

namespace ordo::mutants {

// What a mutant is, which decides the properties that apply to it.
enum class MutantTarget {
  forward,          // a forward kernel: the forward subject properties of its contract
  backward_weight,  // a dW/db kernel: the dW subject properties
  exact_engine,     // an exact engine: the engine-against-MPFR self-check
  error_bound,      // the error bound: the emulator judged against it
  emulator,         // the host emulator of a contract: its host properties and the GPU's recorded bits
};

struct MutantInfo {
  std::string id;
  std::string category;  // "order", "arithmetic", "edges", "backward", "pipeline", "oracle"
  std::string defect;    // one line
  std::string contract;  // the contract it claims ("exact" for an engine)
  MutantTarget target = MutantTarget::forward;
  bool host = false;  // has a host twin
  bool gpu = false;   // has a GPU mutant
  std::string note;   // why one side is missing, or where the GPU mutant is registered
};

const std::vector<MutantInfo>& mutant_zoo();
const MutantInfo* find_mutant(std::string_view id);
std::vector<std::string> mutant_ids();

// The subjects of one mutant; each throws std::invalid_argument when the mutant has none of that kind.
std::unique_ptr<ForwardSubject> host_forward_mutant(const MutantInfo& m);    // forward and emulator targets
std::unique_ptr<BackwardSubject> host_backward_mutant(const MutantInfo& m);  // backward_weight
std::unique_ptr<ExactEngine> host_engine_mutant(const MutantInfo& m);        // exact_engine
std::unique_ptr<ForwardSubject> gpu_forward_mutant(const MutantInfo& m);     // on the current device
std::unique_ptr<BackwardSubject> gpu_backward_mutant(const MutantInfo& m);

}  // namespace ordo::mutants
