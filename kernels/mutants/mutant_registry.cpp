// The registry of the self-test's GPU mutants and their dispatch (mutant_registry.h).
#include "kernels/mutants/mutant_registry.h"

#include <cuda_runtime_api.h>

#include <string>

#include "kernels/mutants/bwd_dw_orders.h"
#include "kernels/mutants/mutant_internal.h"

namespace ordo::kernels {
namespace {

const std::vector<detail::VariantEntry>& forward_entries() {
  static const std::vector<detail::VariantEntry> entries = [] {
    std::vector<detail::VariantEntry> all = detail::fwd_f32_zoo_entries();
    all.push_back(detail::missing_barrier_entry());
    for (const auto& e : detail::fwd_bf16_mutant_entries()) all.push_back(e);
    return all;
  }();
  return entries;
}

struct WeightEntry {
  KernelVariant variant;
  mutants::DwDefect defect;
};

const std::vector<WeightEntry>& weight_entries() {
  static const std::vector<WeightEntry> entries = [] {
    std::vector<WeightEntry> all;
    for (const mutants::DwDefect d : mutants::all_dw_defects()) {
      if (d == mutants::DwDefect::call_order) continue;  // the production registry's mutant.bwd.dw.f32.call-order
      KernelVariant v;
      v.id = mutants::dw_defect_id(d);
      v.contract_id = "bwd.dw.f32.fma-chain/1";
      v.tile_m = 1;
      v.tile_n = 1;
      v.tile_k = d == mutants::DwDefect::atomics ? mutants::kDwChunk : 1;
      v.threads = 256;
      v.stages = 1;
      v.instruction = "ffma";
      v.sm.min = 80;
      v.is_mutant = true;
      v.description = std::string("MUTANT: ") + mutants::dw_defect_text(d);
      all.push_back({v, d});
    }
    return all;
  }();
  return entries;
}

Status unknown(std::string_view id) {
  return Status::error(StatusCode::unknown_variant, "no mutant with id \"" + std::string(id) + "\"");
}

}  // namespace

const std::vector<KernelVariant>& mutant_forward_variants() {
  static const std::vector<KernelVariant> variants = [] {
    std::vector<KernelVariant> v;
    for (const auto& e : forward_entries()) v.push_back(e.variant);
    return v;
  }();
  return variants;
}

const std::vector<KernelVariant>& mutant_backward_weight_variants() {
  static const std::vector<KernelVariant> variants = [] {
    std::vector<KernelVariant> v;
    for (const auto& e : weight_entries()) v.push_back(e.variant);
    return v;
  }();
  return variants;
}

const KernelVariant* find_mutant_variant(std::string_view id) {
  for (const auto* list : {&mutant_forward_variants(), &mutant_backward_weight_variants()})
    for (const KernelVariant& v : *list)
      if (v.id == id) return &v;
  return nullptr;
}

Status mutant_forward(std::string_view id, const ForwardArgs& args) {
  for (const auto& e : forward_entries()) {
    if (e.variant.id != id) continue;
    detail::LaunchParams params;
    if (Status s = detail::validate_forward(e.variant, args, &params); !s.ok()) return s;
    const cudaError_t err = e.launch(params);
    if (err != cudaSuccess)
      return Status::error(StatusCode::launch_failed, "launch of " + e.variant.id + " failed: " +
                                                          cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
    return Status::success();
  }
  return unknown(id);
}

Status mutant_backward_weight(std::string_view id, const BackwardWeightArgs& args) {
  for (const auto& e : weight_entries())
    if (e.variant.id == id) return detail::launch_dw_mutant(e.defect, args);
  return unknown(id);
}

}  // namespace ordo::kernels
