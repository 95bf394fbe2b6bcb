// The self-test's FP32 forward GPU mutants of contract fwd.f32.fma-chain/1 (kernels/mutants/
// mutant_registry.h): each runs one defect of fwd_f32_defects.h in the one-thread-per-output kernel of
// elementwise_launch.cuh, the code its host twin runs. K reversed, K split in halves and bias first are
// in the production registry already (fwd_f32_mutants.cu) and are not repeated here.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/mutants/elementwise_launch.cuh"
#include "kernels/mutants/mutant_internal.h"

namespace ordo::kernels::detail {
namespace {

template <class Defect>
VariantEntry elementwise_entry() {
  KernelVariant v;
  v.id = Defect::kId;
  v.contract_id = "fwd.f32.fma-chain/1";
  v.tile_m = 16;
  v.tile_n = 16;
  v.tile_k = 1;
  v.threads = 256;
  v.stages = 1;
  v.instruction = "ffma";
  v.sm.min = 80;
  v.is_mutant = true;
  v.description = std::string("MUTANT: ") + Defect::kDefect;
  return {v, &launch_mutant_elementwise<Defect>};
}

}  // namespace

const std::vector<VariantEntry>& fwd_f32_zoo_entries() {
  using namespace mutants;  // NOLINT(google-build-using-namespace): the defect names
  static const std::vector<VariantEntry> entries = {
      elementwise_entry<StreamKLastWave>(), elementwise_entry<BlockKPartials>(), elementwise_entry<TwoAccumulators>(),
      elementwise_entry<SplitKSmallM>(),    elementwise_entry<Tf32Inputs>(),     elementwise_entry<UnfusedMulAdd>(),
      elementwise_entry<DazInputs>(),       elementwise_entry<FtzOutputs>(),     elementwise_entry<StartNegativeZero>(),
      elementwise_entry<NanPayload>(),      elementwise_entry<KTailDropped>(),   elementwise_entry<KTailOverread>(),
      elementwise_entry<EdgeLastColumn>(),  elementwise_entry<EdgeLastRow>(),
  };
  return entries;
}

}  // namespace ordo::kernels::detail
