// The host rows of a forward contract run on an emulator other than ordo's own (suite.h:
// add_emulator_subject): the same checks add_host_properties runs on ordo's emulator (host_suite.cpp),
// and the bits GPUs recorded for the contract.
#include <algorithm>

#include "properties/forward_checks.h"
#include "properties/golden_checks.h"
#include "properties/suite.h"

namespace ordo::properties {


void add_emulator_subject(Suite& s, std::unique_ptr<ForwardSubject> owned, const SuiteOptions& o,
                          const std::string& golden_dir) {
  ForwardSubject* emulator = s.forward_subjects.emplace_back(std::move(owned)).get();
  const SubjectTraits& t = emulator->traits();
  const Contract& contract = t.contract;
  ForwardSubject* scalar = s.forward_subjects.emplace_back(make_scalar_reference_subject(contract)).get();
  const std::int64_t cases = o.level >= 2 ? 2000 : 500;
  const CaseOptions options{.bf16_operands = contract.plan.operand_dtype == DType::bf16,
                            .k_multiple = 1,
                            .bf16_output_sometimes = contract.plan.allows_output(DType::bf16)};
  const auto gen = gen_forward_case(host_shape_limits(), all_families(), options);
  auto add = [&](std::string name, std::string description, PropertyKind kind, rc::Gen<ForwardCase> g, std::int64_t n,
                 std::function<CheckResult(const ForwardCase&)> check) {
    PropertySpec spec;
    spec.name = std::move(name);
    spec.description = std::move(description);
    spec.backend = t.kind;
    spec.kernel = t.id;
    spec.contract = contract.id;
    spec.cases = n;
    spec.gen = std::move(g);
    spec.check = std::move(check);
    spec.kind = kind;
    spec.expect_failure = t.is_mutant;
    s.properties.push_back(std::move(spec));
  };
  add("forward.emulator_within_error_bound",
      "every emulator output is within the error bound of the contract's plan of the exact (MPFR) result",
      PropertyKind::bound, gen, cases,
      [emulator](const ForwardCase& c) { return check_within_error_bound(*emulator, c); });
  add("forward.emulator_equals_scalar_reference",
      "the emulator equals ordo's plain scalar interpreter of the contract's plan bit for bit", PropertyKind::bitwise,
      gen, cases, [emulator, scalar](const ForwardCase& c) { return check_bitwise_equal(*emulator, *scalar, c); });
  add("forward.emulator_batch_invariance",
      "a row alone equals the same row inside a batch, placed first, last and at a random position",
      PropertyKind::invariance, gen, cases, [emulator](const ForwardCase& c) {
        return check_batch_invariance(*emulator, c, std::max<std::int64_t>(2, c.M));
      });
  add("forward.emulator_column_shard_equals_slice",
      "a contiguous shard of W's rows (output columns) gives exactly that slice of the whole output",
      PropertyKind::invariance, gen, cases,
      [emulator](const ForwardCase& c) { return check_column_shard_equals_slice(*emulator, c); });
  auto golden = std::make_shared<const std::vector<protocol::CorpusCase>>(golden_forward_cases(golden_dir, contract.id));
  if (golden->empty()) return;
  add("golden.emulator_equals_gpu_bits",
      "the emulator reproduces the bits a GPU recorded for the contract (corpus/golden), case by case",
      PropertyKind::bitwise, gen_golden_case(*golden), static_cast<std::int64_t>(golden->size()),
      [emulator, golden](const ForwardCase& c) { return check_equals_golden(*emulator, *golden, c); });
}

}  // namespace ordo::properties
