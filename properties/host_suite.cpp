// The host half of the suite: each contract's emulator against its plain scalar reference, within its
// plan's error bound, and invariant under batch and shard relations; the exact engines against each other.
#include <algorithm>

#include "properties/backward_checks.h"
#include "properties/exact_checks.h"
#include "properties/forward_checks.h"
#include "properties/suite.h"

namespace ordo::properties {
namespace {

// Backward emulators fold one T-FDPA step per 16 tokens and element, so host cases stay small; single
// dimensions still reach the tile edges.
ShapeLimits backward_host_limits() { return {.max_m = 40, .max_n = 40, .max_k = 300, .max_volume = 1 << 15}; }

CaseOptions host_case_options(const Contract& c) {
  return {.bf16_operands = c.plan.operand_dtype == DType::bf16,
          .k_multiple = 1,
          .bf16_output_sometimes = c.plan.allows_output(DType::bf16)};
}

// One host property of an emulator subject: the suite's rows differ only in what they check.
PropertySpec host_spec(const std::string& kernel, const Contract& contract, std::int64_t cases, rc::Gen<ForwardCase> gen,
                       std::string name, std::string description, PropertyKind kind,
                       std::function<CheckResult(const ForwardCase&)> check) {
  PropertySpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.backend = "emulator";
  spec.kernel = kernel;
  spec.contract = contract.id;
  spec.cases = cases;
  spec.gen = std::move(gen);
  spec.check = std::move(check);
  spec.kind = kind;
  return spec;
}

void add_forward_contract(Suite& s, const Contract& contract, std::int64_t cases) {
  ForwardSubject* emulator = s.forward_subjects.emplace_back(make_emulator_subject(contract)).get();
  ForwardSubject* scalar = s.forward_subjects.emplace_back(make_scalar_reference_subject(contract)).get();
  const auto all = all_families();
  const auto gen = gen_forward_case(host_shape_limits(), all, host_case_options(contract));
  auto add = [&](std::string name, std::string description, PropertyKind kind,
                 std::function<CheckResult(const ForwardCase&)> check) {
    s.properties.push_back(host_spec(emulator->kernel_id(), contract, cases, gen, std::move(name), std::move(description),
                                     kind, std::move(check)));
  };
  add("forward.emulator_within_error_bound",
      "every emulator output is within the error bound of the contract's plan of the exact (MPFR) result",
      PropertyKind::bound, [emulator](const ForwardCase& c) { return check_within_error_bound(*emulator, c); });
  add("forward.emulator_equals_scalar_reference",
      "the vectorised, threaded plan interpreter equals the plain scalar interpreter bit for bit", PropertyKind::bitwise,
      [emulator, scalar](const ForwardCase& c) { return check_bitwise_equal(*emulator, *scalar, c); });
  add("forward.emulator_batch_invariance",
      "a row alone equals the same row inside a batch, placed first, last and at a random position",
      PropertyKind::invariance,
      [emulator](const ForwardCase& c) { return check_batch_invariance(*emulator, c, std::max<std::int64_t>(2, c.M)); });
  add("forward.emulator_column_shard_equals_slice",
      "a contiguous shard of W's rows (output columns) gives exactly that slice of the whole output",
      PropertyKind::invariance, [emulator](const ForwardCase& c) { return check_column_shard_equals_slice(*emulator, c); });
}

void add_backward_contract(Suite& s, const Contract& contract, std::int64_t cases) {
  BackwardSubject* emulator = s.backward_subjects.emplace_back(make_backward_emulator_subject(contract)).get();
  const bool bf16 = contract.plan.operand_dtype == DType::bf16;
  const auto gen = gen_forward_case(backward_host_limits(), all_families(), bf16);
  auto add = [&](std::string name, std::string description, PropertyKind kind,
                 std::function<CheckResult(const ForwardCase&)> check) {
    s.properties.push_back(host_spec(emulator->kernel_id(), contract, cases, gen, std::move(name), std::move(description),
                                     kind, std::move(check)));
  };
  if (contract.kind == ContractKind::backward_data) {
    add("backward.dx_emulator_equals_scalar_reference",
        "dX of the plan interpreter equals the plain scalar interpreter, bit for bit", PropertyKind::bitwise,
        [emulator](const ForwardCase& c) { return check_dx_equals_reference(*emulator, c); });
    return;
  }
  add("backward.dw_emulator_equals_scalar_reference",
      "dW and db of the plan interpreter equal the plain scalar interpreter, bit for bit (keys, padding)",
      PropertyKind::bitwise, [emulator](const ForwardCase& c) { return check_dw_equals_reference(*emulator, c); });
  if (contract.plan.row_order != RowOrder::ascending_logical_key) return;
  add("backward.dw_emulator_permutation_invariance",
      "dW and db do not change under a joint permutation of (x, g, keys) with padding rows inserted anywhere",
      PropertyKind::invariance, [emulator](const ForwardCase& c) { return check_dw_permutation_invariance(*emulator, c); });
  if (emulator->traits().accumulate)
    add("backward.dw_emulator_microbatches_equal_whole",
        "microbatches in key order through the in-order session (any split, rows shuffled, padding anywhere) give "
        "the bytes of one whole-batch call",
        PropertyKind::invariance,
        [emulator](const ForwardCase& c) { return check_dw_microbatches_equal_whole(*emulator, c, 1); });
  add("backward.dw_emulator_shard_equals_slice",
      "a contiguous shard of the output features (a tensor-parallel shard, or Q, K or V of a fused projection) gives "
      "exactly that slice of dW and db",
      PropertyKind::invariance, [emulator](const ForwardCase& c) { return check_dw_shard_equals_slice(*emulator, c); });
}

}  // namespace

std::vector<Contract> builtin_contracts() {
  std::vector<Contract> all;
  for (const Contract* c : all_contracts()) all.push_back(*c);
  return all;
}

ShapeLimits host_shape_limits() { return {.max_m = 64, .max_n = 64, .max_k = 1100, .max_volume = 1 << 16}; }

rc::Gen<ForwardCase> gen_exact_engine_case() {
  const auto all = all_families();
  // Long vectors exercise the windows of the accumulators; batches of short ones (the usual case in a
  // generated suite) reach the vector count cheaply: 16K terms per case at most either way.
  return rc::gen::weightedOneOf<ForwardCase>(
      {{1, gen_forward_case({.max_m = 3, .max_n = 3, .max_k = 4096, .max_volume = 1 << 14}, all)},
       {2, gen_forward_case({.max_m = 16, .max_n = 16, .max_k = 4096, .max_volume = 1 << 14}, all)}});
}

std::int64_t exact_engine_cases(int level) { return level >= 2 ? 50000 : 6000; }

void add_host_properties(Suite& s, const SuiteOptions& o) {
  const std::int64_t forward_cases = o.level >= 2 ? 2000 : 500;
  const std::int64_t backward_cases = o.level >= 2 ? 2000 : 300;
  for (const Contract& c : o.contracts) {
    if (c.kind == ContractKind::forward) add_forward_contract(s, c, forward_cases);
    else add_backward_contract(s, c, backward_cases);
  }
  if (!o.exact_engines) return;
  const auto all = all_families();
  PropertySpec superacc;
  superacc.name = "exact.superacc_vs_mpfr";
  superacc.description =
      "the three exact engines (superaccumulator, MPFR, Boost.Multiprecision) agree exactly, and on the rounded "
      "binary32, bfloat16 and binary64 results";
  superacc.backend = "oracle";
  superacc.kernel = "host.superaccumulator";
  superacc.contract = "exact";
  superacc.cases = exact_engine_cases(o.level);
  superacc.gen = gen_exact_engine_case();
  superacc.check = [](const ForwardCase& c) { return check_superacc_equals_mpfr(c); };
  s.properties.push_back(std::move(superacc));
  PropertySpec order;
  order.name = "exact.order_independent";
  order.description = "the exact oracle's correctly rounded result is unchanged by any permutation of k";
  order.backend = "oracle";
  order.kernel = "host.mpfr";
  order.contract = "exact";
  order.cases = forward_cases;
  order.gen = gen_forward_case(host_shape_limits(), all);
  order.check = [](const ForwardCase& c) { return check_exact_result_order_independent(c); };
  order.kind = PropertyKind::invariance;
  s.properties.push_back(std::move(order));
}

}  // namespace ordo::properties
