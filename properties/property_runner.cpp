#include "properties/property_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace ordo::properties {
namespace {

// RapidCheck's generators scale ranges with `size`; the runner always asks at the nominal size so
// that a budget of N cases spends all of them on full-range cases.
constexpr int kGenerationSize = rc::kNominalSize;

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

bool fails(const PropertySpec& spec, const ForwardCase& c) {
  const CheckResult r = spec.check(c);
  return !r.passed && !r.tool_error;
}

// Greedy shrinking over RapidCheck's shrink tree: move to the first child that still fails,
// until no child fails or the budget is spent.
ForwardCase shrink_failure(const PropertySpec& spec, rc::Shrinkable<ForwardCase> current, int& budget, int& steps) {
  bool moved = true;
  while (moved && budget > 0) {
    moved = false;
    auto shrinks = current.shrinks();
    while (auto next = shrinks.next()) {
      if (--budget < 0) break;
      if (fails(spec, next->value())) {
        current = std::move(*next);
        ++steps;
        moved = true;
        break;
      }
    }
  }
  return current.value();
}

// RapidCheck's shrink tree moves a dimension by the generator's own steps, which for a log-scaled or
// edge-biased size can stall far from the smallest failing value (a defect that needs K > 64 found at
// K = 2688 shrinks to K = 5376). So each of K, M, N is then halved while the case keeps failing, and
// bisected between the last passing and the first failing size.
ForwardCase shrink_dimensions(const PropertySpec& spec, ForwardCase c, int& budget, int& steps) {
  if (c.explicit_values) return c;
  for (std::int64_t ForwardCase::*dim : {&ForwardCase::K, &ForwardCase::M, &ForwardCase::N}) {
    std::int64_t fail_at = c.*dim, pass_at = 0;  // pass_at 0: no passing size known yet
    // Runs the case with the dimension at `size`: the smallest failing size so far, or the largest passing one.
    const auto still_fails_at = [&](std::int64_t size) {
      ForwardCase t = c;
      t.*dim = size;
      --budget;
      if (!fails(spec, t)) {
        pass_at = size;
        return false;
      }
      fail_at = size;
      ++steps;
      return true;
    };
    while (fail_at > 1 && budget > 0)
      if (!still_fails_at(fail_at / 2)) break;
    while (pass_at > 0 && fail_at - pass_at > 1 && budget > 0) still_fails_at(pass_at + (fail_at - pass_at) / 2);
    c.*dim = fail_at;
  }
  return c;
}

// Replaces values, one at a time, by the simplest value (0, 1, -1, ...) that keeps the failure,
// so the counterexample a person reads has as few odd numbers as possible. Only for small cases.
ForwardCase simplify_values(const PropertySpec& spec, ForwardCase c, int& budget, int& steps) {
  if (budget <= 0) return c;
  ForwardProblem p = c.materialize();
  if (p.x.size() + p.w.size() > 512) return c;
  c.explicit_values = p;
  auto simplify = [&](std::vector<float>& (*field)(ForwardProblem&)) {
    std::vector<float>& values = field(*c.explicit_values);
    for (std::size_t i = 0; i < values.size() && budget > 0; ++i) {
      const float original = values[i];
      for (float simple : simple_values()) {
        if (budget-- <= 0) break;
        if (std::bit_cast<std::uint32_t>(simple) == std::bit_cast<std::uint32_t>(original)) break;
        values[i] = simple;
        if (fails(spec, c)) {
          ++steps;
          break;
        }
        values[i] = original;
      }
    }
  };
  simplify([](ForwardProblem& q) -> std::vector<float>& { return q.x; });
  simplify([](ForwardProblem& q) -> std::vector<float>& { return q.w; });
  if (p.bias) simplify([](ForwardProblem& q) -> std::vector<float>& { return *q.bias; });
  return c;
}

std::string reproduce_command(const PropertySpec& spec, const RunOptions& options, std::int64_t index) {
  if (options.reproduce) return options.reproduce(spec.name, spec.kernel, options.seed, index);
  std::ostringstream os;
  os << options.reproduce_prefix << " --property " << spec.name << " --kernel " << spec.kernel << " --seed "
     << options.seed << " --case " << index;
  return os.str();
}

}  // namespace

std::vector<std::string> classify_shape(const ForwardCase& c) {
  std::vector<std::string> classes;
  if (c.M == 1) classes.push_back("M=1");
  if (c.N == 1) classes.push_back("N=1");
  if (c.K == 1) classes.push_back("K=1");
  auto near = [&](std::int64_t edge) {
    for (std::int64_t d : {c.M, c.N, c.K})
      if (d >= edge - 1 && d <= edge + 1) return true;
    return false;
  };
  if (near(16)) classes.push_back("edge 16+-1");
  if (near(128)) classes.push_back("edge 128+-1");
  if (std::max({c.M, c.N, c.K}) >= 4096) classes.push_back("dim>=4096");
  return classes;
}

namespace {

PropertyRun empty_run(const PropertySpec& spec) {
  PropertyRun run = named_run(spec.name, spec.description, spec.backend, spec.kernel, spec.contract);
  run.expect_failure = spec.expect_failure;
  run.kind = spec.kind;
  return run;
}

// A scenario property: each malformed call is one case; scenarios that cannot run here are skipped.
PropertyRun run_scenarios(const PropertySpec& spec, const RunOptions& options) {
  PropertyRun run = empty_run(spec);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<FailClosedOutcome> outcomes = spec.scenarios();
  run.requested = static_cast<std::int64_t>(outcomes.size());
  for (const FailClosedOutcome& o : outcomes) {
    if (o.skipped) {
      ++run.skipped;
      run.skip_reason += (run.skip_reason.empty() ? "" : "; ") + o.scenario + ": " + o.skip_reason;
      continue;
    }
    ++run.cases;
    ++run.families["scenario"];
    if (o.passed()) continue;
    ++run.failed;
    // The subject's process died or hung in the scenario (subjects/isolated_plugin.h), or it broke the ABI.
    if (o.got == StatusCode::subject_fault || o.got == StatusCode::subject_timeout) ++run.subject_faults;
    FailureRecord f;
    f.reproduce = options.reproduce ? options.reproduce(spec.name, spec.kernel, options.seed, -1)
                                    : options.reproduce_prefix + " --property " + spec.name + " --kernel " + spec.kernel;
    f.detail = o.scenario + ": expected " + std::string(status_code_name(o.expected)) + ", got " +
               std::string(status_code_name(o.got)) + (o.message.empty() ? "" : " (" + o.message + ")") +
               (o.output_untouched ? "" : "; the output buffer was written");
    f.original = o.scenario;
    run.failures.push_back(std::move(f));
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace

PropertyRun not_run(const PropertySpec& spec, std::int64_t planned, const std::string& reason) {
  PropertyRun run = empty_run(spec);
  run.requested = planned;
  run.skipped = planned;
  run.skip_reason = reason;
  return run;
}

PropertyRun start_run(const PropertySpec& spec) { return empty_run(spec); }

rc::Random case_stream(const PropertySpec& spec, std::uint64_t seed) {
  // Each (property, subject) pair draws its own cases; a stable hash keeps seeds portable across builds.
  return rc::Random(seed ^ fnv1a(spec.name + "|" + spec.kernel));
}

CaseOutcome run_case(const PropertySpec& spec, const RunOptions& options, std::int64_t index, const rc::Random& random) {
  CaseOutcome out;
  out.index = index;
  rc::Shrinkable<ForwardCase> shrinkable = spec.gen(random, kGenerationSize);
  out.c = shrinkable.value();
  out.r = spec.check(out.c);
  // A subject fault runs once more before it is minimised: one that the same case does not repeat (a
  // subject that exits on its 20th call, a crash that depends on its state) is reported as found, since
  // shrinking would chase the subject's history, not the case; and a re-run that hangs is not shrunk.
  const bool fault = !out.r.passed && !out.r.tool_error && out.r.subject_fault && !out.r.hung;
  const CheckResult rerun = fault ? spec.check(out.c) : CheckResult{};
  if (out.r.tool_error) {
    out.failure = FailureRecord{reproduce_command(spec, options, index), "tool error: " + out.r.detail, out.c.summary(), "", 0};
    out.failure->case_index = index;
    out.failure->family = family_name(out.c.family);
  } else if (!out.r.passed && (out.r.hung || rerun.hung)) {
    // A hang is not minimised: every try would cost the whole timeout again.
    out.failure = FailureRecord{reproduce_command(spec, options, index), out.r.detail, out.c.summary(), "", 0};
    out.failure->case_index = index;
    out.failure->family = family_name(out.c.family);
  } else if (fault && rerun.passed) {
    out.failure = FailureRecord{reproduce_command(spec, options, index),
                                out.r.detail +
                                    " (did not recur when the case ran again: it depends on more than the "
                                    "case, e.g. on the calls before it)",
                                out.c.summary(), "", 0};
    out.failure->case_index = index;
    out.failure->family = family_name(out.c.family);
  } else if (!out.r.passed) {
    FailureRecord f;
    f.reproduce = reproduce_command(spec, options, index);
    f.original = out.c.summary();
    f.case_index = index;
    f.family = family_name(out.c.family);
    int budget = options.shrink_budget;
    ForwardCase minimal = shrink_failure(spec, shrinkable, budget, f.shrink_steps);
    minimal = shrink_dimensions(spec, minimal, budget, f.shrink_steps);
    minimal = simplify_values(spec, minimal, budget, f.shrink_steps);
    f.minimised = minimal.summary();
    if (minimal.explicit_values) f.minimised += "\n" + dump_problem(*minimal.explicit_values);
    const CheckResult again = spec.check(minimal);
    f.detail = again.passed ? out.r.detail : again.detail;  // the first evidence, should the subject be flaky
    out.minimal = minimal;
    out.failure = std::move(f);
  }
  return out;
}

void record_case(PropertyRun& run, const CaseOutcome& o, std::size_t max_kept_failures) {
  const ForwardCase& c = o.c;
  const CheckResult& r = o.r;
  ++run.cases;
  ++run.families[std::string(family_name(c.family))];
  for (const std::string& shape : classify_shape(c)) ++run.shape_classes[shape];
  run.elements += r.elements;
  run.overflowed += r.overflowed;
  run.nonfinite_inputs += r.nonfinite_inputs;
  run.max_error_over_bound = std::max(run.max_error_over_bound, r.max_error_over_bound);
  // Finite only: a case whose exact result is all zeros has no relative error to speak of.
  if (std::isfinite(r.max_relative_error)) run.max_relative_error = std::max(run.max_relative_error, r.max_relative_error);
  if (std::isfinite(r.normwise_relative_error))
    run.max_normwise_relative_error = std::max(run.max_normwise_relative_error, r.normwise_relative_error);
  if (r.max_error_over_bound > 0) {
    double& family_max = run.max_error_over_bound_by_family[std::string(family_name(c.family))];
    family_max = std::max(family_max, r.max_error_over_bound);
  }
  if (r.tool_error) ++run.tool_errors;
  else if (!r.passed) {
    ++run.failed;
    if (r.subject_fault) ++run.subject_faults;
  }
  if (o.failure && run.failures.size() < max_kept_failures) run.failures.push_back(*o.failure);
}

PropertyRun run_property(const PropertySpec& spec, const RunOptions& options) {
  if (spec.kind == PropertyKind::scenario) return run_scenarios(spec, options);
  PropertyRun run = empty_run(spec);
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t total = options.cases_override >= 0 ? options.cases_override : spec.cases;
  const std::int64_t first = options.only_case >= 0 ? options.only_case : 0;
  const std::int64_t last = options.only_case >= 0 ? options.only_case + 1 : total;
  run.requested = last - first;

  rc::Random root = case_stream(spec, options.seed);
  for (std::int64_t i = 0; i < first; ++i) root.split();  // case i always comes from the i-th split
  for (std::int64_t i = first; i < last; ++i) {
    record_case(run, run_case(spec, options, i, root.split()), static_cast<std::size_t>(options.max_failures));
    if (options.progress) options.progress(spec.name, i - first + 1, last - first);
    if (run.failed + run.tool_errors >= options.max_failures) break;
    if (options.stop && options.stop->load()) {
      run.skip_reason.clear();  // stopped: not a reasoned skip
      break;
    }
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace ordo::properties
