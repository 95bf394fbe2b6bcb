#pragma once
// Internals of the backward kernels shared by the registry, the validation and the launchers. Not part
// of the public API (kernels/backward_api.h is): this header has CUDA runtime types in it.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/variant.h"
#include "kernels/backward_api.h"
#include "kernels/forward_internal.h"  // kMaxDim, kMaxElements, kMaxGridX, ceil_div

namespace ordo::kernels::detail {

// dX = G * W, already validated: device memory of the current device, every operand aligned to its
// element size, dx overlapping neither input, every dimension in [1, kMaxDim] and the grid of the
// variant's tiles within kMaxGridX. The operand pointers of the variant's operand dtype are set, the
// others null.
struct BackwardDataLaunch {
  const float* g = nullptr;               // [M, N], f32 variants
  const float* w = nullptr;               // [N, K], f32 variants
  const std::uint16_t* g_bf16 = nullptr;  // [M, N], bf16 variants (bit patterns)
  const std::uint16_t* w_bf16 = nullptr;  // [N, K], bf16 variants
  float* dx = nullptr;                    // [M, K]
  int M = 0, N = 0, K = 0;
  cudaStream_t stream = nullptr;
  const LaunchOptions* options = &kDefaultLaunchOptions;  // never null
};

// dW = G^T * X and db over `rows` reduction steps, already validated. Step r reads token row
// rows[r] of X and G, or row r when rows is null (the in-place path). As for dX, only the pointers of
// the variant's operand dtype are set.
struct BackwardWeightLaunch {
  const float* x = nullptr;               // [T, K], f32 variants
  const float* g = nullptr;               // [T, N], f32 variants
  const std::uint16_t* x_bf16 = nullptr;  // [T, K], bf16 variants (bit patterns)
  const std::uint16_t* g_bf16 = nullptr;  // [T, N], bf16 variants
  const int* rows = nullptr;   // device memory [R], or null: step r is row r
  int R = 0;                   // reduction steps (active tokens), 0 <= R <= T
  float* dw = nullptr;         // [N, K]
  float* db = nullptr;         // [N], or null
  int N = 0, K = 0;
  bool accumulate = false;
  cudaStream_t stream = nullptr;
  const LaunchOptions* options = &kDefaultLaunchOptions;  // never null
};

using BackwardDataLaunchFn = cudaError_t (*)(const BackwardDataLaunch&);
// Launches dW (and db when p.db is set) on p.stream, in that order.
using BackwardWeightLaunchFn = cudaError_t (*)(const BackwardWeightLaunch&);

// Which rows a dW variant reduces, in which order.
enum class TokenOrder {
  canonical,                 // the contract: active rows in ascending key order (call order without keys)
  active_rows_in_call_order  // MUTANT: padding dropped, but the active rows never sorted by key
};

struct BackwardDataEntry {
  KernelVariant variant;
  BackwardDataLaunchFn launch = nullptr;
};

struct BackwardWeightEntry {
  KernelVariant variant;
  BackwardWeightLaunchFn launch = nullptr;
  TokenOrder order = TokenOrder::canonical;
};

// The registered variants with their launchers (backward_registry.cpp).
const std::vector<BackwardDataEntry>& backward_data_entries();
const std::vector<BackwardWeightEntry>& backward_weight_entries();

// Fail-closed validation of a dX call (backward_validation.cpp), against the variant's SM range,
// operand dtype and tile. On success fills *p and returns ok; otherwise the first failing check's
// status, in the order of backward_api.h.
Status validate_backward_data(const KernelVariant& v, const BackwardDataArgs& a, BackwardDataLaunch* p);

// Fail-closed validation of a dW call, key contents included (read back to the host). On success
// fills *p (all but rows) and *order: the token rows to reduce, in the order entry.order gives, and
// sets *in_place when they are exactly 0..T-1 (then the kernel takes no index array).
Status validate_backward_weight(const BackwardWeightEntry& entry, const BackwardWeightArgs& a, BackwardWeightLaunch* p,
                                std::vector<int>* order, bool* in_place);

// Launchers (bwd_f32_simt_128x128x16.cu).
cudaError_t launch_bwd_dx_f32_simt_128x128x16(const BackwardDataLaunch& p);
// The dX variant sm80.bwd.dx.f32.fma.simt.by-shape (kernels/fwd_f32_simt_by_shape.cu): its tiles, the rule's
// choice for dX [M,K] = G [M,N] W [N,K], one tile whatever the rule says (benches, tests), and the variant.
const std::vector<ByShapeTile>& dx_by_shape_tiles();
int choose_dx_by_shape_tile(std::int64_t M, std::int64_t N, std::int64_t K, int sm_count);
// The same rows split as the forward's (plan_by_shape), over dX's rows.
ByShapePlan plan_dx_by_shape(std::int64_t M, std::int64_t N, std::int64_t K, int sm_count, bool split_rows = true);
cudaError_t launch_bwd_dx_f32_by_shape_tile(const BackwardDataLaunch& p, int tile);
cudaError_t launch_bwd_dx_f32_simt_by_shape(const BackwardDataLaunch& p);
// Its candidate tiles (ordo_bench_tiles --op dx --candidates), which no rule runs.
const std::vector<ByShapeTile>& dx_by_shape_candidate_tiles();
cudaError_t launch_bwd_dx_f32_by_shape_candidate(const BackwardDataLaunch& p, int tile);
template <int BK, int STAGES, int kGroup, bool kSnake>
cudaError_t launch_bwd_dx_f32_outer(const BackwardDataLaunch& p);  // kernels/f32_simt_outer_128x128.cu
cudaError_t launch_bwd_dw_f32_simt_128x128x16(const BackwardWeightLaunch& p);
// db alone (p.db set): one __fadd_rn chain per column n over G's rows in the order of p.rows, or in place.
cudaError_t launch_bwd_db_f32(const BackwardWeightLaunch& p);
// dW by the 4-warp 128x128 tile (kernels/f32_simt_outer_128x128.cu), then db when p.db is set.
template <int BK, int STAGES, int kGroup, bool kSnake>
cudaError_t launch_bwd_dw_f32_outer(const BackwardWeightLaunch& p);
// The dW variant sm80.bwd.dw.f32.fma.simt.by-shape (kernels/bwd_dw_f32_simt_by_shape.cu): its tiles, the
// rule's choice for dW [N,K] over R tokens (kernels/by_shape_cost.h; R moves no choice), one tile whatever
// the rule says (benches, tests), and the variant.
const std::vector<ByShapeTile>& dw_by_shape_tiles();
int choose_dw_by_shape_tile(std::int64_t N, std::int64_t K, std::int64_t R, int sm_count);
cudaError_t launch_bwd_dw_f32_by_shape_tile(const BackwardWeightLaunch& p, int tile);
cudaError_t launch_bwd_dw_f32_simt_by_shape(const BackwardWeightLaunch& p);

// Launchers (bwd_bf16_wmma_32x32x16.cu): the BF16 tensor-core tiles, one source for the sm_80 and the
// sm_90 variants (the contract differs by the arithmetic of the GPU, not by the code).
cudaError_t launch_bwd_dx_bf16_wmma_32x32x16(const BackwardDataLaunch& p);
cudaError_t launch_bwd_dw_bf16_wmma_32x32x16(const BackwardWeightLaunch& p);
// db alone, one __fadd_rn chain per column over the same tokens (p.db set): shared by the BF16 dW variants.
cudaError_t launch_bwd_db_bf16(const BackwardWeightLaunch& p);
// The Hopper wgmma tile (bf16_wgmma_128x256x64.cu) for dX, W read as an N-major B operand.
cudaError_t launch_bwd_dx_bf16_wgmma_128x256x64(const BackwardDataLaunch& p);
// ... and for dW (G an M-major A, X an N-major B; in place by TMA or gathered by cp.async), then db.
cudaError_t launch_bwd_dw_bf16_wgmma_128x256x64(const BackwardWeightLaunch& p);

}  // namespace ordo::kernels::detail
