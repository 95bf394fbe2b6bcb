// The backward properties of `ordo verify`: invariances of dW/db on the host emulators of every backward
// contract, and, per registered backward CUDA variant, kernel == emulator and the invariances on the GPU.
#include <stdexcept>

#include "core/contract.h"
#include "kernels/backward_api.h"
#include "properties/backward_checks.h"
#include "properties/forward_suite.h"

namespace ordo::properties {
namespace {

// Backward emulators are slower than the forward ones (the BF16 dW model runs one T-FDPA step per
// 16 tokens and element), so host cases stay small; single dimensions still reach the tile edges.
ShapeLimits backward_host_limits() { return {.max_m = 40, .max_n = 40, .max_k = 300, .max_volume = 1 << 15}; }

std::string runnable_reason(const KernelVariant& v, int device_sm) {
  if (device_sm == 0 || (device_sm >= v.min_sm && (v.max_sm == 0 || device_sm <= v.max_sm))) return "";
  return "variant " + v.id + " claims " + v.contract_id + " on sm_" + std::to_string(v.min_sm) + ".." +
         (v.max_sm ? "sm_" + std::to_string(v.max_sm) : std::string("newer")) + "; this GPU is sm_" +
         std::to_string(device_sm);
}

}  // namespace

void add_backward_properties(Suite& s, const SuiteOptions& o) {
  const auto all = all_families();
  const std::int64_t host_cases = o.level >= 2 ? 2000 : 300;
  for (const Contract* c : backward_contracts()) {
    if (c->kind != ContractKind::backward_weight) continue;
    BackwardBackend* emulator = s.backward_backends.emplace_back(make_backward_emulator_backend(c->id)).get();
    const bool bf16 = c->accumulation != AccumulationModel::fma_chain;
    const auto gen = gen_forward_case(backward_host_limits(), all, bf16);
    s.properties.push_back({"backward.dw_emulator_permutation_invariance",
                            "dW and db do not change under a joint permutation of (x, g, keys) with padding rows "
                            "inserted anywhere",
                            "emulator", emulator->kernel_id(), c->id, host_cases, gen,
                            [emulator](const ForwardCase& fc) { return check_dw_permutation_invariance(*emulator, fc); },
                            false, ""});
    s.properties.push_back({"backward.dw_emulator_microbatches_equal_whole",
                            "microbatches in key order through the in-order session (any split, rows shuffled, "
                            "padding anywhere) give the bytes of one whole-batch call",
                            "emulator", emulator->kernel_id(), c->id, host_cases, gen,
                            [emulator](const ForwardCase& fc) { return check_dw_microbatches_equal_whole(*emulator, fc, 1); },
                            false, ""});
    s.properties.push_back({"backward.dw_emulator_shard_equals_slice",
                            "a contiguous shard of the output features (a tensor-parallel shard, or Q, K or V of a fused "
                            "projection) gives exactly that slice of dW and db",
                            "emulator", emulator->kernel_id(), c->id, host_cases, gen,
                            [emulator](const ForwardCase& fc) { return check_dw_shard_equals_slice(*emulator, fc); },
                            false, ""});
  }
  if (!o.gpu) return;

  const ShapeLimits gpu{.max_m = 1024, .max_n = 1024, .max_k = 4096, .max_volume = std::int64_t{1} << (o.level >= 2 ? 24 : 22)};
  const std::int64_t bitwise_cases = o.level >= 2 ? 10000 : 1000;
  const std::int64_t other_cases = 1000;
  for (const std::string& id : o.backward_variants) {
    const KernelVariant* v = kernels::find_backward_variant(id);
    if (!v) throw std::invalid_argument("unknown backward variant " + id);
    const Contract* c = find_contract(v->contract_id);
    if (!c) throw std::invalid_argument("variant " + id + " claims unknown contract " + v->contract_id);
    BackwardBackend* kernel = s.backward_backends.emplace_back(make_backward_cuda_backend(id)).get();
    BackwardBackend* emulator = s.backward_backends.emplace_back(make_backward_emulator_backend(v->contract_id)).get();
    const bool bf16 = v->operand_dtype == DType::bf16;
    const auto gen = gen_forward_case(gpu, all, bf16);
    const std::string not_runnable = runnable_reason(*v, o.device_sm);
    auto add = [&](std::string name, std::string description, std::int64_t cases,
                   std::function<CheckResult(const ForwardCase&)> check) {
      s.properties.push_back({std::move(name), std::move(description), "cuda", id, v->contract_id, cases, gen,
                              std::move(check), false, not_runnable});
    };
    if (c->kind == ContractKind::backward_data) {
      add("backward.dx_kernel_equals_emulator", "dX of the kernel == the emulator's, bit for bit, NaN bits included",
          bitwise_cases, [kernel, emulator](const ForwardCase& fc) { return check_dx_equal(*kernel, *emulator, fc); });
      continue;
    }
    add("backward.dw_kernel_equals_emulator",
        "dW and db of the kernel == the emulator's, bit for bit: keys of width 0, 2 or 3 in random order, padding rows",
        bitwise_cases, [kernel, emulator](const ForwardCase& fc) { return check_dw_equal(*kernel, *emulator, fc); });
    add("backward.dw_kernel_permutation_invariance",
        "the kernel's dW and db do not change under a joint permutation of (x, g, keys) with padding rows inserted",
        other_cases, [kernel](const ForwardCase& fc) { return check_dw_permutation_invariance(*kernel, fc); });
    add("backward.dw_kernel_shard_equals_slice",
        "a contiguous shard of the output features (tensor-parallel, or one of a fused Q, K, V) gives exactly that "
        "slice of the kernel's dW and db",
        other_cases, [kernel](const ForwardCase& fc) { return check_dw_shard_equals_slice(*kernel, fc); });
    // A tensor-core kernel keeps no carry between calls: its microbatches are cut at 16-token groups.
    const std::int64_t granularity = bf16 ? 16 : 1;
    add("backward.dw_kernel_microbatches_equal_whole",
        "microbatches in key order, accumulated call after call, give the bytes of one whole-batch call",
        other_cases, [kernel, granularity](const ForwardCase& fc) {
          return check_dw_microbatches_equal_whole(*kernel, fc, granularity);
        });
  }
  const ShapeLimits small{.max_m = 64, .max_n = 64, .max_k = 512, .max_volume = 1 << 18};
  for (const std::string& id : o.backward_mutants) {
    const KernelVariant* v = kernels::find_backward_variant(id);
    if (!v) throw std::invalid_argument("unknown backward variant " + id);
    BackwardBackend* mutant = s.backward_backends.emplace_back(make_backward_cuda_backend(id)).get();
    BackwardBackend* emulator = s.backward_backends.emplace_back(make_backward_emulator_backend(v->contract_id)).get();
    s.properties.push_back({"selftest.mutant_caught", "a deliberately broken kernel is caught by backward.dw_kernel_equals_emulator",
                            "cuda", id, v->contract_id, 500, gen_forward_case(small, all, v->operand_dtype == DType::bf16),
                            [mutant, emulator](const ForwardCase& fc) { return check_dw_equal(*mutant, *emulator, fc); },
                            true, runnable_reason(*v, o.device_sm)});
  }
}

}  // namespace ordo::properties
