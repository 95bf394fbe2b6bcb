// The subject half of the suite: what a subject's traits say applies to it, against the emulator of the
// contract it claims.
#include <algorithm>

#include "properties/backward_checks.h"
#include "properties/forward_checks.h"
#include "properties/suite.h"

namespace ordo::properties {
namespace {

// Host subjects (plugins on host buffers) compute every case on a CPU core or two: smaller shapes.
ShapeLimits host_subject_limits(int level) {
  return {.max_m = 512, .max_n = 512, .max_k = 2048, .max_volume = std::int64_t{1} << (level >= 2 ? 22 : 20)};
}

PropertySpec spec_for(const SubjectTraits& t, std::string name, std::string description, PropertyKind kind,
                      std::int64_t cases, rc::Gen<ForwardCase> gen, std::function<CheckResult(const ForwardCase&)> check,
                      const SuiteOptions& o) {
  PropertySpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.backend = t.kind;
  spec.kernel = t.id;
  spec.contract = t.contract.id;
  spec.cases = cases;
  spec.gen = std::move(gen);
  spec.check = std::move(check);
  spec.kind = kind;
  spec.expect_failure = t.is_mutant;
  spec.not_runnable = not_runnable_reason(t, o.gpu_present, o.device_sm, o.gpu_absent_reason);
  return spec;
}

}  // namespace

ShapeLimits gpu_shape_limits(int level) {
  // The emulator must recompute every output on the host; the volume cap keeps a case's host time near a
  // millisecond on a 16-core machine while single dimensions still reach the extremes.
  if (level >= 2) return {.max_m = 4096, .max_n = 6000, .max_k = 6000, .max_volume = std::int64_t(1) << 27};
  return {.max_m = 4096, .max_n = 6000, .max_k = 6000, .max_volume = std::int64_t(1) << 24};
}

CaseOptions case_options(const SubjectTraits& t) {
  return {.bf16_operands = t.operand_dtype == DType::bf16,
          .k_multiple = std::max(1, t.k_multiple),
          .bf16_output_sometimes = t.allows_output(DType::bf16)};
}

CaseOptions backward_case_options(const SubjectTraits& t) {
  // A TMA-fed subject's k_multiple applies to every operand row: dX's G and W rows have the case's K
  // (reduced) and N elements, dW's G and X rows its M and N (the case's K is dW's token count).
  const int m = std::max(1, t.k_multiple);
  const bool data = t.contract.kind == ContractKind::backward_data;
  return {.bf16_operands = t.operand_dtype == DType::bf16, .k_multiple = data ? m : 1, .n_multiple = m,
          .m_multiple = data ? 1 : m};
}

void add_forward_subject(Suite& s, std::unique_ptr<ForwardSubject> owned, const SuiteOptions& o) {
  ForwardSubject* subject = s.forward_subjects.emplace_back(std::move(owned)).get();
  const SubjectTraits& t = subject->traits();
  ForwardSubject* emulator = s.forward_subjects.emplace_back(make_emulator_subject(t.contract)).get();
  const auto& all = all_families();
  const CaseOptions options = case_options(t);
  const ShapeLimits limits = t.device_buffers ? gpu_shape_limits(o.level) : host_subject_limits(o.level);
  const auto gen = gen_forward_case(limits, all, options);
  const bool l2 = o.level >= 2;

  if (t.is_mutant && !o.mutants_get_full_suite) {
    // Self-test: the subject claims the contract and breaks it; the bitwise property must catch it.
    const ShapeLimits small{.max_m = 64, .max_n = 64, .max_k = 512, .max_volume = 1 << 18};
    s.properties.push_back(spec_for(t, "selftest.mutant_caught",
                                    "a deliberately broken subject is caught by forward.kernel_equals_emulator",
                                    PropertyKind::bitwise, 500, gen_forward_case(small, all, options),
                                    [subject, emulator](const ForwardCase& c) { return check_bitwise_equal(*subject, *emulator, c); },
                                    o));
    return;
  }
  const std::int64_t bitwise = t.device_buffers ? (l2 ? 10000 : 1000) : (l2 ? 2000 : 300);
  const std::int64_t other = t.device_buffers ? (l2 ? 1000 : 200) : (l2 ? 500 : 100);
  // subject == emulator, bit for bit, on the cases of `cases_gen`.
  const auto add_bitwise = [&](const char* name, const char* description, std::int64_t cases,
                               rc::Gen<ForwardCase> cases_gen) {
    s.properties.push_back(spec_for(
        t, name, description, PropertyKind::bitwise, cases, std::move(cases_gen),
        [subject, emulator](const ForwardCase& c) { return check_bitwise_equal(*subject, *emulator, c); }, o));
  };
  add_bitwise("forward.kernel_equals_emulator",
              "subject output == emulator output of its contract, bit for bit, NaN bits included", bitwise, gen);
  if (t.device_buffers) {
    add_bitwise("forward.kernel_equals_emulator_large_grid",
                "subject == emulator bit for bit on grids of many tiles (M >= 1024, N >= 1024, K in [256, 300]): several "
                "waves, and the split of a partial last wave into smaller tiles where a variant does that",
                l2 ? 200 : 40, gen_large_grid_case(all, options));
    add_bitwise("forward.kernel_equals_emulator_wide_rows",
                "subject == emulator bit for bit on few rows and many columns (M <= 128, N in [16000, 22000], short "
                "K): one wave of wide tiles, and another tile width for the whole grid where a variant picks one",
                l2 ? 1000 : 100, gen_wide_rows_case(all, options));
  }
  s.properties.push_back(spec_for(
      t, "forward.kernel_batch_invariance",
      "a row alone (M = 1) equals the same row inside a batch of up to 4096 rows, first, last and random",
      PropertyKind::invariance, other, gen,
      [subject](const ForwardCase& c) { return check_batch_invariance(*subject, c, std::max<std::int64_t>(2, c.M)); }, o));
  s.properties.push_back(spec_for(t, "forward.kernel_column_shard_equals_slice",
                                  "a contiguous shard of W's rows gives exactly that slice of the whole output",
                                  PropertyKind::invariance, other, gen,
                                  [subject](const ForwardCase& c) { return check_column_shard_equals_slice(*subject, c); },
                                  o));
  // The bound against the exact result: on shapes the MPFR judge affords.
  s.properties.push_back(spec_for(t, "forward.kernel_within_error_bound",
                                  "every subject output is within the error bound of its contract's plan of the exact result",
                                  PropertyKind::bound, other, gen_forward_case(host_shape_limits(), all, options),
                                  [subject](const ForwardCase& c) { return check_within_error_bound(*subject, c); }, o));
  if (t.fail_closed) {
    PropertySpec spec = spec_for(t, "forward.kernel_fail_closed",
                                 "each malformed call gets its specific error and leaves the output untouched",
                                 PropertyKind::scenario, 0, rc::gen::just(ForwardCase{}), {}, o);
    spec.scenarios = [subject] { return subject->fail_closed_scenarios(); };
    s.properties.push_back(std::move(spec));
  }
}

void add_backward_subject(Suite& s, std::unique_ptr<BackwardSubject> owned, const SuiteOptions& o) {
  BackwardSubject* subject = s.backward_subjects.emplace_back(std::move(owned)).get();
  const SubjectTraits& t = subject->traits();
  BackwardSubject* emulator = s.backward_subjects.emplace_back(make_backward_emulator_subject(t.contract)).get();
  const auto& all = all_families();
  const bool l2 = o.level >= 2;
  const ShapeLimits limits =
      t.device_buffers ? ShapeLimits{.max_m = 1024, .max_n = 1024, .max_k = 4096, .max_volume = std::int64_t{1} << (l2 ? 24 : 22)}
                       : ShapeLimits{.max_m = 256, .max_n = 256, .max_k = 1024, .max_volume = std::int64_t{1} << 18};
  const bool data = t.contract.kind == ContractKind::backward_data;
  const CaseOptions options = backward_case_options(t);
  const auto gen = gen_forward_case(limits, all, options);
  if (t.is_mutant && !o.mutants_get_full_suite) {
    const ShapeLimits small{.max_m = 64, .max_n = 64, .max_k = 512, .max_volume = 1 << 18};
    s.properties.push_back(spec_for(
        t, "selftest.mutant_caught",
        std::string("a deliberately broken subject is caught by ") +
            (data ? "backward.dx_kernel_equals_emulator" : "backward.dw_kernel_equals_emulator"),
        PropertyKind::bitwise, 500, gen_forward_case(small, all, options),
        [subject, emulator, data](const ForwardCase& c) {
          return data ? check_dx_equal(*subject, *emulator, c) : check_dw_equal(*subject, *emulator, c);
        },
        o));
    return;
  }
  const std::int64_t bitwise = t.device_buffers ? (l2 ? 10000 : 1000) : (l2 ? 2000 : 300);
  const std::int64_t other = t.device_buffers ? 1000 : (l2 ? 500 : 100);
  // Every operation a subject declares fail-closed gets its fail-closed row, as the forward one does.
  const auto add_fail_closed = [&] {
    if (!t.fail_closed || !subject->has_fail_closed_scenarios()) return;
    PropertySpec spec =
        spec_for(t, data ? "backward.dx_kernel_fail_closed" : "backward.dw_kernel_fail_closed",
                 data ? "each malformed dX call gets its specific error and leaves dX untouched"
                      : "each malformed dW call (keys the contract refuses among them) gets its specific error and "
                        "leaves dW and db untouched",
                 PropertyKind::scenario, 0, rc::gen::just(ForwardCase{}), {}, o);
    spec.scenarios = [subject] { return subject->fail_closed_scenarios(); };
    s.properties.push_back(std::move(spec));
  };
  if (data) {
    s.properties.push_back(spec_for(t, "backward.dx_kernel_equals_emulator",
                                    "dX of the subject == the emulator's, bit for bit, NaN bits included",
                                    PropertyKind::bitwise, bitwise, gen,
                                    [subject, emulator](const ForwardCase& c) { return check_dx_equal(*subject, *emulator, c); },
                                    o));
    if (t.device_buffers)
      s.properties.push_back(spec_for(
          t, "backward.dx_kernel_equals_emulator_large_grid",
          "dX of the subject == the emulator's, bit for bit, on grids of many tiles (dX [M, K], M >= 1024, K >= "
          "1024, a reduction of 256 to 300): several waves, and the rows past a partial last wave in another tile "
          "where a variant does that",
          PropertyKind::bitwise, l2 ? 200 : 40, gen_large_grid_case(all, options),
          [subject, emulator](const ForwardCase& c) { return check_dx_equal(*subject, *emulator, c); }, o));
    add_fail_closed();
    return;
  }
  s.properties.push_back(spec_for(
      t, "backward.dw_kernel_equals_emulator",
      "dW and db of the subject == the emulator's, bit for bit: keys of width 0, 2 or 3 in random order, padding rows",
      PropertyKind::bitwise, bitwise, gen,
      [subject, emulator](const ForwardCase& c) { return check_dw_equal(*subject, *emulator, c); }, o));
  if (t.device_buffers)
    s.properties.push_back(spec_for(
        t, "backward.dw_kernel_equals_emulator_large_grid",
        "dW and db of the subject == the emulator's, bit for bit, on weight-sized outputs (N in [512, 1800], K in "
        "[2048, 3000]) over up to 100 tokens, keys and padding as above: grids of 32 to 180 tiles of 128 x 256 (a "
        "partial wave, a whole one, a wave and a tail), partial last stages",
        PropertyKind::bitwise, l2 ? 1000 : 100, gen_weight_grid_case(all, options),
        [subject, emulator](const ForwardCase& c) { return check_dw_equal(*subject, *emulator, c); }, o));
  if (t.contract.plan.row_order == RowOrder::ascending_logical_key)
    s.properties.push_back(spec_for(
        t, "backward.dw_kernel_refuses_invalid_keys",
        "keys the contract refuses (two active rows with one key; a padding row with a gradient of 1, a subnormal or "
        "NaN) get the status code the emulator gives",
        PropertyKind::bitwise, other, gen,
        [subject, emulator](const ForwardCase& c) { return check_dw_refuses_invalid_keys(*subject, *emulator, c); }, o));
  if (t.contract.plan.row_order == RowOrder::ascending_logical_key)
    s.properties.push_back(spec_for(
        t, "backward.dw_kernel_permutation_invariance",
        "the subject's dW and db do not change under a joint permutation of (x, g, keys) with padding rows inserted",
        PropertyKind::invariance, other, gen,
        [subject](const ForwardCase& c) { return check_dw_permutation_invariance(*subject, c); }, o));
  s.properties.push_back(spec_for(
      t, "backward.dw_kernel_shard_equals_slice",
      "a contiguous shard of the output features (tensor-parallel, or one of a fused Q, K, V) gives exactly that slice "
      "of the subject's dW and db",
      PropertyKind::invariance, other, gen,
      [subject](const ForwardCase& c) { return check_dw_shard_equals_slice(*subject, c); }, o));
  if (t.accumulate) {
    // A tensor-core kernel keeps no carry between calls: its microbatches are cut at whole instructions.
    const std::int64_t granularity = t.contract.plan.step.width();
    s.properties.push_back(spec_for(
        t, "backward.dw_kernel_microbatches_equal_whole",
        "microbatches in key order, accumulated call after call, give the bytes of one whole-batch call",
        PropertyKind::invariance, other, gen,
        [subject, granularity](const ForwardCase& c) {
          return check_dw_microbatches_equal_whole(*subject, c, granularity);
        },
        o));
  }
  add_fail_closed();
}

}  // namespace ordo::properties
