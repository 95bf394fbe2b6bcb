#include "properties/selftest_runner.h"

#include <algorithm>
#include <chrono>

namespace ordo::properties {
namespace {

using Clock = std::chrono::steady_clock;

// The cases a property takes per turn: in proportion to its budget in the suite, at least one.
std::vector<std::int64_t> turns(const std::vector<const PropertySpec*>& specs) {
  std::int64_t largest = 1;
  for (const PropertySpec* s : specs) largest = std::max(largest, s->cases);
  std::vector<std::int64_t> t;
  for (const PropertySpec* s : specs) t.push_back(std::max<std::int64_t>(1, 4 * s->cases / largest));
  return t;
}

void fold(PropertyRun& into, const PropertyRun& from) {
  into.cases += from.cases;
  into.tool_errors += from.tool_errors;
  into.elements += from.elements;
  into.overflowed += from.overflowed;
  into.nonfinite_inputs += from.nonfinite_inputs;
  into.max_error_over_bound = std::max(into.max_error_over_bound, from.max_error_over_bound);
  for (const auto& [f, n] : from.families) into.families[f] += n;
  for (const auto& [c, n] : from.shape_classes) into.shape_classes[c] += n;
}

}  // namespace

PropertyRun hunt_mutant(const MutantIdentity& mutant, const std::vector<PropertySpec>& all, const HuntOptions& o) {
  PropertyRun row;
  row.name = "selftest.suite";
  row.kernel = mutant.id;
  row.contract = mutant.contract;
  row.backend = mutant.backend;
  row.expect_failure = true;
  const auto start = Clock::now();

  std::vector<const PropertySpec*> specs;
  std::string not_runnable, names;
  for (const PropertySpec& s : all) {
    if (!s.not_runnable.empty()) {
      not_runnable = s.not_runnable;
      continue;
    }
    if (s.kind == PropertyKind::scenario) continue;  // mutants promise no fail-closed checks
    specs.push_back(&s);
    names += (names.empty() ? "" : ", ") + s.name;
  }
  std::int64_t planned = 0;
  for (const PropertySpec* s : specs) planned += o.only_case >= 0 ? 1 : s->cases;
  row.requested = o.only_case >= 0 ? planned : std::min(o.budget, planned);
  row.description = "MUTANT: " + mutant.defect + ". Suite: " + names;
  if (specs.empty()) {
    row.requested = std::max<std::int64_t>(1, o.budget);
    row.skipped = row.requested;
    row.skip_reason = "not run: " + (not_runnable.empty() ? std::string("no property applies") : not_runnable);
    return row;
  }

  std::vector<rc::Random> cursors;
  std::vector<std::int64_t> next(specs.size(), 0);
  std::vector<PropertyRun> runs;
  for (const PropertySpec* s : specs) {
    rc::Random r = case_stream(*s, o.seed);
    for (std::int64_t i = 0; i < o.only_case; ++i) r.split();  // case i is the stream's i-th split
    cursors.push_back(r);
    runs.push_back(start_run(*s));
    if (o.only_case >= 0) next.back() = o.only_case;
  }
  const std::vector<std::int64_t> turn = turns(specs);
  RunOptions run_options;
  run_options.seed = o.seed;
  run_options.shrink_budget = o.shrink_budget;
  auto last_progress = Clock::now();
  std::int64_t done = 0;
  bool more = true, stopped = false;
  while (more && !stopped) {
    more = false;
    for (std::size_t p = 0; p < specs.size() && !stopped; ++p) {
      const std::int64_t last = o.only_case >= 0 ? o.only_case + 1 : specs[p]->cases;
      for (std::int64_t n = 0; n < turn[p] && next[p] < last && done < row.requested; ++n) {
        const std::int64_t index = next[p]++;
        const CaseOutcome out = run_case(*specs[p], run_options, index, cursors[p].split());
        record_case(runs[p], out, 1);
        ++done;
        if (out.r.tool_error || !out.r.passed) {
          stopped = true;
          if (out.r.tool_error) break;
          FailureRecord f = *out.failure;
          f.reproduce = o.reproduce_prefix + " --mutant " + mutant.id + " --property " + specs[p]->name + " --seed " +
                        std::to_string(o.seed) + " --case " + std::to_string(index);
          row.name = specs[p]->name;
          row.kind = specs[p]->kind;
          row.description = "MUTANT: " + mutant.defect + ". Killed by " + specs[p]->name + ": " + specs[p]->description;
          row.failed = 1;
          row.failures.push_back(std::move(f));
          break;
        }
        if (o.stop && o.stop->load()) stopped = true;
        if (o.progress && Clock::now() - last_progress >= std::chrono::seconds(1)) {
          o.progress(done, row.requested);
          last_progress = Clock::now();
        }
        if (stopped) break;
      }
      if (next[p] < last && done < row.requested) more = true;
    }
  }
  for (const PropertyRun& r : runs) fold(row, r);
  if (row.tool_errors > 0)
    for (const PropertyRun& r : runs)
      if (!r.failures.empty()) row.failures.push_back(r.failures.front());
  row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return row;
}

}  // namespace ordo::properties
