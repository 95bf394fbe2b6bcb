#include "subjects/mutants/mutant_zoo.h"

#include <stdexcept>

#include "kernels/backward_api.h"
#include "kernels/forward_api.h"
#include "kernels/mutants/mutant_registry.h"
#include "subjects/mutants/host_mutants.h"
#include "subjects/mutants/oracle_mutants.h"

namespace ordo::mutants {
namespace {

// The category of each twin, by id: the order the zoo is listed in, as the issue groups them.
struct Row {
  const char* id;
  const char* category;
};
constexpr Row kForwardRows[] = {
    {"mutant.fwd.f32.k-split-halves", "order"},
    {"mutant.fwd.f32.stream-k-last-wave", "order"},
    {"mutant.fwd.f32.block-k-partials", "order"},
    {"mutant.fwd.f32.two-accumulators", "order"},
    {"mutant.fwd.f32.k-reversed", "order"},
    {"mutant.fwd.f32.split-k-small-m", "order"},
    {"mutant.fwd.f32.tf32-inputs", "arithmetic"},
    {"mutant.fwd.f32.unfused-mul-add", "arithmetic"},
    {"mutant.fwd.f32.daz-inputs", "arithmetic"},
    {"mutant.fwd.f32.ftz-outputs", "arithmetic"},
    {"mutant.fwd.f32.start-negative-zero", "arithmetic"},
    {"mutant.fwd.f32.nan-payload", "arithmetic"},
    {"mutant.fwd.bf16.acc-rounded-bf16", "arithmetic"},
    {"mutant.fwd.bf16.chain-restart-per-tile", "arithmetic"},
    {"mutant.fwd.bf16.output-round-toward-zero", "arithmetic"},
    {"mutant.fwd.f32.bias-first", "arithmetic"},
    {"mutant.fwd.f32.k-tail-dropped", "edges"},
    {"mutant.fwd.f32.k-tail-overread", "edges"},
    {"mutant.fwd.f32.edge-last-column", "edges"},
    {"mutant.fwd.f32.edge-last-row", "edges"},
};

bool gpu_variant_exists(const std::string& id) {
  return kernels::find_forward_variant(id) || kernels::find_backward_variant(id) || kernels::find_mutant_variant(id);
}

std::string registry_note(const std::string& id) {
  if (kernels::find_forward_variant(id) || kernels::find_backward_variant(id))
    return "GPU mutant in the production registry (ordo verify's selftest.mutant_caught)";
  return kernels::find_mutant_variant(id) ? "GPU mutant in kernels/mutants/mutant_registry.h" : "no GPU mutant";
}

std::vector<MutantInfo> build() {
  std::vector<MutantInfo> zoo;
  const std::vector<HostTwinInfo>& forward = host_forward_twins();
  for (const Row& row : kForwardRows) {
    for (const HostTwinInfo& t : forward)
      if (t.id == row.id)
        zoo.push_back({t.id, row.category, t.defect, t.contract_id, MutantTarget::forward, true,
                       gpu_variant_exists(t.id), registry_note(t.id)});
  }
  if (zoo.size() != std::size(kForwardRows)) throw std::logic_error("mutant zoo: a forward row has no host twin");
  for (const HostTwinInfo& t : host_backward_twins())
    zoo.push_back({t.id, "backward", t.defect, t.contract_id, MutantTarget::backward_weight, true,
                   gpu_variant_exists(t.id), registry_note(t.id)});
  const KernelVariant* barrier = kernels::find_mutant_variant("mutant.fwd.f32.smem-missing-barrier");
  if (!barrier) throw std::logic_error("mutant zoo: the missing-barrier mutant is not registered");
  zoo.push_back({barrier->id, "pipeline",
                 "a shared-memory tile with register prefetch lacks the barrier between reading a slab and storing the "
                 "next over it: wrong bits only when warps race",
                 barrier->contract_id, MutantTarget::forward, false, true,
                 "GPU only: a race between warps is the GPU's scheduling, which no host computation reproduces"});
  const char* host_only = "host only: a defect of ordo's own oracle, which runs on the host";
  zoo.push_back({kSuperaccDoubleRoundingId, "oracle", kSuperaccDoubleRoundingDefect, "exact",
                 MutantTarget::exact_engine, true, false, host_only});
  zoo.push_back({kSuperaccZeroSignId, "oracle", kSuperaccZeroSignDefect, "exact", MutantTarget::exact_engine, true,
                 false, host_only});
  zoo.push_back({kBoundShortId, "oracle", kBoundShortDefect, "fwd.f32.fma-chain/1", MutantTarget::error_bound, true,
                 false, host_only});
  zoo.push_back({kTcFdpaRoundsId, "oracle", kTcFdpaRoundsDefect, "fwd.bf16.tc-fdpa-sm90/1", MutantTarget::emulator,
                 true, false, host_only});
  return zoo;
}

[[noreturn]] void none(const MutantInfo& m, const char* what) {
  throw std::invalid_argument("mutant " + m.id + " has no " + what);
}

}  // namespace

const std::vector<MutantInfo>& mutant_zoo() {
  static const std::vector<MutantInfo> zoo = build();
  return zoo;
}

const MutantInfo* find_mutant(std::string_view id) {
  for (const MutantInfo& m : mutant_zoo())
    if (m.id == id) return &m;
  return nullptr;
}

std::vector<std::string> mutant_ids() {
  std::vector<std::string> ids;
  for (const MutantInfo& m : mutant_zoo()) ids.push_back(m.id);
  return ids;
}

std::unique_ptr<ForwardSubject> host_forward_mutant(const MutantInfo& m) {
  if (m.target == MutantTarget::emulator) return make_tc_fdpa_rounding_emulator(m.contract);
  if (m.target != MutantTarget::forward || !m.host) none(m, "host forward twin");
  if (auto s = make_host_forward_twin(m.id)) return s;
  none(m, "host forward twin");
}

std::unique_ptr<BackwardSubject> host_backward_mutant(const MutantInfo& m) {
  if (m.target != MutantTarget::backward_weight || !m.host) none(m, "host dW twin");
  if (auto s = make_host_backward_twin(m.id)) return s;
  none(m, "host dW twin");
}

std::unique_ptr<ExactEngine> host_engine_mutant(const MutantInfo& m) {
  if (m.id == kSuperaccDoubleRoundingId) return make_superacc_double_rounding();
  if (m.id == kSuperaccZeroSignId) return make_superacc_zero_sign();
  none(m, "exact engine");
}

std::unique_ptr<ForwardSubject> gpu_forward_mutant(const MutantInfo& m) {
  if (m.target != MutantTarget::forward || !m.gpu) none(m, "GPU forward mutant");
  if (kernels::find_forward_variant(m.id)) return make_cuda_forward_subject(m.id);
  const KernelVariant* v = kernels::find_mutant_variant(m.id);
  if (!v) none(m, "GPU forward mutant");
  return make_cuda_forward_subject(
      *v, [id = m.id](const kernels::ForwardArgs& a) { return kernels::mutant_forward(id, a); });
}

std::unique_ptr<BackwardSubject> gpu_backward_mutant(const MutantInfo& m) {
  if (m.target != MutantTarget::backward_weight || !m.gpu) none(m, "GPU dW mutant");
  if (kernels::find_backward_variant(m.id)) return make_backward_cuda_subject(m.id);
  const KernelVariant* v = kernels::find_mutant_variant(m.id);
  if (!v) none(m, "GPU dW mutant");
  return make_backward_weight_cuda_subject(
      *v, [id = m.id](const kernels::BackwardWeightArgs& a) { return kernels::mutant_backward_weight(id, a); });
}

}  // namespace ordo::mutants
