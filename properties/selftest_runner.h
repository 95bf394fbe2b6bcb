#pragma once
// The self-test's hunt of one mutant: every property of the suite that applies to it, interleaved as
// `ordo fuzz` interleaves them (each property's turn in proportion to the suite's own budget for it), case
// after case from each property's deterministic stream, until the first failure (the kill: minimised, its
// property and value family recorded) or the case budget. The result is one report row for the mutant.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "properties/property_runner.h"

namespace ordo::properties {

struct HuntOptions {
  std::uint64_t seed = 1;
  std::int64_t budget = 2000;  // cases on one mutant, over all its properties
  int shrink_budget = 300;
  std::int64_t only_case = -1;  // run case I of each property only (reproducing a kill)
  // Each failure's reproduce command: this prefix, then --property P --seed S --case I.
  std::string reproduce_prefix = "ordo selftest";
  const std::atomic<bool>* stop = nullptr;  // set by SIGINT: the row then reads inconclusive
  // About once a second: the cases run so far on this mutant.
  std::function<void(std::int64_t cases, std::int64_t budget)> progress;
};

struct MutantIdentity {
  std::string id, defect, contract, backend;
};

// One row: `name` the killing property (or "selftest.suite" when none killed it), expect_failure, the
// cases run on the mutant (the kill included) of `requested` = min(budget, the properties' own cases),
// failed 1 for a kill, its minimised counterexample as the one failure; families and shape classes summed
// over every case run. A property that cannot run here (spec.not_runnable) makes the row not run, with the
// reason, if none of the others can.
PropertyRun hunt_mutant(const MutantIdentity& mutant, const std::vector<PropertySpec>& specs, const HuntOptions& o);

}  // namespace ordo::properties
