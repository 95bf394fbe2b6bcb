#pragma once
// Launchers of the narrow-output FP32 backward tile (kernels/bwd_f32_simt_narrow.cu), for products
// whose output has few columns or few rows and a long reduction (dX [M, 32] over n = 5376, dW
// [5376, 32] or [32, 5376] over the tokens):
//   "sm80.bwd.dx.f32.fma.simt.narrow.16x32x32": dX = G * W        (bwd.dx.f32.fma-chain/1)
//   "sm80.bwd.dw.f32.fma.simt.narrow.16x32x32": dW = G^T * X, db  (bwd.dw.f32.fma-chain/1)
// Output tile 16 x 32 (tile_m = 16 rows, tile_n = 32 columns of dX or dW), 32 reduction steps per
// slab, 128 threads. The grid is ceil(rows / 16) * ceil(cols / 32) blocks, which the validation must
// keep within kMaxGridX for this tile.
#include <cuda_runtime_api.h>

#include "kernels/backward_internal.h"

namespace ordo::kernels::detail {

// dX = G * W on p.stream.
cudaError_t launch_bwd_dx_f32_simt_narrow(const BackwardDataLaunch& p);

// dW = G^T * X on p.stream and, when p.db is set, db in the same kernel.
cudaError_t launch_bwd_dw_f32_simt_narrow(const BackwardWeightLaunch& p);

}  // namespace ordo::kernels::detail
