#pragma once
// The suite of one self-test mutant (subjects/mutants/mutant_zoo.h): the properties `ordo verify` and
// `ordo fuzz` run on a subject of its kind, built from the same code (suite.h) with the mutant's traits,
// every one expecting the mutant to fail:
//   forward, dW/db kernels: add_forward_subject / add_backward_subject with mutants_get_full_suite;
//   exact engines: the engine-against-MPFR self-check (engine_checks.h), on exact.superacc_vs_mpfr's cases;
//   the error bound: ordo's emulator judged against the mutant bound (forward.emulator_within_error_bound);
//   emulators: the host rows of their contract and the GPU's recorded bits (add_emulator_subject).
#include <memory>
#include <string>
#include <vector>

#include "properties/suite.h"
#include "subjects/mutants/mutant_zoo.h"

namespace ordo::properties {

enum class MutantSide { host, gpu };
std::string_view side_name(MutantSide s);  // "host", "gpu"

struct MutantSuite {
  Suite suite;          // the subjects (and their reference emulators) the properties refer to
  std::string backend;  // the mutant subject's kind
  std::string not_run;  // non-empty: the mutant has no subject on this side (why)
  std::vector<PropertySpec>& specs() { return suite.properties; }
};

// `options` as `ordo verify` would build them (level, GPU presence and SM); golden_dir for the emulator
// mutants (corpus/golden). The result owns every subject its properties refer to.
std::unique_ptr<MutantSuite> build_mutant_suite(const mutants::MutantInfo& m, MutantSide side,
                                                const SuiteOptions& options, const std::string& golden_dir);

}  // namespace ordo::properties
