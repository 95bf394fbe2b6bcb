#pragma once
// Internals of the self-test's GPU mutants shared by their .cu files and the mutant registry: each file's
// table of variants with launchers. Not public (mutant_registry.h is); CUDA runtime types inside.
#include <vector>

#include "kernels/backward_api.h"
#include "kernels/forward_internal.h"
#include "kernels/mutants/bwd_dw_defects.h"

namespace ordo::kernels::detail {

const std::vector<VariantEntry>& fwd_f32_zoo_entries();      // fwd_f32_zoo.cu
const std::vector<VariantEntry>& fwd_bf16_mutant_entries();  // fwd_bf16_mutants.cu
VariantEntry missing_barrier_entry();                        // fwd_f32_missing_barrier.cu

// bwd_dw_mutants.cu: reads keys and G back, orders the tokens as the defect does, launches, waits.
Status launch_dw_mutant(mutants::DwDefect d, const BackwardWeightArgs& a);

}  // namespace ordo::kernels::detail
