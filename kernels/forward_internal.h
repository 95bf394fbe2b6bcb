#pragma once
// Internals of ordo_kernels shared by the registry, the validation and the launchers. Not part of the
// public API (kernels/forward_api.h is): this header has CUDA runtime types in it.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/variant.h"
#include "kernels/forward_api.h"
#include "kernels/wgmma_schedule.h"

namespace ordo::kernels::detail {

// Everything a launcher needs, already validated: all pointers are device memory of the current
// device, aligned to their element size, y does not overlap the inputs, and M, N, K are within kMaxDim with a grid
// that fits (see validate_forward).
struct LaunchParams {
  const float* x = nullptr;     // [M, K], f32 variants
  const float* w = nullptr;     // [N, K], f32 variants
  const std::uint16_t* x_bf16 = nullptr;  // [M, K], bf16 variants (bit patterns)
  const std::uint16_t* w_bf16 = nullptr;  // [N, K], bf16 variants
  const float* bias = nullptr;  // [N] or nullptr
  float* y = nullptr;           // [M, N] when y_dtype is f32
  std::uint16_t* y_bf16 = nullptr;  // [M, N] bf16 bits when y_dtype is bf16 (variants with bf16_output)
  DType y_dtype = DType::f32;
  int M = 0, N = 0, K = 0;
  cudaStream_t stream = nullptr;
  const LaunchOptions* options = &kDefaultLaunchOptions;  // never null; the caller's, which outlive the launch
};

// Returns the launch's own error (cudaLaunchKernel), and clears it from the runtime's last-error slot.
using LaunchFn = cudaError_t (*)(const LaunchParams&);

// Index limits shared by every forward kernel. Kernels keep row/column/k indices in int and
// may form index + tile (up to +255) before masking, so each dimension stays below INT32_MAX - 255.
// Every element offset is computed in 64 bits (size_t); an operand may hold at most 2^60 elements, so
// byte offsets (elements * 4) never overflow 64 bits. All kernels use a 1-D grid of
// ceil(M/tile_m) * ceil(N/tile_n) blocks, and gridDim.x is at most 2^31 - 1.
inline constexpr std::int64_t kMaxDim = INT32_MAX - 255;
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 60;
inline constexpr std::int64_t kMaxGridX = INT32_MAX;

struct VariantEntry {
  KernelVariant variant;
  LaunchFn launch = nullptr;
};

// All registered variants with their launchers (forward_registry.cpp).
const std::vector<VariantEntry>& variant_entries();

// Fail-closed validation of one call (forward_validation.cpp). On success fills *params (stream
// included) and returns ok; otherwise returns the first failing check's status, in the order
// no_device, unsupported_device, wrong_dtype, bad_size, inconsistent_size, unsupported_shape,
// null_pointer, host_pointer, wrong_device, misaligned, aliasing. (unknown_variant is decided by the caller.)
// no_device, then unsupported_device (the current device outside v's SM range); on success *device is the
// current device. The first checks of every forward and backward call.
Status check_device(const KernelVariant& v, int* device);
Status validate_forward(const KernelVariant& v, const ForwardArgs& args, LaunchParams* params);

// Launchers, one per variant (the .cu files).
cudaError_t launch_fwd_f32_simt_128x128x16(const LaunchParams& p);
cudaError_t launch_fwd_f32_simt_naive16x16(const LaunchParams& p);
cudaError_t launch_fwd_f32_simt_narrow(const LaunchParams& p);  // kernels/bwd_f32_simt_narrow.cu
cudaError_t launch_fwd_f32_simt_by_shape(const LaunchParams& p);  // kernels/fwd_f32_simt_by_shape.cu
cudaError_t launch_mutant_k_reversed(const LaunchParams& p);
cudaError_t launch_mutant_k_split_halves(const LaunchParams& p);
cudaError_t launch_mutant_bias_first(const LaunchParams& p);
cudaError_t launch_fwd_bf16_wmma_32x32x16(const LaunchParams& p);
cudaError_t launch_fwd_bf16_wgmma_128x256x64(const LaunchParams& p);

// The block tiles of variant sm80.fwd.f32.fma.simt.by-shape (kernels/fwd_f32_simt_by_shape.cu): BM x BN
// outputs per block, TM x TN chains per thread, BK k-steps per staged slab, a ring of `stages` slabs.
struct ByShapeTile {
  const char* name;
  int bm, bn, tm, tn, bk, stages, threads;
  // Blocks one SM holds at once (0: as many as 2048 threads allow); the 128x128 tiles' registers allow two.
  // Read by the tile cost model (kernels/by_shape_cost.h).
  int resident = 0;
  // The forward and dX rules run the tile only on grids of at least this many blocks per SM (0: any grid).
  int min_blocks_per_sm = 0;
};
const std::vector<ByShapeTile>& by_shape_tiles();
// The index of the tile the variant runs for this shape on a GPU with sm_count SMs.
int choose_by_shape_tile(std::int64_t M, std::int64_t N, std::int64_t K, int sm_count);
// What the variant launches for a shape: `tile` for rows [0, rows) and, where that tile's grid would end in a
// last wave at most half full, `tail_tile` for rows [rows, M) (-1: rows == M, one launch).
struct ByShapePlan {
  int tile = 0;
  std::int64_t rows = 0;
  int tail_tile = -1;
};
// split_rows false (`--fp32-split 0`): the rule's tile over all M rows, no second launch.
ByShapePlan plan_by_shape(std::int64_t M, std::int64_t N, std::int64_t K, int sm_count, bool split_rows = true);
// One tile, whatever the rule says (the tile sweep of bench/tile_sweep.cpp); the bits are the variant's.
cudaError_t launch_fwd_f32_by_shape_tile(const LaunchParams& p, int tile);
// Candidate tiles, which no rule runs: timed by the tile sweep (ordo_bench_tiles --candidates) before one joins
// the table. Same bits as every tile.
const std::vector<ByShapeTile>& by_shape_candidate_tiles();
cudaError_t launch_fwd_f32_by_shape_candidate(const LaunchParams& p, int tile);
// The 128x128 tile of 4 warps and 8 x 16 chains per thread (kernels/f32_simt_outer_128x128.cu): BK steps per
// slab, a ring of STAGES slabs, blocks in bands of kGroup tile rows (0: tile columns fastest).
template <int BK, int STAGES, int kGroup, bool kSnake>
cudaError_t launch_fwd_f32_outer(const LaunchParams& p);
// The warp-specialised tiles (kernels/f32_simt_warp_specialized.cu): BM x BN outputs, TM x TN chains per consumer
// thread, a producer warp filling a ring of STAGES slabs of BK steps, DEPTH groups of 4 steps read ahead.
// Instantiated there for the tiles of the by-shape table.
template <int BM, int BN, int TM, int TN, int BK, int STAGES, int DEPTH>
cudaError_t launch_fwd_f32_warp_specialized(const LaunchParams& p);

// LaunchOptions::fp32.tile (`--fp32-tile NAME`) makes the FP32 by-shape variants (forward, dX, dW) run that tile
// of their table whatever their rule says (the bits are the same): for verifying one tile on random shapes
// (`ordo verify`, the GPU tests) and for measurements. Returns its index, -1 when the name is empty, -2 (after
// naming the table's tiles on stderr) for a name the table lacks, which fails the launch.
int forced_fp32_tile(const std::vector<ByShapeTile>& tiles, const Fp32Options& options);
// The 4-warp 128x128 tile (kernels/f32_simt_outer_128x128.cu) runs in dX and dW on grids of at least this many
// waves of two blocks per SM (kernels/fwd_f32_simt_by_shape.cu says why and what was measured).
constexpr std::int64_t kOuterWavesBackward = 4;

// Number of tiles of size `tile` needed to cover `n` (n >= 1, tile >= 1).
inline constexpr std::int64_t ceil_div(std::int64_t n, std::int64_t tile) { return (n + tile - 1) / tile; }

}  // namespace ordo::kernels::detail
