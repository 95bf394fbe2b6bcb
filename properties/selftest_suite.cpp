#include "properties/selftest_suite.h"

#include "properties/engine_checks.h"
#include "properties/forward_checks.h"
#include "subjects/mutants/oracle_mutants.h"

namespace ordo::properties {
namespace {

using mutants::MutantInfo;
using mutants::MutantTarget;

// A row of the oracle's own checks, run on the mutant `m` of the oracle: it must fail, or the mutant survived.
void add_oracle_mutant_row(MutantSuite& ms, const MutantInfo& m, PropertySpec spec) {
  spec.backend = "oracle";
  spec.kernel = m.id;
  spec.expect_failure = true;
  ms.suite.properties.push_back(std::move(spec));
  ms.backend = "oracle";
}

void add_engine_rows(MutantSuite& ms, const MutantInfo& m, const SuiteOptions& o) {
  std::shared_ptr<ExactEngine> engine = mutants::host_engine_mutant(m);
  PropertySpec spec;
  spec.name = "exact.engine_vs_mpfr";
  spec.description =
      "the exact engine's value and its binary32, bfloat16 and binary64 read-outs equal MPFR's (the "
      "comparison of exact.superacc_vs_mpfr)";
  spec.contract = "exact";
  spec.cases = exact_engine_cases(o.level);  // exact.superacc_vs_mpfr's budget and cases
  spec.gen = gen_exact_engine_case();
  spec.check = [engine](const ForwardCase& c) { return check_engine_equals_mpfr(*engine, c); };
  add_oracle_mutant_row(ms, m, std::move(spec));
}

void add_bound_rows(MutantSuite& ms, const MutantInfo& m, const SuiteOptions& o) {
  const Contract* contract = find_contract(m.contract);
  ForwardSubject* emulator = ms.suite.forward_subjects.emplace_back(make_emulator_subject(*contract)).get();
  PropertySpec spec;
  spec.name = "forward.emulator_within_error_bound";
  spec.description =
      "every emulator output is within the error bound of the contract's plan of the exact (MPFR) "
      "result; the bound is the mutant's";
  spec.contract = contract->id;
  spec.cases = o.level >= 2 ? 2000 : 500;  // add_host_properties' budget
  spec.gen = gen_forward_case(host_shape_limits(), all_families());
  spec.check = [emulator](const ForwardCase& c) {
    return check_within_error_bound(*emulator, c, &mutants::judge_with_short_bound);
  };
  spec.kind = PropertyKind::bound;
  add_oracle_mutant_row(ms, m, std::move(spec));
}

}  // namespace

std::string_view side_name(MutantSide s) {
  switch (s) {
    case MutantSide::host:
      return "host";
    case MutantSide::gpu:
      return "gpu";
  }
  return "?";
}

std::unique_ptr<MutantSuite> build_mutant_suite(const MutantInfo& m, MutantSide side, const SuiteOptions& options,
                                                const std::string& golden_dir) {
  auto ms = std::make_unique<MutantSuite>();
  SuiteOptions o = options;
  o.mutants_get_full_suite = true;
  bool host = true;
  switch (side) {
    case MutantSide::host:
      break;
    case MutantSide::gpu:
      host = false;
      break;
  }
  if (host ? !m.host : !m.gpu) {
    ms->not_run = host ? m.note : "no GPU mutant: " + m.note;
    return ms;
  }
  switch (m.target) {
    case MutantTarget::forward: {
      auto subject = host ? mutants::host_forward_mutant(m) : mutants::gpu_forward_mutant(m);
      ms->backend = subject->traits().kind;
      add_forward_subject(ms->suite, std::move(subject), o);
      break;
    }
    case MutantTarget::backward_weight: {
      auto subject = host ? mutants::host_backward_mutant(m) : mutants::gpu_backward_mutant(m);
      ms->backend = subject->traits().kind;
      add_backward_subject(ms->suite, std::move(subject), o);
      break;
    }
    case MutantTarget::exact_engine:
      add_engine_rows(*ms, m, o);
      break;
    case MutantTarget::error_bound:
      add_bound_rows(*ms, m, o);
      break;
    case MutantTarget::emulator: {
      auto subject = mutants::host_forward_mutant(m);
      ms->backend = subject->traits().kind;
      add_emulator_subject(ms->suite, std::move(subject), o, golden_dir);
      break;
    }
  }
  return ms;
}

}  // namespace ordo::properties
