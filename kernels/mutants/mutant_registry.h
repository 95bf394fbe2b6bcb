#pragma once
// The self-test's GPU mutants (`ordo selftest --gpu`): deliberately broken variants, each claiming a
// contract and breaking it in one realistic way (kernels/mutants/*_defects.h say how). A registry of their
// own, apart from the production variants (forward_api.h, backward_api.h), so that nothing that lists,
// records or benchmarks production kernels ever meets them; every entry has is_mutant = true. The four
// older mutants (K reversed, K split in halves, bias first, dW in call order) stay in the production
// registries, where `ordo verify` catches them; the self-test takes them from there.
// Host code includes this header only: no CUDA types.
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/variant.h"
#include "kernels/backward_api.h"
#include "kernels/forward_api.h"

namespace ordo::kernels {

const std::vector<KernelVariant>& mutant_forward_variants();
const std::vector<KernelVariant>& mutant_backward_weight_variants();
const KernelVariant* find_mutant_variant(std::string_view id);  // either kind

// Forward: the production validation (validate_forward: a refused call launches nothing), then the mutant.
Status mutant_forward(std::string_view id, const ForwardArgs& args);
// dW/db: shape checks only (mutants promise no fail-closed checks), the defect's key checks and order,
// the mutant; returns once the kernels have run.
Status mutant_backward_weight(std::string_view id, const BackwardWeightArgs& args);

}  // namespace ordo::kernels
