// The deliberately broken variants of contract fwd.f32.fma-chain/1 that the production registry carries
// (is_mutant = true), for `ordo verify`'s own self-check: K reversed, K split in halves, bias first. Their
// defects live in fwd_f32_defects.h with the rest of the self-test's zoo (fwd_f32_zoo.cu), so that their
// host twins (`ordo selftest --host`) run the same code.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"
#include "kernels/mutants/elementwise_launch.cuh"

namespace ordo::kernels::detail {

cudaError_t launch_mutant_k_reversed(const LaunchParams& p) { return launch_mutant_elementwise<mutants::KReversed>(p); }
cudaError_t launch_mutant_k_split_halves(const LaunchParams& p) {
  return launch_mutant_elementwise<mutants::KSplitHalves>(p);
}
cudaError_t launch_mutant_bias_first(const LaunchParams& p) { return launch_mutant_elementwise<mutants::BiasFirst>(p); }

}  // namespace ordo::kernels::detail
