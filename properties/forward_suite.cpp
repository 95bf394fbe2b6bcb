#include "properties/forward_suite.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "core/contract.h"
#include "kernels/forward_api.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/exact_checks.h"
#include "properties/forward_checks.h"

namespace ordo::properties {

ShapeLimits host_shape_limits() { return {.max_m = 64, .max_n = 64, .max_k = 1100, .max_volume = 1 << 16}; }

ShapeLimits gpu_shape_limits(int level) {
  // The emulator must recompute every output on the host; the volume cap keeps a case's host time
  // near a millisecond on a 16-core machine while single dimensions still reach the extremes.
  if (level >= 2) return {.max_m = 4096, .max_n = 6000, .max_k = 6000, .max_volume = std::int64_t(1) << 27};
  return {.max_m = 4096, .max_n = 6000, .max_k = 6000, .max_volume = std::int64_t(1) << 24};
}

Suite build_forward_suite(const SuiteOptions& o) {
  Suite s;
  const std::string contract = contract_fwd_f32_fma_chain().id;
  const std::int64_t host_cases = o.level >= 2 ? 2000 : 500;
  ForwardBackend* emulator = s.backends.emplace_back(make_emulator_backend(contract)).get();
  ForwardBackend* scalar = s.backends.emplace_back(make_scalar_reference_backend(contract)).get();
  const auto all = all_families();
  std::vector<ValueFamily> finite;
  std::copy_if(all.begin(), all.end(), std::back_inserter(finite), family_is_finite_safe);

  auto add = [&](std::string name, std::string description, std::string backend, std::string kernel,
                 std::int64_t cases, rc::Gen<ForwardCase> gen, std::function<CheckResult(const ForwardCase&)> check,
                 bool expect_failure = false) {
    s.properties.push_back({std::move(name), std::move(description), std::move(backend), std::move(kernel), contract,
                            cases, std::move(gen), std::move(check), expect_failure, ""});
  };
  const ShapeLimits host = host_shape_limits();

  add("forward.emulator_within_error_bound",
      "every emulator output is within the contract's a-priori error bound of the exact (MPFR) result",
      "emulator", emulator->kernel_id(), host_cases, gen_forward_case(host, all),
      [emulator](const ForwardCase& c) { return check_within_error_bound(*emulator, c); });
  add("forward.emulator_equals_scalar_reference",
      "the vectorised, threaded emulator equals the plain scalar reference bit for bit",
      "emulator", emulator->kernel_id(), host_cases, gen_forward_case(host, all),
      [emulator, scalar](const ForwardCase& c) { return check_bitwise_equal(*emulator, *scalar, c); });
  add("forward.emulator_batch_invariance",
      "a row alone equals the same row inside a batch, placed first, last and at a random position",
      "emulator", emulator->kernel_id(), host_cases, gen_forward_case(host, all),
      [emulator](const ForwardCase& c) { return check_batch_invariance(*emulator, c, std::max<std::int64_t>(2, c.M)); });
  add("forward.emulator_column_shard_equals_slice",
      "a contiguous shard of W's rows (output columns) gives exactly that slice of the whole output",
      "emulator", emulator->kernel_id(), host_cases, gen_forward_case(host, all),
      [emulator](const ForwardCase& c) { return check_column_shard_equals_slice(*emulator, c); });
  add("exact.superacc_vs_mpfr",
      "the superaccumulator and MPFR agree exactly, and on the rounded binary32, bfloat16 and binary64 results",
      "oracle", "host.superaccumulator", o.level >= 2 ? 50000 : 4000,
      gen_forward_case({.max_m = 3, .max_n = 3, .max_k = 4096, .max_volume = 1 << 14}, all),
      [](const ForwardCase& c) { return check_superacc_equals_mpfr(c); });
  for (const auto& [arch, params] : {std::pair{"sm80", oracle::tc_fdpa_params_sm80()},
                                     std::pair{"sm90", oracle::tc_fdpa_params_sm90()}}) {
    PropertySpec spec;
    spec.name = "bound.tc_fdpa_model_within_bound";
    spec.description = std::string("the T-FDPA model (") + arch +
                       " parameters) on bfloat16 operands stays within the tensor-core chain bound of the exact result";
    spec.backend = "oracle";
    spec.kernel = std::string("host.tc-fdpa-model.") + arch;
    spec.contract = std::string("model.tc-fdpa.") + arch;
    spec.cases = host_cases;
    spec.gen = gen_forward_case(host, all);
    spec.check = [params](const ForwardCase& c) { return check_tc_model_within_bound(params, c); };
    s.properties.push_back(std::move(spec));
  }
  add("exact.order_independent",
      "the exact oracle's correctly rounded result is unchanged by any permutation of k",
      "oracle", "host.mpfr", host_cases, gen_forward_case(host, all),
      [](const ForwardCase& c) { return check_exact_result_order_independent(c); });

  if (!o.gpu) return s;
  const ShapeLimits gpu = gpu_shape_limits(o.level);
  const std::int64_t bitwise_cases = o.level >= 2 ? 10000 : 1000;
  const std::int64_t other_cases = o.level >= 2 ? 1000 : 200;
  for (const std::string& id : o.gpu_variants) {
    const KernelVariant* v = kernels::find_forward_variant(id);
    if (!v) throw std::invalid_argument("unknown kernel variant " + id);
    ForwardBackend* kernel = s.backends.emplace_back(make_cuda_backend(id)).get();
    ForwardBackend* reference = v->contract_id == contract ? emulator
                                                           : s.backends.emplace_back(make_emulator_backend(v->contract_id)).get();
    const bool bf16 = v->operand_dtype == DType::bf16;
    std::string not_runnable;
    if (o.device_sm != 0 && (o.device_sm < v->min_sm || (v->max_sm != 0 && o.device_sm > v->max_sm)))
      not_runnable = "variant " + id + " claims " + v->contract_id + " on sm_" + std::to_string(v->min_sm) + ".." +
                     (v->max_sm ? "sm_" + std::to_string(v->max_sm) : std::string("newer")) + "; this GPU is sm_" +
                     std::to_string(o.device_sm);
    const CaseOptions options{.bf16_operands = bf16, .k_multiple = v->k_multiple, .bf16_output_sometimes = v->bf16_output};
    auto add_gpu = [&](std::string name, std::string description, std::int64_t cases,
                       std::function<CheckResult(const ForwardCase&)> check,
                       std::optional<rc::Gen<ForwardCase>> gen = std::nullopt) {
      PropertySpec spec{std::move(name), std::move(description), "cuda", id, v->contract_id, cases,
                        gen ? *gen : gen_forward_case(gpu, all, options), std::move(check), false, not_runnable};
      s.properties.push_back(std::move(spec));
    };
    add_gpu("forward.kernel_equals_emulator", "kernel output == emulator output, bit for bit, NaN bits included",
            bitwise_cases, [kernel, reference](const ForwardCase& c) { return check_bitwise_equal(*kernel, *reference, c); });
    add_gpu("forward.kernel_equals_emulator_large_grid",
            "kernel == emulator bit for bit on grids of many tiles (M >= 1024, N >= 1024, short K): several waves, "
            "and the split of a partial last wave into smaller tiles where a variant does that",
            o.level >= 2 ? 200 : 40,
            [kernel, reference](const ForwardCase& c) { return check_bitwise_equal(*kernel, *reference, c); },
            gen_large_grid_case(all, options));
    add_gpu("forward.kernel_batch_invariance",
            "a row alone (M = 1) equals the same row inside a batch of up to 4096 rows, first, last and random",
            other_cases,
            [kernel](const ForwardCase& c) { return check_batch_invariance(*kernel, c, std::max<std::int64_t>(2, c.M)); });
    add_gpu("forward.kernel_column_shard_equals_slice", "a contiguous shard of W's rows gives exactly that slice of the whole output",
            other_cases, [kernel](const ForwardCase& c) { return check_column_shard_equals_slice(*kernel, c); });
  }
  // Self-test: each mutant claims the contract and breaks it; the bitwise property must catch it.
  const ShapeLimits small{.max_m = 64, .max_n = 64, .max_k = 512, .max_volume = 1 << 18};
  for (const std::string& id : o.mutant_variants) {
    ForwardBackend* mutant = s.backends.emplace_back(make_cuda_backend(id)).get();
    add("selftest.mutant_caught", "a deliberately broken kernel is caught by forward.kernel_equals_emulator",
        "cuda", id, 500, gen_forward_case(small, all),
        [mutant, emulator](const ForwardCase& c) { return check_bitwise_equal(*mutant, *emulator, c); }, true);
  }
  return s;
}

}  // namespace ordo::properties
