// The Hopper BF16 tensor-core GEMM tile, for three variants (docs/bf16-wgmma.md):
//   "sm90.fwd.bf16.wgmma.128x256x64" (fwd.bf16.tc-fdpa-sm90/1): Y = X W^T + b, W [N, K] a K-major B;
//   "sm90.bwd.dx.bf16.wgmma.128x256x64" (bwd.dx.bf16.tc-fdpa-sm90/1): dX = G W, the same tile over
//     (M, N, K) = (M, dX's K, the reduced n) with G in X's place and W [N, K] read as it lies: rows of W
//     are reduction steps, so B is N-major (imm-trans-b), fed by TMA boxes of 64 columns x 64 rows;
//   "sm90.bwd.dw.bf16.wgmma.128x256x64" (bwd.dw.bf16.tc-fdpa-sm90/1): dW = G^T X over the active tokens,
//     (M, N, K) = (dW's N, dW's K, tokens), G [T, N] an M-major A (imm-trans-a) and X [T, K] an N-major
//     B, by TMA in place or gathered through the canonical order's index (see Ops); then db.
// Below, N is the output's columns and K the reduced axis, for all three. A persistent grid (one block
// of three warpgroups per SM) walks the 128x256 output tiles round-robin in a fixed, rasterised order:
//   * warpgroup 0 is the producer: one thread streams the A and B tiles of each 64-wide k tile into a
//     4-stage shared-memory ring with TMA (128-byte swizzle), signalling "full" mbarriers (gathered dW:
//     all 128 threads, with cp.async, each thread's arrival made by the hardware when its copies land);
//   * warpgroups 1 and 2 are consumers: each owns 64 rows x 256 columns and, per 64-wide k tile,
//     issues up to four wgmma.mma_async.m64n256k16 (k ascending), then releases the stage.
// Optionally (LaunchOptions::wgmma.cluster = 2) blocks run in clusters of two that own vertically adjacent tiles:
// each block loads its own X tile and half of the shared W tile, multicast by TMA into both blocks,
// halving the L2 traffic for W; on the H200 it runs as fast as single blocks, which stay the default.
// When the last wave of tile pairs would be at most half (a quarter) full, its tiles are computed as
// 128x128 halves (m64n128k16) or, forward and dX, 128x64 quarters (m64n64k16), so that the tail costs
// half (a quarter of) a wave; a grid of one such wave is all halves or quarters (wgmma_schedule). No
// output is ever split along K. Three more instantiations each run one unit width (Ring, launch_gemm): a
// grid of quarters on a deeper ring; with M <= 64, the small-M kernel (clusters of four blocks sharing a
// 64-row A tile by TMA multicast, one consumer warpgroup); and the forward's 128x168 units
// (m64n168k16) where 256-column tiles fill their last wave badly (wgmma_forward_unit_width).
//
// The order (the contract): the FP32 accumulators start at +0 (dW with accumulate: at dW) and are the
// C operand of every instruction (scale-d = 1), k ascending in steps of 16; TMA (and the gather) fill
// elements past M, N or K with +0, so the last step's missing products are zero products. A 64-wide k tile past K's
// last 16-wide step issues no instruction for it (ceil(K/16) steps in all, as the contract's chain has). The bias is
// added once after the chain with __fadd_rn; Y is FP32, or BF16 with one __float2bfloat16_rn.
//
// Needs K % 8 == 0 and 16-byte aligned X and W (TMA: row strides are multiples of 16 bytes); for dX
// and dW, every operand row (N % 8 == 0 and K % 8 == 0). The variants declare it, and validation
// refuses other calls.
#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "kernels/backward_internal.h"
#include "kernels/forward_internal.h"
#include "kernels/probe_api.h"
#include "kernels/sm90/async_ops.cuh"
#include "kernels/sm90/wgmma_bf16.cuh"

namespace ordo::kernels {
namespace detail {
namespace {

constexpr int kBM = 128, kBN = 256, kBK = 64;
constexpr int kHalfBN = kBN / 2, kQuarterBN = kBN / 4;
constexpr int kBN168 = static_cast<int>(kWgmmaUnit168);  // the forward's other unit width
constexpr int kConsumers = 2;  // warpgroups, 64 rows each
constexpr int kThreads = 128 * (1 + kConsumers);
// A kernel whose A tiles have kRowsA rows (128, or 64 for the small-M kernels): one consumer warpgroup per 64
// rows, times kSplit (1, or 2 in the small-M kernels: two consumers on the two column halves of each unit).
template <int kRowsA, int kSplit = 1>
constexpr int kConsumersFor = kRowsA / 64 * kSplit;
template <int kRowsA, int kSplit = 1>
constexpr int kThreadsFor = 128 * (1 + kConsumersFor<kRowsA, kSplit>);
// The small-M kernels (M <= 64, every unit a quarter or every unit a half: M = 64 with N = 5376 or 16128)
// run in clusters of as many blocks as a 128x256 tile has units (four quarters or two halves): the blocks
// of a cluster compute the units of one tile and share its A tile, each loading 64 / cluster of its rows and
// multicasting them into all.
constexpr int kSmallMCluster = 4;
// The forward's small-M units of 48 columns (wgmma_small_m_unit_width): clusters of four, as the quarters'.
constexpr int kSmallMUnit48 = static_cast<int>(kWgmmaSmallMUnit48);
template <int kRingW>
constexpr int kSmallMClusterFor = kRingW == kSmallMUnit48 ? 4 : kBN / kRingW;
// The shared-memory ring of a kernel whose widest unit is kRingW columns: per stage one 128 x 64 A tile
// and one kRingW x 64 B tile, as many stages as fit in the 227 KB of an sm_90 block. The general kernel
// (kRingW = 256) holds 4 stages of 48 KB. Two kernels run one unit width each, chosen by the launcher:
//   * kRingW = 64, a grid that is all 128x64 quarters (M <= 128 with a one-wave grid: M = 64, N = 5376):
//     8 stages of 24 KB. At one 64-column unit per SM the speed is what a block keeps in flight (the
//     consumers hold two stages, the rest are loads in flight), so twice the stages keep twice the bytes
//     in flight;
//   * kRingW = 168, the forward's 128x168 units (wgmma_forward_unit_width: M = 1024, N = 5376): 5 stages
//     of 37 KB and 28 KB of staging boxes (see StoreBox);
//   * kRingW = 64 with kRowsA = 64, the small-M kernel (M <= 64, all quarters): 13 stages of 16 KB, in
//     clusters of kSmallMCluster blocks sharing the A tile. cuBLAS runs M = 64, N = K = 5376 with the same
//     grid (84 tiles of 64x64 on 132 SMs, no split-K), 13 stages and clusters of 4 (its kernel
//     nvjet_sm90_tss_64x64_64x13_4x1, ncu in evidence/h200-5ddd20b-wgmma-168-units/), and with
//     three warpgroups: two consumers;
//   * kRingW = 128 with kRowsA = 64, the small-M halves kernel (M <= 64, all halves: M = 64, N = 16128): 9
//     stages of 24 KB, in clusters of two blocks sharing the A tile (the general kernel runs these grids
//     with half of its A tile and ring past M).
//
// The general kernel and the 168 kernel also hold the staging boxes of their stores (store_staged): per
// consumer two boxes of 64 rows, which the consumer fills while TMA stores the other (StoreBox).
// - The general kernel: boxes of 32 FP32 or 64 BF16 columns (128-byte rows, the widest the 128-byte swizzle
//   takes), 8 KB each, 32 KB in all beside its 192 KB ring.
// - The 168 kernel: boxes of 24 FP32 or 56 BF16 columns (168 = 7 x 24 = 3 x 56), unswizzled rows of 96 or 112
//   bytes, in slots of 7 KB, 28 KB in all beside its 185 KB ring (five stages: six left no room).
//   A warp's writes of one column group (8 rows) are then conflict-free: rows of 96 bytes start 24 words
//   apart, so rows r and r + 4 share banks and a warp's 256 bytes of FP32 take the least two wavefronts; rows
//   of 112 bytes start 28 words apart, so its 128 bytes of BF16 take one.
template <int kRingW, bool kBf16>
struct StoreBox {
  static constexpr bool swizzled = kRingW != kBN168;
  static constexpr int columns = kRingW != kBN168 ? (kBf16 ? 64 : 32) : (kBf16 ? 56 : 24);
  static constexpr int row_bytes = columns * (kBf16 ? 2 : 4);
  static constexpr int bytes = 64 * row_bytes;
};
template <int kRingW>
constexpr int kStoreSlotBytes = kRingW != kBN168 ? 8192 : 7168;  // one box of either output
static_assert(StoreBox<kBN, false>::bytes == kStoreSlotBytes<kBN> && StoreBox<kBN, true>::bytes == kStoreSlotBytes<kBN> &&
                  StoreBox<kBN168, false>::bytes <= kStoreSlotBytes<kBN168> &&
                  StoreBox<kBN168, true>::bytes == kStoreSlotBytes<kBN168> && kStoreSlotBytes<kBN168> % 1024 == 0 &&
                  kBN168 % StoreBox<kBN168, false>::columns == 0 && kBN168 % StoreBox<kBN168, true>::columns == 0,
              "whole boxes per 168-column unit, each in its slot; slots keep the 1024-byte alignment");
template <int kRingW, int kRowsA = kBM>
struct Ring {
  static_assert(kRingW == 256 || kRingW == 64 || kRingW == 168 || ((kRingW == 128 || kRingW == 48) && kRowsA == 64),
                "the general ring or one unit width's ring");
  static_assert(kRowsA == kBM || (kRowsA == 64 && (kRingW == 64 || kRingW == 128 || kRingW == 48)),
                "64-row A tiles only in the small-M kernels");
  // k sub-tiles of kBK per stage: two in the forward's 48-column small-M kernel. Its loop was bound by the
  // latency of each stage's hand-over, not by the tensor core: per 64-deep stage about 130 clocks of barrier
  // wait, 120 of issue and 130 of release in the consumer warp, against 112 clocks of wgmma (clock64 phases on
  // the H200, docs/bf16-wgmma.md). Stages of 128 feed each hand-over twice the depth (64 x 5376 x 4096:
  // 23.5 -> 17.4 us, 1.17-1.32x cuBLAS); stages of 192 and 256 (five and four of them) measured slower again.
  static constexpr int k_sub = kRowsA == 64 && kRingW == 48 ? 2 : 1;
  static constexpr int stage_k = kBK * k_sub;  // the reduction depth of a stage
  static constexpr int stage_bytes = (kRowsA + kRingW) * stage_k * 2;
  static constexpr int stages = kRowsA == 64 ? (kRingW == 64 ? 13 : kRingW == 48 ? 8 : 9)
                                : kRingW == 256 ? 4
                                : kRingW == 64  ? 8
                                                : 5;
  static constexpr bool staged_stores = (kRingW == kBN || kRingW == 168) && kRowsA == kBM;
  static constexpr int staging_bytes = staged_stores ? kConsumers * 2 * kStoreSlotBytes<kRingW> : 0;
  // + the staging boxes + barriers + alignment slack
  static constexpr int smem_bytes = stages * stage_bytes + staging_bytes + 2 * stages * 8 + 1024;
};
static_assert(Ring<64>::smem_bytes <= 227 * 1024 && Ring<168>::smem_bytes <= 227 * 1024 &&
                  Ring<256>::smem_bytes <= 227 * 1024 && Ring<64, 64>::smem_bytes <= 227 * 1024 &&
                  Ring<128, 64>::smem_bytes <= 227 * 1024 && Ring<48, 64>::smem_bytes <= 227 * 1024,
              "an sm_90 block has at most 227 KB of shared memory");
[[maybe_unused]] constexpr int kStages = Ring<kBN>::stages;  // the general ring (dW's gather); device code only
constexpr int kTwoBlockCluster = 2;  // the opt-in cluster size (--wgmma-cluster 2)
// What the tile multiplies, and how its operands reach shared memory:
//   forward:   A = X [M, K] K-major, B = W [N, K] K-major, both by TMA;
//   dx:        A = G [M, K] K-major, B = W [K, N] N-major (dX's (M, K, N) named as the tile's (M, N, K));
//   dw:        A = G^T, G [K, M] M-major, B = X [K, N] N-major, both by TMA with rows 0..K-1 in place
//              (dW's (N, K, tokens) named as (M, N, K));
//   dw_gather: dw with row r of both read from token rows[r]: the producer warpgroup copies 16-byte
//              chunks with cp.async into the layout TMA would have written (a gather, never a copy of G or X).
//   dw_pipelined, dw_gather_pipelined: dw, dw_gather always from +0 (no accumulate). Loading start values
//              into the accumulators (dw and dw_gather with accumulate) makes ptxas serialize every wgmma
//              of the kernel (its C7515 diagnostic); these kernels have no such load and keep the wgmma
//              pipeline.
enum class Ops { forward, dx, dw, dw_gather, dw_pipelined, dw_gather_pipelined };
// What each Ops value implies, stated once per value (a new value is a -Wswitch warning here, never a silent
// default). quarters: whether the tile splits a tail into 64-column quarters (m64n64k16): the forward and dX.
// Not dW, whose grids (its N x K outputs, weight-sized) are rarely a quarter wave.
struct OpsTraits {
  bool b_n_major, a_m_major, loads_start_values, gathered, quarters;
};
constexpr OpsTraits traits_of(Ops o) {
  switch (o) {
    case Ops::forward:
      return {false, false, false, false, true};
    case Ops::dx:
      return {true, false, false, false, true};
    case Ops::dw:
      return {true, true, true, false, false};
    case Ops::dw_gather:
      return {true, true, true, true, false};
    case Ops::dw_pipelined:
      return {true, true, false, false, false};
    case Ops::dw_gather_pipelined:
      return {true, true, false, true, false};
  }
  return {};
}
template <Ops o>
constexpr bool kBNMajor = traits_of(o).b_n_major;
template <Ops o>
constexpr bool kLoadsStartValues = traits_of(o).loads_start_values;
template <Ops o>
constexpr bool kAMMajor = traits_of(o).a_m_major;
template <Ops o>
constexpr bool kGathered = traits_of(o).gathered;
template <Ops o>
constexpr bool kQuarters = traits_of(o).quarters;

// An N-major B tile (dX's W) is kBN / 64 TMA boxes of 64 columns (128 bytes) x kBK reduction rows, one
// after another: the wgmma descriptor's leading byte offset is the size of one box.
constexpr int kNMajorBoxColumns = 64;
constexpr std::uint32_t kNMajorBoxBytes = kNMajorBoxColumns * kBK * 2;
static_assert(kNMajorBoxBytes % 1024 == 0 && kBN % kNMajorBoxColumns == 0,
              "whole 1024-byte swizzle atoms per box, whole boxes per tile");

// The work of one launch: `units` work units handed out round-robin to the clusters (unit u to
// cluster u % clusters); block r of a cluster computes tile row kCluster * p + r of the unit's tile
// row group p. Units below full_units are whole 128x256 tiles (per block) in rasterised order; the
// rest split the remaining tiles into `pieces` (2 or 4) pieces of 256 / pieces columns each, so that a
// last, partial wave of whole tiles becomes a wave that much shorter. Every output is computed by
// exactly one block, over all of K: the split changes which block computes an output, never its chain.
struct KernelArgs {
  const float* bias;
  float* y;
  std::uint16_t* y_bf16;
  int M, N, K;
  unsigned tiles_m, tiles_n;
  unsigned full_units, units;
  int pieces;          // the units past full_units: unit_n / pieces columns of a tile each
  int unit_n;          // a whole unit's columns: 256, or 168 (the forward's 128x168 kernel, no pieces)
  bool paired_stores;  // N even and Y aligned to two elements: column pairs are stored as one access
  // Probe mode only: unit b is the 16x16 corner of the tile at (16b, 16b); C [units][16][16] is the
  // accumulators' start value, D [units][16][16] the result, scale_d_first the first instruction's scale-d;
  // probe_width: the units' width, 256, 128 or 64 columns (the m64nNk16 instruction of that N).
  const float* probe_c;
  float* probe_d;
  int scale_d_first;
  int probe_width;
  // dW only: with accumulate, every chain starts from y's current value instead of +0; for dw_gather,
  // the operands and the device index of the reduction order (row r is token rows[r]).
  bool accumulate;
  bool gather_waits;  // the gather's producers wait for their own copies (see produce_gathered)
  // The stores go through shared memory and TMA (store_staged; the general kernel, FP32 output, map_y made);
  // otherwise each thread stores its accumulators.
  bool staged_stores;
  // The wgmma groups (k tiles) a consumer leaves in flight while it issues the next: 1, or 2 (then it holds
  // three stages of the ring; every ring has at least four, so the producer always has one to fill).
  int pending_groups;
  // The producer's TMA loads of A with an L2 evict_last policy and of B with evict_first (launch_gemm says
  // where); the same bits either way.
  bool cache_hints;
  const std::uint16_t* gather_g;  // [T, M]
  const std::uint16_t* gather_x;  // [T, N]
  const int* rows;                // [K]
};

struct Unit {
  int m0, n0;
  int width;  // kBN, kHalfBN, kQuarterBN or kBN168 columns
};

template <bool kProbe, int kCluster>
__device__ __forceinline__ Unit unit_at(const KernelArgs& a, unsigned u, unsigned rank) {
  if constexpr (kProbe) return {16 * static_cast<int>(u), 16 * static_cast<int>(u), a.probe_width};
  const bool piece = u >= a.full_units;
  const unsigned t = piece ? a.full_units + (u - a.full_units) / a.pieces : u;
  // Rasterisation over groups of kCluster tile rows: 8 tile rows share each W tile while it is in L2.
  constexpr unsigned kGroup = 8 / kCluster;
  const unsigned group_rows = (a.tiles_m + kCluster - 1) / kCluster;
  const unsigned per_group = kGroup * a.tiles_n;
  const unsigned first = (t / per_group) * kGroup;
  const unsigned rows = min(group_rows - first, kGroup);
  const unsigned in_group = t % per_group;
  const int width = piece ? a.unit_n / a.pieces : a.unit_n;
  const int piece_index = piece ? static_cast<int>((u - a.full_units) % a.pieces) : 0;
  const int n0 = static_cast<int>(in_group / rows) * a.unit_n + piece_index * width;
  return {static_cast<int>((first + in_group % rows) * kCluster + rank) * kBM, n0, width};
}

// The unit block `rank` of a cluster computes when the cluster takes its u-th unit. With 64-row A tiles
// (the small-M kernel, every unit a quarter) the cluster's unit is a tile and block r its quarter r, so
// that the blocks share the A tile; otherwise unit_at (a cluster of two shares W tiles).
template <bool kProbe, int kCluster, int kRowsA>
__device__ __forceinline__ Unit block_unit(const KernelArgs& a, unsigned u, unsigned rank) {
  if constexpr (kRowsA == 64) return unit_at<false, 1>(a, u * kCluster + rank, 0);
  return unit_at<kProbe, kCluster>(a, u, rank);
}
// The units a cluster walks: all of a.units, or the tiles of the small-M kernel's quarters.
template <int kCluster, int kRowsA>
__device__ __forceinline__ unsigned cluster_units(const KernelArgs& a) {
  return kRowsA == 64 ? a.units / kCluster : a.units;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// One 64-row consumer's share of one k tile: up to four 16-wide steps, k ascending. A whole k tile is
// four instructions in straight-line code; only the last, partial k tile of a unit branches per step.
// (wgmma in a conditional block makes ptxas insert a warpgroup.arrive before it, warning C7519.)
// A k step of 16 moves the descriptors' start addresses (16-byte units): +32 bytes inside the 128-byte
// rows of a K-major tile, +16 rows of 128 bytes (2048 bytes) down an N-major one.
template <int kWidth, Ops kOps, int kRegs>
__device__ __forceinline__ void issue_step(float (&d)[kRegs], std::uint64_t desc_x, std::uint64_t desc_w, int kk,
                                           int scale_d) {
  static_assert(kWidth / 2 <= kRegs, "the accumulators hold the instruction's N / 2 values per thread");
  constexpr int kTransA = kAMMajor<kOps> ? 1 : 0, kTransB = kBNMajor<kOps> ? 1 : 0;
  const std::uint64_t a = desc_x + static_cast<std::uint64_t>(kTransA ? 128 * kk : 2 * kk);
  const std::uint64_t b = desc_w + static_cast<std::uint64_t>(kTransB ? 128 * kk : 2 * kk);
  static_assert(kWidth == kBN || kWidth == kHalfBN || kWidth == kQuarterBN || kWidth == kBN168 ||
                    kWidth == kQuarterBN / 2 || kWidth == kSmallMUnit48,
                "an instruction N the probe covers");
  if constexpr (kWidth == kSmallMUnit48)
    sm90::wgmma_m64n48k16_bf16<kTransA, kTransB>(*reinterpret_cast<float(*)[kSmallMUnit48 / 2]>(&d[0]), a, b, scale_d);
  else if constexpr (kWidth == kQuarterBN / 2)
    sm90::wgmma_m64n32k16_bf16<kTransA, kTransB>(*reinterpret_cast<float(*)[kQuarterBN / 4]>(&d[0]), a, b, scale_d);
  else if constexpr (kWidth == kBN168)
    sm90::wgmma_m64n168k16_bf16<kTransA, kTransB>(*reinterpret_cast<float(*)[kBN168 / 2]>(&d[0]), a, b, scale_d);
  else if constexpr (kWidth == kBN)
    sm90::wgmma_m64n256k16_bf16<kTransA, kTransB>(*reinterpret_cast<float(*)[kBN / 2]>(&d[0]), a, b, scale_d);
  else if constexpr (kWidth == kHalfBN)
    sm90::wgmma_m64n128k16_bf16<kTransA, kTransB>(*reinterpret_cast<float(*)[kBN / 4]>(&d[0]), a, b, scale_d);
  else
    sm90::wgmma_m64n64k16_bf16<kTransA, kTransB>(*reinterpret_cast<float(*)[kBN / 8]>(&d[0]), a, b, scale_d);
}

// One stage of kSub k sub-tiles of kBK (kSub > 1: K-major operands only, sub-tile j of A and B at j * sub_x
// and j * sub_w 16-byte units past sub-tile 0): its `steps` k16 steps in ascending k, one chain.
template <int kWidth, Ops kOps, int kSub = 1, int kRegs>
__device__ __forceinline__ void issue_k_tile(float (&d)[kRegs], std::uint64_t desc_x, std::uint64_t desc_w, int steps,
                                             int first_scale_d, std::uint32_t sub_x = 0, std::uint32_t sub_w = 0) {
  static_assert(kSub == 1 || (!kAMMajor<kOps> && !kBNMajor<kOps>), "k sub-tiles of K-major operands only");
  constexpr int kTileSteps = kBK / 16, kSteps = kSub * kTileSteps;
  if (steps == kSteps) {
#pragma unroll
    for (int i = 0; i < kSteps; ++i)
      issue_step<kWidth, kOps, kRegs>(d, desc_x + (i / kTileSteps) * sub_x, desc_w + (i / kTileSteps) * sub_w,
                                      i % kTileSteps, i == 0 ? first_scale_d : 1);
  } else {
#pragma unroll
    for (int i = 0; i < kSteps - 1; ++i)
      if (i < steps)
        issue_step<kWidth, kOps, kRegs>(d, desc_x + (i / kTileSteps) * sub_x, desc_w + (i / kTileSteps) * sub_w,
                                        i % kTileSteps, i == 0 ? first_scale_d : 1);
  }
}
#endif

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A consumer warp has finished reading a stage: one arrival per warp on that stage's empty barrier
// in every block of the cluster (each block's producer refills its slice of W in all of them).
template <int kCluster>
__device__ __forceinline__ void release_stage(std::uint64_t* empty, int lane) {
  __syncwarp();
  if (lane != 0) return;
  if constexpr (kCluster > 1) {
#pragma unroll
    for (unsigned r = 0; r < kCluster; ++r) sm90::mbarrier_arrive_cluster(empty, r);
  } else {
    sm90::mbarrier_arrive(empty);
  }
}

// Consumer warpgroup c's stores of one unit through shared memory (the general and 168 kernels): per box of
// columns (StoreBox), its 64 rows into one of its two staging boxes, laid out as TMA reads them, then one TMA
// store of the box, which writes only the elements inside Y. The warpgroup goes on to the next unit's chains
// while the stores drain, where per-thread stores of the 128 KB of a 128x256 tile kept both consumers (and the
// tensor cores) from the next unit. Boxes wholly past N are not stored. The two boxes alternate over all of
// the warpgroup's stores (`stored` counts them, across units): before the barrier that publishes one, the
// leader waits until every earlier store has read its box, so that after the barrier the warpgroup may write
// the other.
// - Swizzled boxes (the general kernel) have 128-byte rows, 16-byte chunk q of row r at chunk q ^ (r % 8), as
//   TMA's 128-byte swizzle reads them; the 168 kernel's boxes have plain rows of StoreBox::row_bytes.
// - FP32 Y: each thread's column pair is written as 8 bytes; a warp's writes (8 rows x 32 bytes) take two
//   shared-memory wavefronts, the least for 256 bytes.
// - BF16 Y: each thread's column pair is rounded once (__float2bfloat16_rn, after the bias, as the direct
//   stores do) and written as 4 bytes; a warp's writes (8 rows x 16 bytes per column group) hit 32 different
//   banks. Measured on the H200 against the direct stores (evidence/h200-dda99b5-small-m-bf16-staged/):
//   BF16 Y at M >= 4096 1.10-1.21 -> 1.03-1.11x cuBLAS.
template <int kRingW, bool kBf16>
__device__ __forceinline__ void store_staged(const KernelArgs& a, const CUtensorMap* map_y, unsigned char* boxes,
                                             const float (&d)[kRingW / 2], const Unit& w, int c, int warp, int lane,
                                             unsigned& stored) {
  using namespace sm90;
  using Box = StoreBox<kRingW, kBf16>;
  constexpr int kBoxColumns = Box::columns, kElementBytes = kBf16 ? 2 : 4;
  const bool leader = threadIdx.x % 128 == 0;
  const int r_lo = warp * 16 + lane / 4;  // this thread's rows of the 64: r_lo and r_lo + 8
  // This thread's pair within a group of 8 columns, in bytes; in a swizzled box, its 16-byte chunk within the
  // group's chunks and its offset in that chunk, and the row's swizzle key (r_lo and r_lo + 8 share it). Kept
  // apart so that each store's address is a constant per group plus these: computed from the pair's byte in
  // the row (a division and a remainder by 16 per store) the general kernels needed registers they did not
  // have (ptxas: 164 bytes of spill stores and 932 of loads, 44 and 52 now) and the forward with BF16 Y ran
  // 1.18-1.30x cuBLAS at M >= 1024, 1.04-1.11x now (H200, evidence/h200-8bdf080-bf16-stores/).
  const int lane_bytes = 2 * (lane % 4) * kElementBytes;
  const int lane_chunk = lane_bytes / 16, lane_offset = lane_bytes % 16, swizzle_key = r_lo & 7;
  constexpr int kChunksPerGroup = 8 * kElementBytes / 16;
#pragma unroll
  for (int j = 0; j < kRingW / kBoxColumns; ++j) {
    if (j * kBoxColumns >= w.width || w.n0 + j * kBoxColumns >= a.N) break;
    unsigned char* box = boxes + (stored++ % 2) * kStoreSlotBytes<kRingW>;
#pragma unroll
    for (int g = 0; g < kBoxColumns / 8; ++g) {  // the box's groups of 8 columns
      const int i = j * (kBoxColumns / 8) + g;
      const int col = w.n0 + 8 * i + 2 * (lane % 4);
      const float b0 = a.bias != nullptr && col < a.N ? a.bias[col] : 0.0f;
      const float b1 = a.bias != nullptr && col + 1 < a.N ? a.bias[col + 1] : 0.0f;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = r_lo + 8 * h;
        float v0 = d[4 * i + 2 * h], v1 = d[4 * i + 2 * h + 1];
        if (a.bias != nullptr) {
          v0 = __fadd_rn(v0, b0);
          v1 = __fadd_rn(v1, b1);
        }
        const int at = Box::swizzled
                           ? r * 128 + (((g * kChunksPerGroup + lane_chunk) ^ swizzle_key) * 16) + lane_offset
                           : r * Box::row_bytes + 8 * g * kElementBytes + lane_bytes;
        if constexpr (kBf16) {
          *reinterpret_cast<std::uint32_t*>(box + at) =
              static_cast<std::uint32_t>(__bfloat16_as_ushort(__float2bfloat16_rn(v0))) |
              (static_cast<std::uint32_t>(__bfloat16_as_ushort(__float2bfloat16_rn(v1))) << 16);
        } else {
          *reinterpret_cast<float2*>(box + at) = make_float2(v0, v1);
        }
      }
    }
    fence_proxy_async_shared();  // this thread's writes, before the async proxy's read of the box
    if (leader) bulk_wait_group_read_all();
    named_barrier_sync(1 + c, 128);
    if (leader) {
      tma_store_2d(map_y, box, w.n0 + j * kBoxColumns, w.m0 + c * 64);
      bulk_commit_group();
    }
  }
}

// A position in a ring of kStages stages, advanced one k tile at a time: the stage and the parity of its
// barriers' current phase, kept without the division of a running count (the consumer's loop runs one
// per 64-deep stage, where the instructions between two stages' wgmma are the hand-over's latency).
template <int kStages>
struct RingCursor {
  int stage = 0;
  std::uint32_t parity = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      parity ^= 1u;
    }
  }
};

// Consumer warpgroup c: rows [64c, 64c + 64) of each unit, or, with kSplit = 2 (the small-M kernels), all 64
// rows of columns [c W, c W + W), W = kRingW / 2 (one instruction of half the unit's N per step). Either way
// each output is one consumer's chain over every k step, as with one consumer: the split changes which
// warpgroup computes an output, never its chain.
template <bool kProbe, int kCluster, Ops kOps, int kRingW, int kRowsA, int kSplit>
__device__ __forceinline__ void consume(const KernelArgs& a, const std::uint16_t* x_tiles, const std::uint16_t* w_tiles,
                                        unsigned char* staging, const CUtensorMap* map_y, std::uint64_t* full,
                                        std::uint64_t* empty, int k_tiles, int c, unsigned rank, unsigned cluster,
                                        unsigned clusters) {
  using namespace sm90;
  static_assert(kSplit == 1 || (kRowsA == 64 && !kProbe && !kLoadsStartValues<kOps> &&
                                (!kBNMajor<kOps> || (kRingW / kSplit) % kNMajorBoxColumns == 0)),
                "column halves: the small-M kernels, an N-major B split at whole boxes");
  constexpr int kW = kRingW / kSplit;  // this consumer's columns of a unit of kRingW
  const int row_part = kSplit == 1 ? c : 0, col_part = kSplit == 1 ? 0 : c;
  const int warp = (static_cast<int>(threadIdx.x) % 128) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  constexpr int kRingStages = Ring<kRingW, kRowsA>::stages;
  constexpr int kSub = Ring<kRingW, kRowsA>::k_sub, kStageK = Ring<kRingW, kRowsA>::stage_k;
  static_assert(kSub == 1 || (kSplit == 1 && !kProbe && kRingW != kBN), "k sub-tiles: one consumer, one unit width");
  // `next` is the stage the next k tile reads, `release` the oldest stage still held (released in order).
  RingCursor<kRingStages> next, release;
  // This consumer's operand descriptors at stage 0; stage s is s stages of bytes further on (the start
  // address field is in 16-byte units, and shared addresses stay below 2^18 bytes, so the sum cannot carry
  // out of it).
  const std::uint64_t desc_x0 =
      kAMMajor<kOps> ? smem_desc_n_major_sw128(x_tiles + row_part * 64 * kBK, kNMajorBoxBytes)
                     : smem_desc_k_major_sw128(x_tiles + row_part * 64 * kBK);
  const std::uint64_t desc_w0 = kBNMajor<kOps> ? smem_desc_n_major_sw128(w_tiles + col_part * kW * kBK, kNMajorBoxBytes)
                                               : smem_desc_k_major_sw128(w_tiles + col_part * kW * kBK);
  constexpr std::uint64_t kStageUnitsX = kRowsA * kStageK * 2 / 16, kStageUnitsW = kRingW * kStageK * 2 / 16;
  unsigned stored = 0;  // the staged stores' boxes so far (store_staged)
  const unsigned units = cluster_units<kCluster, kRowsA>(a);
  for (unsigned u = cluster; u < units; u += clusters) {
    const Unit w = block_unit<kProbe, kCluster, kRowsA>(a, u, rank);
    // Single blocks only: in the two-block cluster kernel ptxas then takes the consumer branch for
    // divergent and serialises every wgmma (C7520), even with the condition shuffled from lane 0.
    const bool rows_past_m = !kProbe && kCluster == 1 && __shfl_sync(0xffffffffu, w.m0 + row_part * 64 >= a.M ? 1 : 0, 0) != 0;
    if (rows_past_m) {
      // All 64 of this warpgroup's rows are past M (M <= 64 in a 128-row tile): no chain to compute, no
      // output to store. It still waits for each stage and releases it, so that the barriers' phases
      // advance as the other consumer's do (an early arrival would count towards the wrong phase).
      for (int kt = 0; kt < k_tiles; ++kt) {
        mbarrier_wait(&full[next.stage], next.parity);
        release_stage<kCluster>(&empty[next.stage], lane);
        next.advance();
        release.advance();
      }
      continue;
    }
    float d[kW / 2];
#pragma unroll
    for (int i = 0; i < kW / 2; ++i) d[i] = 0.0f;  // +0: the contract's start value
    if constexpr (kProbe) {
      if (c == 0 && warp == 0) {
        const float* cb = a.probe_c + static_cast<size_t>(u) * 256;
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int v = 0; v < 4; ++v) d[4 * i + v] = cb[(lane / 4 + 8 * (v / 2)) * 16 + 8 * i + 2 * (lane % 4) + v % 2];
      }
    }
    if constexpr (kLoadsStartValues<kOps>) {
      if (a.accumulate) {  // the chains continue from dW: the fragment layout of the stores below
        const int row0 = w.m0 + c * 64 + warp * 16 + lane / 4;
        const int width = w.width;
#pragma unroll
        for (int i = 0; i < kRingW / 8; ++i) {
          const int col = w.n0 + 8 * i + 2 * (lane % 4);
          if (8 * i >= width) continue;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = row0 + 8 * h;
            if (row >= a.M) continue;
            const size_t at = static_cast<size_t>(row) * a.N + col;
            if (col < a.N) d[4 * i + 2 * h] = a.y[at];
            if (col + 1 < a.N) d[4 * i + 2 * h + 1] = a.y[at + 1];
          }
        }
      }
    }

    // One wgmma group (one k tile; two with a.pending_groups == 2) stays in flight while the next is
    // issued: instructions on the same accumulators execute in issue order (PTX ISA, wgmma.fence), so the
    // chain order is unchanged; a stage is released once the group that read it has completed.
    const int pending = a.pending_groups >= 2 ? 2 : 1;
    for (int kt = 0; kt < k_tiles; ++kt) {
      mbarrier_wait(&full[next.stage], next.parity);
      // The gather's copies went through the generic proxy and were published without a fence (its
      // producers do not wait for them): order them before this thread's wgmma reads.
      if constexpr (kGathered<kOps>) fence_proxy_async_shared();
      const int steps = min(kStageK / 16, (a.K - kt * kStageK + 15) / 16);
      // A consumer's 64 rows of A: 64 K-major rows, or one M-major box of 64 columns; 8 KB either way.
      // A consumer's columns of B: kW K-major rows, or kW / 64 N-major boxes; kW x kBK elements either way
      // (with kSplit = 2, a 1024-byte multiple: whole swizzle atoms).
      const std::uint64_t desc_x = desc_x0 + static_cast<std::uint64_t>(next.stage) * kStageUnitsX;
      const std::uint64_t desc_w = desc_w0 + static_cast<std::uint64_t>(next.stage) * kStageUnitsW;
      next.advance();
      const int first_scale_d = (kProbe && kt == 0) ? a.scale_d_first : 1;
      wgmma_fence();
      if constexpr (kRingW != kBN) {  // every unit of this kernel is kRingW wide
        issue_k_tile<kW, kOps, kSub>(d, desc_x, desc_w, steps, first_scale_d, kRowsA * kBK * 2 / 16,
                                     kRingW * kBK * 2 / 16);
      } else {
        if (kProbe && w.width == kQuarterBN / 2)  // the probe's n32 form
          issue_k_tile<kProbe ? kQuarterBN / 2 : kBN, kOps>(d, desc_x, desc_w, steps, first_scale_d);
        else if (kProbe && w.width == kSmallMUnit48)  // the probe's n48 form
          issue_k_tile<kProbe ? kSmallMUnit48 : kBN, kOps>(d, desc_x, desc_w, steps, first_scale_d);
        else if (kQuarters<kOps> && w.width == kQuarterBN)
          issue_k_tile<kQuarters<kOps> ? kQuarterBN : kHalfBN, kOps>(d, desc_x, desc_w, steps, first_scale_d);
        else if (w.width == kHalfBN)
          issue_k_tile<kHalfBN, kOps>(d, desc_x, desc_w, steps, first_scale_d);
        else
          issue_k_tile<kBN, kOps>(d, desc_x, desc_w, steps, first_scale_d);
      }
      wgmma_commit_group();
      if (pending == 2)
        wgmma_wait_group<2>();
      else
        wgmma_wait_all_but_one();
      if (kt >= pending) {
        release_stage<kCluster>(&empty[release.stage], lane);
        release.advance();
      }
    }
    wgmma_wait_all();
    for (int j = max(0, k_tiles - pending); j < k_tiles; ++j) {
      release_stage<kCluster>(&empty[release.stage], lane);
      release.advance();
    }
#pragma unroll
    for (int i = 0; i < kW / 2; ++i) fence_register(d[i]);

    if constexpr (kProbe) {
      if (c == 0 && warp == 0) {
        float* db = a.probe_d + static_cast<size_t>(u) * 256;
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int v = 0; v < 4; ++v) db[(lane / 4 + 8 * (v / 2)) * 16 + 8 * i + 2 * (lane % 4) + v % 2] = d[4 * i + v];
      }
      continue;
    }
    if constexpr (Ring<kRingW, kRowsA>::staged_stores) {
      if (a.staged_stores) {
        if (a.y_bf16 != nullptr)
          store_staged<kRingW, true>(a, map_y, staging + c * 2 * kStoreSlotBytes<kRingW>, d, w, c, warp, lane,
                                     stored);
        else
          store_staged<kRingW, false>(a, map_y, staging + c * 2 * kStoreSlotBytes<kRingW>, d, w, c, warp, lane,
                                      stored);
        continue;
      }
    }

    // Each thread holds pairs of adjacent columns; they are stored as one 8-byte (f32) or 4-byte
    // (bf16) access where the pair is inside N and aligned (a.paired_stores), else element by element.
    const int row0 = w.m0 + row_part * 64 + warp * 16 + lane / 4;
    const int width = w.width - col_part * kW;
#pragma unroll
    for (int i = 0; i < kW / 8; ++i) {
      const int col = w.n0 + col_part * kW + 8 * i + 2 * (lane % 4);
      if (8 * i >= width || col >= a.N) continue;
      const bool pair = a.paired_stores && col + 1 < a.N;
      const float b0 = a.bias != nullptr ? a.bias[col] : 0.0f;
      const float b1 = a.bias != nullptr && col + 1 < a.N ? a.bias[col + 1] : 0.0f;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + 8 * h;
        if (row >= a.M) continue;
        float v0 = d[4 * i + 2 * h], v1 = d[4 * i + 2 * h + 1];
        if (a.bias != nullptr) {
          v0 = __fadd_rn(v0, b0);
          v1 = __fadd_rn(v1, b1);
        }
        const size_t at = static_cast<size_t>(row) * a.N + col;
        if (a.y_bf16 != nullptr) {
          const std::uint16_t u0 = __bfloat16_as_ushort(__float2bfloat16_rn(v0));
          const std::uint16_t u1 = __bfloat16_as_ushort(__float2bfloat16_rn(v1));
          if (pair) {
            *reinterpret_cast<std::uint32_t*>(a.y_bf16 + at) =
                static_cast<std::uint32_t>(u0) | (std::uint32_t{u1} << 16);
          } else {
            a.y_bf16[at] = u0;
            if (col + 1 < a.N) a.y_bf16[at + 1] = u1;
          }
        } else if (pair) {
          *reinterpret_cast<float2*>(a.y + at) = make_float2(v0, v1);
        } else {
          a.y[at] = v0;
          if (col + 1 < a.N) a.y[at + 1] = v1;
        }
      }
    }
  }
  // No block leaves with a staged store in flight (its shared memory would be freed under it).
  if constexpr (Ring<kRingW, kRowsA>::staged_stores)
    if (a.staged_stores && threadIdx.x % 128 == 0) bulk_wait_group_all();
}
#endif

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// The 64-column boxes of an M- or N-major operand tile that hold columns below `extent`: boxes wholly
// past it are not loaded (their outputs are never stored, and an output reads only its own column of
// A or B), so the stage expects fewer bytes.
__device__ __forceinline__ int live_boxes(int width, int first_column, int extent) {
  return max(0, min(width, extent - first_column + kNMajorBoxColumns - 1)) / kNMajorBoxColumns;
}

// dw_gather's producer: all 128 threads of warpgroup 0. Per stage, the 64 reduction rows (tokens
// rows[64 kt + r], +0 past K) of the live boxes of G (A) and X (B), in 16-byte chunks, each written
// where TMA's 128-byte swizzle would put it (chunk c of row r at chunk c ^ (r % 8) of that row's 128
// bytes). Thread t copies chunk t % 8 of rows t / 8 + 16 q (q = 0..3) of every box: a warp's copies
// are 4 whole 128-byte rows (coalesced), and a thread needs only 4 token indices per stage, read a
// stage ahead so that no copy waits for an index load (measured on the H200: with an index load per
// chunk the gather ran at a third of the in-place speed; with one row per thread, uncoalesced, no
// better). The full barrier of a stage expects 128 arrivals, one per thread, which the hardware makes
// once that thread's copies of the stage have landed (cp.async.mbarrier.arrive): a producer never waits
// for its own copies, only for a free stage, so that every stage the consumers are not reading is in
// flight. The consumers fence the stage for the async proxy (wgmma reads through it) after their wait.
// With gather_waits (--wgmma-gather wait, a measurement switch), the earlier scheme: a stage is
// published two stages late, after issuing stage `it` a thread waits for its copies of stage it - 2,
// fences them and arrives; with 4 stages the consumers, waiting on stage it - 2, have released stage
// it - 4, so the producers' wait for it never blocks them.
constexpr int kGatherLag = 2;
// With one wgmma group in flight (the launcher's rule for this scheme) the consumers hold two stages.
static_assert(kGatherLag + 2 <= kStages, "the producers' lag must leave the consumers a stage to release");

__device__ __forceinline__ void publish_gathered_stage(std::uint64_t* full, int stage) {
  sm90::fence_proxy_async_shared();
  sm90::mbarrier_arrive(&full[stage % kStages]);
}

__device__ __forceinline__ void produce_gathered(const KernelArgs& a, std::uint16_t* x_tiles, std::uint16_t* w_tiles,
                                                 std::uint64_t* full, std::uint64_t* empty, int k_tiles,
                                                 unsigned cluster, unsigned clusters) {
  using namespace sm90;
  constexpr int kRowsPerThread = kBK / 16;
  constexpr int kBoxElements = kNMajorBoxColumns * kBK;
  const int chunk = static_cast<int>(threadIdx.x) % 8, first_row = static_cast<int>(threadIdx.x) / 8;
  // The token of row first_row + 16 q of k tile kt, or -1 past K (zero fill).
  auto token_of = [&a, first_row](int kt, int q) {
    const int step = kt * kBK + first_row + 16 * q;
    return step < a.K ? __ldg(a.rows + step) : -1;
  };
  // Where this thread's chunk of its row q lands in every box: the same in every stage and box.
  int dst[kRowsPerThread];
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int r = first_row + 16 * q;
    dst[q] = r * kNMajorBoxColumns + ((chunk ^ (r & 7)) * 8);
  }
  int it = 0;
  for (unsigned u = cluster; u < a.units; u += clusters) {
    const Unit w = unit_at<false, 1>(a, u, 0);
    const int a_boxes = live_boxes(kBM, w.m0, a.M);
    const int b_boxes = live_boxes(w.width, w.n0, a.N);
    // This thread's first column in G and X; M and N are multiples of 8, so a chunk is wholly inside the
    // extent or wholly past it (zero fill).
    const int g_col = w.m0 + chunk * 8, x_col = w.n0 + chunk * 8;
    // A whole 128x256 tile inside the extents: every box is live, and the copies of a row need no check
    // but the row's own (rows past K). Measured on the H200 (ncu source counters): the producers issue
    // all the time, so each instruction per copy counts; these copies are one LDGSTS each.
    const bool whole = w.width == kBN && w.m0 + kBM <= a.M && w.n0 + kBN <= a.N;
    int token[kRowsPerThread];
#pragma unroll
    for (int q = 0; q < kRowsPerThread; ++q) token[q] = token_of(0, q);
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      const int s = it % kStages;
      int next[kRowsPerThread];
#pragma unroll
      for (int q = 0; q < kRowsPerThread; ++q) next[q] = kt + 1 < k_tiles ? token_of(kt + 1, q) : -1;
      if (it >= kStages) mbarrier_wait(&empty[s], static_cast<std::uint32_t>((it / kStages - 1) & 1));
      std::uint16_t* a_stage = x_tiles + s * kBM * kBK;
      std::uint16_t* b_stage = w_tiles + s * kBN * kBK;
      if (whole) {
#pragma unroll
        for (int q = 0; q < kRowsPerThread; ++q) {
          // Past K: row 0's chunks (a valid address), none of it read (zero fill).
          const std::size_t row = static_cast<std::size_t>(max(token[q], 0));
          const int bytes = token[q] >= 0 ? 16 : 0;
          const std::uint16_t* g_src = a.gather_g + row * static_cast<std::size_t>(a.M) + g_col;
          const std::uint16_t* x_src = a.gather_x + row * static_cast<std::size_t>(a.N) + x_col;
#pragma unroll
          for (int j = 0; j < kBM / kNMajorBoxColumns; ++j)
            cp_async_16_zfill(a_stage + j * kBoxElements + dst[q], g_src + j * kNMajorBoxColumns, bytes);
#pragma unroll
          for (int j = 0; j < kBN / kNMajorBoxColumns; ++j)
            cp_async_16_zfill(b_stage + j * kBoxElements + dst[q], x_src + j * kNMajorBoxColumns, bytes);
        }
      }
#pragma unroll
      for (int q = 0; q < kRowsPerThread && !whole; ++q) {
        const bool row_live = token[q] >= 0;
        const std::size_t row = static_cast<std::size_t>(max(token[q], 0));
        const std::uint16_t* g_src = a.gather_g + row * static_cast<std::size_t>(a.M) + g_col;
        const std::uint16_t* x_src = a.gather_x + row * static_cast<std::size_t>(a.N) + x_col;
#pragma unroll
        for (int j = 0; j < kBM / kNMajorBoxColumns; ++j) {
          if (j >= a_boxes) break;
          const bool live = row_live && g_col + j * kNMajorBoxColumns < a.M;
          cp_async_16_zfill(a_stage + j * kBoxElements + dst[q], live ? g_src + j * kNMajorBoxColumns : a.gather_g,
                            live ? 16 : 0);
        }
#pragma unroll
        for (int j = 0; j < kBN / kNMajorBoxColumns; ++j) {
          if (j >= b_boxes) break;
          const bool live = row_live && x_col + j * kNMajorBoxColumns < a.N;
          cp_async_16_zfill(b_stage + j * kBoxElements + dst[q], live ? x_src + j * kNMajorBoxColumns : a.gather_x,
                            live ? 16 : 0);
        }
      }
      if (!a.gather_waits) {
        cp_async_mbarrier_arrive_noinc(&full[s]);
      } else {
        cp_async_commit_group();
        if (it >= kGatherLag) {
          cp_async_wait_group<kGatherLag>();
          publish_gathered_stage(full, it - kGatherLag);
        }
      }
#pragma unroll
      for (int q = 0; q < kRowsPerThread; ++q) token[q] = next[q];
    }
  }
  if (!a.gather_waits) {
    cp_async_wait_all();  // no thread leaves with copies in flight
    return;
  }
  // The last stages still unpublished.
  cp_async_wait_group<0>();
  for (int stage = max(0, it - kGatherLag); stage < it; ++stage) publish_gathered_stage(full, stage);
}
#endif

// map_x and map_w per kOps (see Ops): forward: X [M, K] in boxes of kBM x kBK, W [N, K] in boxes of
// kBN / kCluster (map_w), kHalfBN / kCluster (map_w_half) or kQuarterBN / kCluster (map_w_quarter) rows x
// kBK; dx: G as X, and W [K, N] in boxes of 64 columns x kBK rows; dw: G [K, M] and X [K, N] both in boxes
// of 64 columns x kBK rows; dw_gather: no maps (the operands are in a). map_w_half and map_w_quarter are
// used by the forward only.
template <bool kProbe, int kCluster, Ops kOps, int kRingW = kBN, int kRowsA = kBM, int kSplit = 1>
__global__ void __launch_bounds__(kThreadsFor<kRowsA, kSplit>, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                      const __grid_constant__ CUtensorMap map_w_half, const __grid_constant__ CUtensorMap map_w_quarter,
                      const __grid_constant__ CUtensorMap map_y, const KernelArgs a) {
  // Clusters share W tiles (two blocks, the forward, opt-in) or A tiles (the small-M kernel).
  constexpr bool kSharesA = kRowsA == 64 && kCluster > 1;
  static_assert(kOps == Ops::forward || kCluster == 1 || kSharesA, "only the forward tile shares W in clusters");
  static_assert(kRowsA == kBM || ((kRingW == kQuarterBN || kRingW == kHalfBN ||
                                   (kRingW == kSmallMUnit48 && kOps == Ops::forward)) &&
                                  kQuarters<kOps> && !kProbe && kCluster == kSmallMClusterFor<kRingW>),
                "64-row A tiles: the small-M kernels (quarters or halves, forward or dX, clusters sharing A)");
  static_assert(!kProbe || !kGathered<kOps>, "the probe runs TMA-fed forms only");
  static_assert(kRingW == kBN || (kRingW == kQuarterBN && kQuarters<kOps> && (kCluster == 1 || kSharesA) && !kProbe) ||
                    ((kRingW == kHalfBN || kRingW == kSmallMUnit48) && kSharesA) ||
                    (kRingW == kBN168 && kOps == Ops::forward && kCluster == 1),
                "the quarters' ring runs the forward and dX in single blocks, the 168 ring the forward");
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int kRingStages = Ring<kRingW, kRowsA>::stages;
  using namespace sm90;
  extern __shared__ unsigned char smem_raw[];
  // 128-byte swizzled TMA tiles must start on a 1024-byte boundary.
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t{1023});
  auto* x_tiles = reinterpret_cast<std::uint16_t*>(smem);
  constexpr int kSub = Ring<kRingW, kRowsA>::k_sub, kStageK = Ring<kRingW, kRowsA>::stage_k;
  auto* w_tiles = x_tiles + kRingStages * kRowsA * kStageK;
  auto* staging = reinterpret_cast<unsigned char*>(w_tiles + kRingStages * kRingW * kStageK);  // 1024-byte aligned
  auto* full = reinterpret_cast<std::uint64_t*>(staging + Ring<kRingW, kRowsA>::staging_bytes);
  auto* empty = full + kRingStages;
  const int k_tiles = (a.K + kStageK - 1) / kStageK;  // stages of the reduction per unit
  // Warp-uniform as far as the compiler can tell (a shuffle from lane 0): without it, ptxas treats the
  // consumer branch as divergent and serialises every wgmma (warning C7520).
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 128, 0);
  const unsigned rank = kCluster > 1 ? cluster_ctarank() : 0;
  const unsigned cluster = blockIdx.x / kCluster, clusters = gridDim.x / kCluster;

  // full[s]: the producer's arrival plus the stage's bytes (its own X tile, and the W tile, half of it
  // multicast by the other block), or, gathered, one arrival per producer thread. empty[s]: one arrival
  // per consumer warp of every block in the cluster, since each block's producer writes W into all of them.
  if (threadIdx.x == 0) {
    for (int s = 0; s < kRingStages; ++s) {
      mbarrier_init(&full[s], kGathered<kOps> ? 128 : 1);
      mbarrier_init(&empty[s], kCluster * kConsumersFor<kRowsA, kSplit> * 4);
    }
    fence_barrier_init();
  }
  if constexpr (kCluster > 1)
    cluster_sync();  // every block's barriers are initialised before anyone multicasts into them
  else
    __syncthreads();

  // The ring is shared by all of a block's units: `it` counts k tiles over them, so stage and
  // parity continue across unit boundaries and the producer runs ahead into the next unit while the
  // consumers store the current one.
  if (wg == 0) {  // producer
    if constexpr (kGathered<kOps>) {
      produce_gathered(a, x_tiles, w_tiles, full, empty, k_tiles, cluster, clusters);
    } else if (threadIdx.x == 0) {
      // Only the forward's small-M halves kernel takes L2 hints (launch_gemm); the others compile without
      // them. With the hint branch compiled in (never taken), dX's small-M kernel measured 7-11% slower at
      // M = 64 than without, in one process (evidence/h200-5d57533-small-m-48/).
      const bool hints = kOps == Ops::forward && kRowsA == 64 && kRingW == kHalfBN && a.cache_hints;
      const std::uint64_t policy_a = hints ? l2_policy_evict_last() : 0;
      const std::uint64_t policy_w = hints ? l2_policy_evict_first() : 0;
      static_assert(kSub == 1 || (kSharesA && !kAMMajor<kOps> && !kBNMajor<kOps>),
                    "k sub-tiles: the small-M kernel's K-major A multicast and B");
      int it = 0;
      const unsigned units = cluster_units<kCluster, kRowsA>(a);
      for (unsigned u = cluster; u < units; u += clusters) {
        const Unit w = block_unit<kProbe, kCluster, kRowsA>(a, u, rank);
        const int w_rows = w.width;
        const int slice = w_rows / kCluster;  // the W rows this block loads for the whole cluster
        const int a_boxes = kAMMajor<kOps> ? live_boxes(kBM, w.m0, a.M) : 0;
        const int b_boxes = kBNMajor<kOps> ? live_boxes(w_rows, w.n0, a.N) : 0;
        // Every block receives the whole A tile (with kSharesA, a quarter from each block of the cluster).
        const int a_bytes = kAMMajor<kOps> ? a_boxes * kNMajorBoxColumns * kBK * 2 : kRowsA * kBK * 2;
        const int w_bytes = kBNMajor<kOps> ? b_boxes * kNMajorBoxColumns * kBK * 2 : w_rows * kBK * 2;
        for (int kt = 0; kt < k_tiles; ++kt, ++it) {
          const int s = it % kRingStages;
          if (it >= kRingStages) mbarrier_wait(&empty[s], static_cast<std::uint32_t>((it / kRingStages - 1) & 1));
          // The stage's k sub-tiles that hold any of the reduction (kSub > 1: none wholly past K is loaded).
          const int subs = kSub == 1 ? 1 : min(kSub, (a.K - kt * kStageK + kBK - 1) / kBK);
          mbarrier_arrive_expect_tx(&full[s], static_cast<std::uint32_t>((a_bytes + w_bytes) * subs));
          if constexpr (kAMMajor<kOps>) {
#pragma unroll 1
            for (int j = 0; j < a_boxes; ++j)
              tma_load_2d(x_tiles + s * kBM * kBK + j * kNMajorBoxColumns * kBK, &map_x, &full[s],
                          w.m0 + j * kNMajorBoxColumns, kt * kBK);
          } else if constexpr (kSharesA) {  // map_x has boxes of kRowsA / kCluster rows
            constexpr int kSlice = kRowsA / kCluster;
            const int row = w.m0 + static_cast<int>(rank) * kSlice;
            const auto mask = static_cast<std::uint16_t>((1u << kCluster) - 1);
#pragma unroll
            for (int j = 0; j < kSub; ++j) {
              if (j >= subs) break;
              void* dst = x_tiles + s * kRowsA * kStageK + j * kRowsA * kBK + rank * kSlice * kBK;
              if (hints)
                tma_load_2d_multicast_hint(dst, &map_x, &full[s], kt * kStageK + j * kBK, row, mask, policy_a);
              else
                tma_load_2d_multicast(dst, &map_x, &full[s], kt * kStageK + j * kBK, row, mask);
            }
          } else if (hints) {
            tma_load_2d_hint(x_tiles + s * kRowsA * kBK, &map_x, &full[s], kt * kBK, w.m0, policy_a);
          } else {
            tma_load_2d(x_tiles + s * kRowsA * kBK, &map_x, &full[s], kt * kBK, w.m0);
          }
          // The 168-column kernel's map_w is made with boxes of 168 rows.
          const CUtensorMap* map = kRingW == kBN168 || kRingW == kSmallMUnit48 || w.width == kBN ? &map_w
                                   : w.width == kHalfBN               ? &map_w_half
                                                                      : &map_w_quarter;
          if constexpr (kBNMajor<kOps>) {
#pragma unroll 1
            for (int j = 0; j < b_boxes; ++j)
              tma_load_2d(w_tiles + s * kRingW * kBK + j * kNMajorBoxColumns * kBK, &map_w, &full[s],
                          w.n0 + j * kNMajorBoxColumns, kt * kBK);
          } else if constexpr (kCluster > 1 && !kSharesA) {
            tma_load_2d_multicast(w_tiles + s * kRingW * kBK + rank * slice * kBK, map, &full[s], kt * kBK,
                                  w.n0 + static_cast<int>(rank) * slice,
                                  static_cast<std::uint16_t>((1u << kCluster) - 1));
          } else if (hints) {
            tma_load_2d_hint(w_tiles + s * kRingW * kBK, map, &full[s], kt * kBK, w.n0, policy_w);
          } else {
#pragma unroll
            for (int j = 0; j < kSub; ++j) {
              if (j >= subs) break;
              tma_load_2d(w_tiles + s * kRingW * kStageK + j * kRingW * kBK, map, &full[s], kt * kStageK + j * kBK,
                          w.n0);
            }
          }
        }
      }
    }
    __syncwarp();
  } else {
    consume<kProbe, kCluster, kOps, kRingW, kRowsA, kSplit>(a, x_tiles, w_tiles, staging, &map_y, full, empty, k_tiles,
                                                            wg - 1, rank, cluster, clusters);
  }
  if constexpr (kCluster > 1) cluster_sync();  // no block leaves while another may still signal it
#else
  __trap();  // compiled only for sm_90a; validation never launches this variant elsewhere
#endif
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

// The driver's tensor-map encoder, fetched once through the runtime (no link against libcuda).
EncodeTiled encode_tiled() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return static_cast<EncodeTiled>(nullptr);
    }
    return reinterpret_cast<EncodeTiled>(p);
  }();
  return fn;
}

// A [rows, cols] row-major matrix of `element_bytes`-byte elements as TMA boxes of box_cols x box_rows,
// 128-byte swizzled (or as `swizzle` says); loads fill elements outside it with zeros, stores skip them.
cudaError_t encode_swizzled_map(CUtensorMap* map, CUtensorMapDataType dtype, int element_bytes, const void* base,
                                int rows, int cols, int box_cols, int box_rows, CUtensorMapL2promotion promotion,
                                CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
  const EncodeTiled encode = encode_tiled();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * static_cast<cuuint64_t>(element_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(map, dtype, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// A [rows, cols] row-major bf16 operand as boxes of box_cols x box_rows, promoted to L2 in 256-byte lines.
cudaError_t encode_bf16_map(CUtensorMap* map, const std::uint16_t* base, int rows, int cols, int box_cols,
                            int box_rows) {
  return encode_swizzled_map(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, rows, cols, box_cols, box_rows,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

// The output Y [rows, cols] (FP32, or BF16 with kBf16) as the staging boxes of the kernel of unit width
// kRingW (StoreBox): the TMA stores of store_staged. TMA needs a 16-byte aligned base and row stride (cols % 4
// == 0 for FP32, cols % 8 == 0 for BF16); the caller checks.
template <int kRingW, bool kBf16>
cudaError_t make_store_map(CUtensorMap* map, const void* y, int rows, int cols) {
  using Box = StoreBox<kRingW, kBf16>;
  return encode_swizzled_map(map, kBf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                             kBf16 ? 2 : 4, y, rows, cols, Box::columns, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                             Box::swizzled ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE);
}

// A K-major operand: a [rows, K] row-major bf16 matrix as boxes of box_rows x 64 (k).
cudaError_t make_map(CUtensorMap* map, const std::uint16_t* base, int rows, int K, int box_rows) {
  return encode_bf16_map(map, base, rows, K, kBK, box_rows);
}

// An M- or N-major operand (dX's W, dW's G and X): a [rows (reduced), cols (output)] row-major bf16
// matrix as boxes of 64 columns x kBK rows, the tile smem_desc_n_major_sw128 describes.
cudaError_t make_n_major_map(CUtensorMap* map, const std::uint16_t* base, int rows, int cols) {
  return encode_bf16_map(map, base, rows, cols, kNMajorBoxColumns, kBK);
}

// The attribute belongs to the kernel on one device: set once per device (a campaign runs workers on
// several GPUs of one process), under a lock (and several workers per GPU).
template <bool kProbe, int kCluster, Ops kOps, int kRingW = kBN, int kRowsA = kBM, int kSplit = 1>
cudaError_t set_smem_attribute() {
  static std::mutex mutex;
  static bool done[64] = {};
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(mutex);
  if (device < 64 && done[device]) return cudaSuccess;
  e = cudaFuncSetAttribute(wgmma_gemm_kernel<kProbe, kCluster, kOps, kRingW, kRowsA, kSplit>,
                           cudaFuncAttributeMaxDynamicSharedMemorySize, Ring<kRingW, kRowsA>::smem_bytes);
  if (e == cudaSuccess && device < 64) done[device] = true;
  return e;
}

// Launch configuration with clusters of kCluster blocks.
template <int kCluster, int kRingW = kBN, int kRowsA = kBM, int kSplit = 1>
cudaLaunchConfig_t cluster_config(unsigned blocks, cudaStream_t stream, cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kThreadsFor<kRowsA, kSplit>);
  config.dynamicSmemBytes = Ring<kRingW, kRowsA>::smem_bytes;
  config.stream = stream;
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = kCluster;
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

// How many clusters of kCluster blocks the current device holds at once (one block per SM).
template <int kCluster, Ops kOps, int kRingW = kBN, int kRowsA = kBM, int kSplit = 1>
cudaError_t resident_clusters(int* clusters) {
  static std::mutex mutex;
  static int cached[64] = {};
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(mutex);
  if (device < 64 && cached[device] > 0) {
    *clusters = cached[device];
    return cudaSuccess;
  }
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config<kCluster, kRingW, kRowsA, kSplit>(kCluster, nullptr, &attribute);
  e = cudaOccupancyMaxActiveClusters(clusters, wgmma_gemm_kernel<false, kCluster, kOps, kRingW, kRowsA, kSplit>,
                                     &config);
  if (e != cudaSuccess) return e;
  if (*clusters < 1) return cudaErrorInvalidConfiguration;
  if (device < 64) cached[device] = *clusters;
  return cudaSuccess;
}

// One GEMM through the tile: Y [M, N] (f32, or bf16 when y_bf16 is set) = A B (+ bias), the operands
// as kOps says (Ops), maps already made (none for dw_gather, whose operands are in gather_*).
struct GemmCall {
  const char* variant;  // for LaunchOptions::trace_launch
  CUtensorMap map_x, map_w, map_w_half, map_w_quarter;
  const float* bias;
  float* y;
  std::uint16_t* y_bf16;
  int M, N, K;
  cudaStream_t stream;
  bool accumulate = false;
  const std::uint16_t* gather_g = nullptr;
  const std::uint16_t* gather_x = nullptr;
  const int* rows = nullptr;
  bool gather_waits = false;  // KernelArgs::gather_waits
  // The forward only: W in boxes of 168 rows, for the 128x168 kernel (wgmma_forward_unit_width).
  bool has_map_w_168 = false;
  CUtensorMap map_w_168{};
  // The forward only: W in boxes of 48 rows, for the small-M kernel's 48-column units.
  bool has_map_w_48 = false;
  CUtensorMap map_w_48{};
  // The forward and dX: A (X or G) in boxes of 64 / kSmallMCluster rows, for the small-M kernel.
  bool has_map_x_slice = false;
  CUtensorMap map_x_slice{};
  // The same in boxes of 32 rows, for the small-M halves kernel (clusters of two).
  bool has_map_x_slice_of_two = false;
  CUtensorMap map_x_slice_of_two{};
  // Y for the general kernel's staged stores (made by launch_gemm where Y allows them).
  bool has_map_y = false;
  CUtensorMap map_y{};
  const LaunchOptions* options = &kDefaultLaunchOptions;  // the caller's, never null
};


// WgmmaKernels::general (--wgmma-kernel general) runs every shape on the general kernel (4-stage ring, 256-column
// units split only in a last wave): a measurement switch for the one-width kernels, which compute the same chains.
bool general_kernel_only(const WgmmaOptions& o) {
  switch (o.kernels) {
    case WgmmaKernels::by_shape:
      return false;
    case WgmmaKernels::general:
      return true;
  }
  return false;
}

// WgmmaStores::direct (--wgmma-stores direct) has every thread store its accumulators in every kernel: a
// measurement switch for the general kernel's staged stores (store_staged), the same bits.
bool direct_stores_only(const WgmmaOptions& o) {
  switch (o.stores) {
    case WgmmaStores::staged:
      return false;
    case WgmmaStores::direct:
      return true;
  }
  return false;
}

// The wgmma groups a consumer leaves in flight (KernelArgs::pending_groups). Measured on the H200 with both
// everywhere (evidence/h200-ebbd76d-pending-groups/): two are faster where the ring has more than four
// stages (the small-M, quarters and 168 kernels: forward M = 64 1.74 -> 1.62x cuBLAS, M = 1024 with the
// 168 kernel 1.23 -> 1.20x, dX M = 64 1.69 -> 1.55x) and in the gathered dW (1.33 -> 1.26x at 1024 tokens,
// 1.54 -> 1.36x at 16384), and slower on the general kernel fed by TMA (forward M = 4096 1.10 -> 1.20x, dW
// in place 1.09 -> 1.17x at 1024 tokens): there the consumers would hold three of its four stages and leave
// the producer one. WgmmaOptions::pending_groups 1 or 2 (--wgmma-pending) sets it everywhere: a measurement
// switch, the same bits.
template <Ops kOps, int kRingW>
int pending_groups(const WgmmaOptions& o) {
  if (o.pending_groups == 1 || o.pending_groups == 2) return o.pending_groups;
  return kRingW != kBN || kGathered<kOps> ? 2 : 1;
}

// Launches the (kRingW, kRowsA) kernel of the tile on `blocks` blocks in clusters of kCluster.
template <int kCluster, Ops kOps, int kRingW, int kRowsA = kBM, int kSplit = 1>
cudaError_t launch_kernel(const GemmCall& c, const CUtensorMap& map_x, const CUtensorMap& map_w, KernelArgs args,
                          unsigned blocks) {
  if constexpr (kRingW != kBN) {
    if (cudaError_t e = set_smem_attribute<false, kCluster, kOps, kRingW, kRowsA, kSplit>()) return e;
  }
  args.staged_stores = Ring<kRingW, kRowsA>::staged_stores && c.has_map_y;
  args.pending_groups = pending_groups<kOps, kRingW>(c.options->wgmma);
  // The waiting gather producers publish a stage kGatherLag k tiles after copying it: with two groups in
  // flight the consumers would hold three of the four stages waiting for one the producers publish only after
  // taking a fourth, a deadlock. So that scheme runs with one.
  if (args.gather_waits) args.pending_groups = 1;
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config<kCluster, kRingW, kRowsA, kSplit>(blocks, c.stream, &attribute);
  const cudaError_t e = cudaLaunchKernelEx(&config, wgmma_gemm_kernel<false, kCluster, kOps, kRingW, kRowsA, kSplit>,
                                           map_x, map_w, c.map_w_half, c.map_w_quarter, c.map_y, args);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the launch's own error, and clears it
  return e;
}

// The small-M kernel of unit width kRingW (quarters or halves): 64-row A tiles shared by clusters of
// kBN / kRingW blocks, kSplit consumer warpgroups per block.
template <Ops kOps, int kRingW, int kSplit>
struct SmallMKernel {
  static constexpr int kClusterSize = kSmallMClusterFor<kRingW>;
  static cudaError_t resident(int* clusters) {
    cudaError_t e = set_smem_attribute<false, kClusterSize, kOps, kRingW, 64, kSplit>();
    if (e == cudaSuccess) e = resident_clusters<kClusterSize, kOps, kRingW, 64, kSplit>(clusters);
    return e;
  }
  static cudaError_t launch(const GemmCall& c, const CUtensorMap& map_x, const KernelArgs& args, unsigned blocks) {
    return launch_kernel<kClusterSize, kOps, kRingW, 64, kSplit>(c, map_x, kRingW == kSmallMUnit48 ? c.map_w_48 : c.map_w,
                                                                 args, blocks);
  }
};
constexpr int kSmallMClusterOf(int width) { return width == kSmallMUnit48 ? 4 : kBN / width; }

// The consumers of a small-M kernel's block: two, on the two column halves of each unit (one 64 x W / 2
// chain block each), where B splits there (dX's N-major B only at whole 64-column boxes: not its quarters);
// otherwise one. WgmmaSmallMConsumers::one (--wgmma-small-m-consumers 1) runs one everywhere: a measurement
// switch, the same bits.
template <Ops kOps>
int small_m_split(int width, const WgmmaOptions& o) {
  switch (o.small_m_consumers) {
    case WgmmaSmallMConsumers::one:
      return 1;
    case WgmmaSmallMConsumers::by_shape:
      break;
  }
  if (width == kSmallMUnit48) return 1;
  return width == kHalfBN || kOps == Ops::forward ? 2 : 1;
}

// Calls f(SmallMKernel<kOps, width, split>{}) for a run-time width (kQuarterBN, kHalfBN, or kSmallMUnit48 for
// the forward) and split.
template <Ops kOps, typename F>
cudaError_t with_small_m(int width, int split, F&& f) {
  if (width == kSmallMUnit48) {
    if constexpr (kOps == Ops::forward) return f(SmallMKernel<kOps, kSmallMUnit48, 1>{});
    return cudaErrorInvalidValue;
  }
  if (width == kHalfBN) return split == 2 ? f(SmallMKernel<kOps, kHalfBN, 2>{}) : f(SmallMKernel<kOps, kHalfBN, 1>{});
  if constexpr (kOps == Ops::forward)
    if (split == 2) return f(SmallMKernel<kOps, kQuarterBN, 2>{});
  return f(SmallMKernel<kOps, kQuarterBN, 1>{});
}

template <int kCluster, Ops kOps>
cudaError_t launch_gemm(GemmCall c) {
  cudaError_t e = set_smem_attribute<false, kCluster, kOps>();
  int clusters = 0;
  if (e == cudaSuccess) e = resident_clusters<kCluster, kOps>(&clusters);
  if (e != cudaSuccess) return e;
  KernelArgs args{};
  args.bias = c.bias;
  args.y = c.y;
  args.y_bf16 = c.y_bf16;
  args.M = c.M;
  args.N = c.N;
  args.K = c.K;
  args.accumulate = c.accumulate;
  args.gather_g = c.gather_g;
  args.gather_x = c.gather_x;
  args.rows = c.rows;
  args.gather_waits = c.gather_waits;
  args.tiles_m = static_cast<unsigned>(ceil_div(c.M, kBM));
  const WgmmaOptions& options = c.options->wgmma;
  const bool general_only = general_kernel_only(options);
  args.unit_n = kBN;
  if constexpr (kCluster == 1 && kOps == Ops::forward)
    if (c.has_map_w_168 && !general_only) args.unit_n = static_cast<int>(wgmma_forward_unit_width(c.M, c.N, clusters));
  args.tiles_n = static_cast<unsigned>(ceil_div(c.N, args.unit_n));
  // Staged stores (the general and 168 kernels) need a Y with a 16-byte aligned base and rows (TMA: N % 4 == 0
  // for FP32, N % 8 == 0 for BF16); otherwise direct stores.
  c.has_map_y = false;
  if (!direct_stores_only(options)) {
    const bool unit_168 = args.unit_n == kBN168;
    if (c.y != nullptr && c.y_bf16 == nullptr && c.N % 4 == 0 && reinterpret_cast<std::uintptr_t>(c.y) % 16 == 0)
      c.has_map_y = (unit_168 ? make_store_map<kBN168, false>(&c.map_y, c.y, c.M, c.N)
                              : make_store_map<kBN, false>(&c.map_y, c.y, c.M, c.N)) == cudaSuccess;
    if (c.y_bf16 != nullptr && c.N % 8 == 0 && reinterpret_cast<std::uintptr_t>(c.y_bf16) % 16 == 0)
      c.has_map_y = (unit_168 ? make_store_map<kBN168, true>(&c.map_y, c.y_bf16, c.M, c.N)
                              : make_store_map<kBN, true>(&c.map_y, c.y_bf16, c.M, c.N)) == cudaSuccess;
  }
  const std::uintptr_t y_address =
      c.y_bf16 != nullptr ? reinterpret_cast<std::uintptr_t>(c.y_bf16) : reinterpret_cast<std::uintptr_t>(c.y);
  args.paired_stores = c.N % 2 == 0 && y_address % (c.y_bf16 != nullptr ? 4 : 8) == 0;
  // A unit is a column of kCluster tiles, one per block of a cluster (wgmma_schedule: when the last
  // wave is at most half full, its units are split in halves).
  const std::int64_t units_whole = ceil_div(args.tiles_m, kCluster) * std::int64_t{args.tiles_n};
  const WgmmaSchedule schedule = args.unit_n == kBN ? wgmma_schedule(units_whole, clusters, kQuarters<kOps> ? 4 : 2)
                                                    : WgmmaSchedule{units_whole, units_whole, 1};
  if (schedule.units > UINT32_MAX) return cudaErrorInvalidConfiguration;
  args.full_units = static_cast<unsigned>(schedule.full_units);
  args.pieces = static_cast<int>(schedule.pieces);
  args.units = static_cast<unsigned>(schedule.units);
  std::int64_t units = schedule.units;
  const bool split = schedule.units != schedule.full_units;
  args.scale_d_first = 1;
  auto blocks = static_cast<unsigned>(std::min<std::int64_t>(units, clusters) * kCluster);
  // Every unit a quarter: the kernel with the quarters' deeper ring (Ring). With M <= 64 and every unit a
  // quarter or every unit a half, a small-M kernel (64-row A tiles shared by the blocks of a cluster, Ring<64,
  // 64> or Ring<128, 64>) with one or two consumers per block (small_m_consumers).
  const bool pieces_only = kCluster == 1 && kQuarters<kOps> && !general_only && schedule.full_units == 0 && split;
  const bool quarters_ring = pieces_only && schedule.pieces == 4;
  int small_m_width = 0;  // the small-M kernel's unit width, 0 where none runs
  if (pieces_only && c.M <= 64) {
    if (schedule.pieces == 4 && c.has_map_x_slice) small_m_width = kQuarterBN;
    if (schedule.pieces == 2 && c.has_map_x_slice_of_two) small_m_width = kHalfBN;
  }
  // The forward's quarters with M <= 64 run as units of 48 columns where those put more blocks on the GPU in one
  // round (wgmma_small_m_unit_width: M = 64 with N = 5376 is 112 blocks against 84). WgmmaSmallMWidth::quarters
  // (--wgmma-small-m-width 64) keeps the quarters (a measurement switch, the same bits). Units past N (rounding up
  // to whole clusters of four) load zeros and store nothing.
  if constexpr (kCluster == 1 && kOps == Ops::forward) {
    if (small_m_width == kQuarterBN && c.has_map_w_48 && options.small_m_width == WgmmaSmallMWidth::by_shape) {
      int clusters_48 = 0;
      if (SmallMKernel<kOps, kSmallMUnit48, 1>::resident(&clusters_48) == cudaSuccess) {
        const std::int64_t units_48 = wgmma_small_m_units_48(c.N);
        if (wgmma_small_m_unit_width(c.N, clusters_48) == kSmallMUnit48) {
          small_m_width = kSmallMUnit48;
          args.unit_n = kSmallMUnit48;
          args.tiles_n = static_cast<unsigned>(ceil_div(c.N, kSmallMUnit48));
          args.full_units = args.units = static_cast<unsigned>(units_48);
          args.pieces = 1;
          units = units_48;
        }
      } else {
        (void)cudaGetLastError();
      }
    }
  }
  const int consumers = small_m_width == 0 ? 0 : small_m_split<kOps>(small_m_width, options);
  int launch_cluster = kCluster, resident = clusters;
  if constexpr (kCluster == 1 && kQuarters<kOps>) {
    if (small_m_width != 0) {
      // A device (or a partition of one) where no such cluster fits runs the quarters kernel or the general one.
      int small_m_clusters = 0;
      e = with_small_m<kOps>(small_m_width, consumers,
                             [&](auto kernel) { return decltype(kernel)::resident(&small_m_clusters); });
      if (e == cudaSuccess) {
        launch_cluster = kSmallMClusterOf(small_m_width);
        resident = small_m_clusters;
        // units is a multiple of the cluster (every tile's quarters or halves): a cluster's unit is a tile.
        blocks = static_cast<unsigned>(std::min<std::int64_t>(units / launch_cluster, resident) * launch_cluster);
      } else {
        (void)cudaGetLastError();
        small_m_width = 0;
      }
    }
  }
  // L2 policies (KernelArgs::cache_hints). In a small-M kernel each B tile is read by one block, once per
  // launch; where B is larger than L2 it streams from HBM whatever the policy, and evict_first keeps it from
  // pushing out the A tile every cluster reads (the forward: dX's N-major B loads take no hint, and the A
  // hint alone is not measured to help). Measured on the H200 (evidence/h200-dda99b5-small-m-bf16-staged/):
  // forward 64 x 16128 x 5376 1.07 -> 0.99x cuBLAS. Where B fits in L2 and stays there between calls
  // (64 x 5376 x 4096, warm) evict_first cost 1.80 -> 2.04x, and on the general kernel, whose B tiles serve
  // every tile row, 1.11 -> 1.15x at 4096 x 5376 x 5376 (measured with hints in every kernel). So only the
  // forward's small-M halves kernel takes them, the one kernel measured faster with them;
  // WgmmaCacheHints::off|on (--wgmma-cache-hints 0|1) turns them off or on there whatever the size of B (a
  // measurement switch, the same bits).
  if (kOps == Ops::forward && small_m_width == kHalfBN) {
    switch (options.cache_hints) {
      case WgmmaCacheHints::on:
        args.cache_hints = true;
        break;
      case WgmmaCacheHints::off:
        break;
      case WgmmaCacheHints::by_size: {
        int device = 0, l2_bytes = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device))
          (void)cudaGetLastError();
        args.cache_hints = static_cast<std::int64_t>(c.N) * c.K * 2 > l2_bytes;  // B streams from HBM anyway
        break;
      }
    }
  }
  const int ring_stages = args.unit_n == kBN168            ? Ring<kBN168>::stages
                          : small_m_width == kQuarterBN    ? Ring<kQuarterBN, 64>::stages
                          : small_m_width == kHalfBN       ? Ring<kHalfBN, 64>::stages
                          : small_m_width == kSmallMUnit48 ? Ring<kSmallMUnit48, 64>::stages
                          : quarters_ring                  ? Ring<kQuarterBN>::stages
                                                           : Ring<kBN>::stages;
  if (c.options->trace_launch)
    std::fprintf(stderr,
                 "ordo: %s M=%d N=%d K=%d (K reduced): clusters of %d, %d resident, %u blocks, %u units of %d columns "
                 "(%u whole, %s, ring of %d stages%s, %s stores%s)\n",
                 c.variant, c.M, c.N, c.K, launch_cluster, resident, blocks, args.units, args.unit_n, args.full_units,
                 !split                     ? "no split"
                 : schedule.full_units == 0 ? (schedule.pieces == 4 ? "every tile in quarters" : "every tile in halves")
                 : schedule.pieces == 4     ? "last wave in quarters"
                                            : "last wave in halves",
                 ring_stages,
                 small_m_width == 0 ? ""
                 : consumers == 2   ? ", 64-row A tiles shared by the cluster, two consumers on column halves"
                                    : ", 64-row A tiles shared by the cluster, one consumer",
                 c.has_map_y && small_m_width == 0 && !quarters_ring ? "staged" : "direct",
                 args.cache_hints ? ", L2 evict_last for A, evict_first for B" : "");
  if constexpr (kCluster == 1 && kOps == Ops::forward)
    if (args.unit_n == kBN168) return launch_kernel<1, kOps, kBN168>(c, c.map_x, c.map_w_168, args, blocks);
  if constexpr (kCluster == 1 && kQuarters<kOps>) {
    if (small_m_width != 0)
      return with_small_m<kOps>(small_m_width, consumers, [&](auto kernel) {
        return decltype(kernel)::launch(c, small_m_width == kHalfBN ? c.map_x_slice_of_two : c.map_x_slice, args,
                                        blocks);
      });
    if (quarters_ring) return launch_kernel<1, kOps, kQuarterBN>(c, c.map_x, c.map_w, args, blocks);
  }
  return launch_kernel<kCluster, kOps, kBN>(c, c.map_x, c.map_w, args, blocks);
}

template <int kCluster>
cudaError_t launch_forward(const LaunchParams& p) {
  GemmCall c{"sm90.fwd.bf16.wgmma.128x256x64", {}, {}, {}, {}, p.bias, p.y, p.y_bf16, p.M, p.N, p.K, p.stream};
  c.options = p.options;
  // Each block of a cluster loads 1/kCluster of the W tile's rows for all of them.
  cudaError_t e = make_map(&c.map_x, p.x_bf16, p.M, p.K, kBM);
  if (e == cudaSuccess) e = make_map(&c.map_w, p.w_bf16, p.N, p.K, kBN / kCluster);
  if (e == cudaSuccess) e = make_map(&c.map_w_half, p.w_bf16, p.N, p.K, kHalfBN / kCluster);
  if (e == cudaSuccess) e = make_map(&c.map_w_quarter, p.w_bf16, p.N, p.K, kQuarterBN / kCluster);
  if (kCluster == 1 && e == cudaSuccess) {
    e = make_map(&c.map_w_168, p.w_bf16, p.N, p.K, kBN168);
    c.has_map_w_168 = e == cudaSuccess;
    if (e == cudaSuccess) e = make_map(&c.map_w_48, p.w_bf16, p.N, p.K, kSmallMUnit48);
    c.has_map_w_48 = e == cudaSuccess;
  }
  if (kCluster == 1 && e == cudaSuccess) {
    e = make_map(&c.map_x_slice, p.x_bf16, p.M, p.K, 64 / kSmallMCluster);
    c.has_map_x_slice = e == cudaSuccess;
    if (e == cudaSuccess) e = make_map(&c.map_x_slice_of_two, p.x_bf16, p.M, p.K, 64 / 2);
    c.has_map_x_slice_of_two = e == cudaSuccess;
  }
  if (e != cudaSuccess) return e;
  return launch_gemm<kCluster, Ops::forward>(c);
}

}  // namespace

// Single blocks by default. WgmmaOptions::cluster = 2 runs clusters of two blocks sharing W tiles through
// TMA multicast: the same bits (each output is still one block's chain over all of K; verified on an
// H200) at the same speed within 3% there (evidence/h200-17fe256-wgmma-uniform), so it stays
// an opt-in.
cudaError_t launch_fwd_bf16_wgmma_128x256x64(const LaunchParams& p) {
  if (p.options->wgmma.cluster == kTwoBlockCluster) return launch_forward<kTwoBlockCluster>(p);
  return launch_forward<1>(p);
}

// dX [M, K] = G [M, N] W [N, K]: the tile's (M, N, K) are (M, K, N); G is the K-major A as X is in
// the forward, W the N-major B. No bias, an FP32 output, single blocks.
cudaError_t launch_bwd_dx_bf16_wgmma_128x256x64(const BackwardDataLaunch& p) {
  GemmCall c{"sm90.bwd.dx.bf16.wgmma.128x256x64", {}, {}, {}, {}, nullptr, p.dx, nullptr, p.M, p.K, p.N, p.stream};
  c.options = p.options;
  cudaError_t e = make_map(&c.map_x, p.g_bf16, p.M, p.N, kBM);
  if (e == cudaSuccess) e = make_map(&c.map_x_slice, p.g_bf16, p.M, p.N, 64 / kSmallMCluster);
  c.has_map_x_slice = e == cudaSuccess;
  if (e == cudaSuccess) e = make_map(&c.map_x_slice_of_two, p.g_bf16, p.M, p.N, 64 / 2);
  c.has_map_x_slice_of_two = e == cudaSuccess;
  if (e == cudaSuccess) e = make_n_major_map(&c.map_w, p.w_bf16, p.N, p.K);
  if (e != cudaSuccess) return e;
  c.map_w_half = c.map_w_quarter = c.map_w;
  return launch_gemm<1, Ops::dx>(c);
}

// Which dW kernel runs: the bits are the same (every chain starts at +0, or at dW with accumulate, and runs
// over the same tokens in the same order), only the speed differs. Without accumulate, the pipelined kernel
// (no start-value load, so ptxas keeps its wgmma pipeline) at every token count. With the stores of the
// general kernel staged through shared memory (1882189) it measured as fast as the kernel that loads start
// values at 64 tokens and faster from 256 tokens, in place and gathered (evidence/
// h200-1882189-staged-stores/sweep/: 1024 x 5376 x 5376, 1.21 -> 1.08x cuBLAS in place, 1.35 -> 1.23x
// gathered). With per-thread stores it had been slower below 4096 tokens (evidence/h200-f7576d5-dw-split/:
// 64 tokens 1.27 -> 1.76x), which was the rule until then.
// WgmmaDwKernel::serial (--wgmma-dw serial) runs the start-value kernel from +0 too: a measurement switch, the
// same bits.
bool pipelined_dw(bool accumulate, const WgmmaOptions& o) {
  if (accumulate) return false;
  switch (o.dw) {
    case WgmmaDwKernel::by_accumulate:
      return true;
    case WgmmaDwKernel::serial:
      return false;
  }
  return true;
}

// How the gathered dW runs, WgmmaGather (--wgmma-gather), a measurement switch (the same bits): `wait` runs the
// earlier producers, which wait for their own copies two stages late, always in the kernel that can load
// start values; `serial` the producers that do not wait, in that kernel; `no_wait` (the default), those
// producers with the pipelined kernel without accumulate, as in place (pipelined_dw).
bool gather_pipelined(bool accumulate, const WgmmaOptions& o) {
  switch (o.gather) {
    case WgmmaGather::no_wait:
      return pipelined_dw(accumulate, o);
    case WgmmaGather::serial:
    case WgmmaGather::wait:
      return false;
  }
  return false;
}

// dW [N, K] = G^T X over the R active tokens: the tile's (M, N, K) are (N, K, R); G [T, N] is the
// M-major A and X [T, K] the N-major B, read in place by TMA (rows 0..R-1, R = T) or, with p.rows,
// gathered token by token. Then db by the BF16 baseline's db kernel (the same chain of single additions).
cudaError_t launch_bwd_dw_bf16_wgmma_128x256x64(const BackwardWeightLaunch& p) {
  // No active token with accumulate: every chain is its start value, dW and db as they are. Without
  // accumulate, chains of no step: +0 everywhere (all-zero bits), and db's kernel writes its +0 too.
  if (p.R == 0 && p.accumulate) return cudaSuccess;
  cudaError_t e = cudaSuccess;
  if (p.R == 0) {
    e = cudaMemsetAsync(p.dw, 0, static_cast<size_t>(p.N) * static_cast<size_t>(p.K) * sizeof(float), p.stream);
  } else {
    GemmCall c{"sm90.bwd.dw.bf16.wgmma.128x256x64", {}, {}, {}, {}, nullptr, p.dw, nullptr, p.N, p.K, p.R, p.stream};
    c.options = p.options;
    c.accumulate = p.accumulate;
    const WgmmaOptions& options = p.options->wgmma;
    if (p.rows != nullptr) {
      c.gather_g = p.g_bf16;
      c.gather_x = p.x_bf16;
      c.rows = p.rows;
      c.gather_waits = options.gather == WgmmaGather::wait;
      e = gather_pipelined(p.accumulate, options) ? launch_gemm<1, Ops::dw_gather_pipelined>(c)
                                                  : launch_gemm<1, Ops::dw_gather>(c);
    } else {
      e = make_n_major_map(&c.map_x, p.g_bf16, p.R, p.N);
      if (e == cudaSuccess) e = make_n_major_map(&c.map_w, p.x_bf16, p.R, p.K);
      c.map_w_half = c.map_w_quarter = c.map_w;
      if (e == cudaSuccess)
        e = pipelined_dw(p.accumulate, options) ? launch_gemm<1, Ops::dw_pipelined>(c) : launch_gemm<1, Ops::dw>(c);
    }
  }
  if (e == cudaSuccess && p.db != nullptr) e = launch_bwd_db_bf16(p);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}

}  // namespace detail

namespace {

struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
};

Status cuda_status(cudaError_t e, const char* what) {
  return Status::error(StatusCode::launch_failed,
                       std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

}  // namespace

namespace {

template <detail::Ops kOps, int kRingW = detail::kBN>
cudaError_t launch_probe(const CUtensorMap& map_a, const CUtensorMap& map_b, const CUtensorMap& map_b_half,
                         const CUtensorMap& map_b_quarter, const detail::KernelArgs& args, int tiles) {
  if (cudaError_t e = detail::set_smem_attribute<true, 1, kOps, kRingW>()) return e;
  detail::wgmma_gemm_kernel<true, 1, kOps, kRingW>
      <<<static_cast<unsigned>(tiles), detail::kThreads, detail::Ring<kRingW>::smem_bytes>>>(map_a, map_b, map_b_half,
                                                                                             map_b_quarter,
                                                                                             map_b_quarter, args);
  return cudaGetLastError();
}

}  // namespace

const char* wgmma_form_name(WgmmaForm form) {
  switch (form) {
    case WgmmaForm::n256_b_k_major:
      return "wgmma.mma_async.m64n256k16.bf16, B K-major";
    case WgmmaForm::n128_b_k_major:
      return "wgmma.mma_async.m64n128k16.bf16, B K-major";
    case WgmmaForm::n256_b_n_major:
      return "wgmma.mma_async.m64n256k16.bf16, B N-major (imm-trans-b)";
    case WgmmaForm::n128_b_n_major:
      return "wgmma.mma_async.m64n128k16.bf16, B N-major (imm-trans-b)";
    case WgmmaForm::n256_a_m_major_b_n_major:
      return "wgmma.mma_async.m64n256k16.bf16, A M-major, B N-major (imm-trans-a, imm-trans-b)";
    case WgmmaForm::n128_a_m_major_b_n_major:
      return "wgmma.mma_async.m64n128k16.bf16, A M-major, B N-major (imm-trans-a, imm-trans-b)";
    case WgmmaForm::n64_b_k_major:
      return "wgmma.mma_async.m64n64k16.bf16, B K-major";
    case WgmmaForm::n64_b_n_major:
      return "wgmma.mma_async.m64n64k16.bf16, B N-major (imm-trans-b)";
    case WgmmaForm::n168_b_k_major:
      return "wgmma.mma_async.m64n168k16.bf16, B K-major";
    case WgmmaForm::n32_b_k_major:
      return "wgmma.mma_async.m64n32k16.bf16, B K-major";
    case WgmmaForm::n48_b_k_major:
      return "wgmma.mma_async.m64n48k16.bf16, B K-major";
  }
  return "?";
}

Status run_bf16_wgmma_tiles(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                            const std::vector<float>& c, std::vector<float>& d, int tiles, bool accumulator_disabled,
                            WgmmaForm form) {
  const bool m_major = form == WgmmaForm::n256_a_m_major_b_n_major || form == WgmmaForm::n128_a_m_major_b_n_major;
  const bool n_major = m_major || form == WgmmaForm::n256_b_n_major || form == WgmmaForm::n128_b_n_major ||
                       form == WgmmaForm::n64_b_n_major;
  const bool half = form == WgmmaForm::n128_b_k_major || form == WgmmaForm::n128_b_n_major ||
                    form == WgmmaForm::n128_a_m_major_b_n_major;
  const bool quarter = form == WgmmaForm::n64_b_k_major || form == WgmmaForm::n64_b_n_major;
  const bool n168 = form == WgmmaForm::n168_b_k_major;  // the forward's 128x168 kernel, B in boxes of 168 rows
  const bool n32 = form == WgmmaForm::n32_b_k_major;    // the small-M kernel's column halves, B in boxes of 32 rows
  const bool n48 = form == WgmmaForm::n48_b_k_major;    // the small-M kernel's 48-column units, B in boxes of 48 rows
  const size_t n = static_cast<size_t>(tiles) * 256;
  if (tiles <= 0 || a.size() != n || bt.size() != n || c.size() != n)
    return Status::error(StatusCode::inconsistent_size, "probe tiles: every operand must hold tiles * 256 values");
  int device = 0, major = 0;
  cudaError_t e;
  if ((e = cudaGetDevice(&device)) || (e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device))) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device, cudaGetErrorString(e));
  }
  int minor = 0;
  if ((e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device))) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device, cudaGetErrorString(e));
  }
  if (major * 10 + minor != 90)
    return Status::error(StatusCode::unsupported_device,
                         "wgmma is an sm_90a instruction; this device is sm_" + std::to_string(major * 10 + minor));
  DeviceBuffer da, db, dc, dd;
  if ((e = cudaMalloc(&da.p, n * 2)) || (e = cudaMalloc(&db.p, n * 2)) || (e = cudaMalloc(&dc.p, n * 4)) ||
      (e = cudaMalloc(&dd.p, n * 4)))
    return cuda_status(e, "cudaMalloc");
  const int rows = tiles * 16;
  // An N-major B is B itself, [16 k][rows n] row-major: B^T's rows become columns.
  // An M-major A likewise: A^T, [16 k][rows m].
  auto transposed = [rows, n](const std::vector<std::uint16_t>& v) {
    std::vector<std::uint16_t> t(n);
    for (int j = 0; j < rows; ++j)
      for (int k = 0; k < 16; ++k) t[static_cast<size_t>(k) * rows + j] = v[static_cast<size_t>(j) * 16 + k];
    return t;
  };
  const std::vector<std::uint16_t> b_n_major = n_major ? transposed(bt) : std::vector<std::uint16_t>();
  const std::vector<std::uint16_t> a_m_major = m_major ? transposed(a) : std::vector<std::uint16_t>();
  if ((e = cudaMemcpy(da.p, m_major ? a_m_major.data() : a.data(), n * 2, cudaMemcpyHostToDevice)) ||
      (e = cudaMemcpy(db.p, n_major ? b_n_major.data() : bt.data(), n * 2, cudaMemcpyHostToDevice)) ||
      (e = cudaMemcpy(dc.p, c.data(), n * 4, cudaMemcpyHostToDevice)) || (e = cudaMemset(dd.p, 0xA5, n * 4)))
    return cuda_status(e, "cudaMemcpy");
  CUtensorMap map_a, map_b, map_b_half, map_b_quarter;
  const auto* b = static_cast<const std::uint16_t*>(db.p);
  const auto* a_dev = static_cast<const std::uint16_t*>(da.p);
  if ((e = m_major ? detail::make_n_major_map(&map_a, a_dev, 16, rows)
                   : detail::make_map(&map_a, a_dev, rows, 16, detail::kBM)) ||
      (e = n_major ? detail::make_n_major_map(&map_b, b, 16, rows)
                   : detail::make_map(&map_b, b, rows, 16, n168 ? detail::kBN168 : detail::kBN)) ||
      (e = n_major ? detail::make_n_major_map(&map_b_half, b, 16, rows)
                   : detail::make_map(&map_b_half, b, rows, 16, detail::kHalfBN)) ||
      (e = n_major ? detail::make_n_major_map(&map_b_quarter, b, 16, rows)
                   : detail::make_map(&map_b_quarter, b, rows, 16,
                                      n32 ? detail::kQuarterBN / 2 : n48 ? detail::kSmallMUnit48 : detail::kQuarterBN)))
    return cuda_status(e, "cuTensorMapEncodeTiled");
  detail::KernelArgs args{};
  args.M = rows;
  args.N = rows;
  args.K = 16;
  args.full_units = static_cast<unsigned>(tiles);
  args.units = static_cast<unsigned>(tiles);
  args.probe_c = static_cast<const float*>(dc.p);
  args.probe_d = static_cast<float*>(dd.p);
  args.scale_d_first = accumulator_disabled ? 0 : 1;
  args.probe_width = n32       ? detail::kQuarterBN / 2
                     : n48     ? detail::kSmallMUnit48
                     : quarter ? detail::kQuarterBN
                     : half    ? detail::kHalfBN
                     : n168    ? detail::kBN168
                               : detail::kBN;
  e = n168 ? launch_probe<detail::Ops::forward, detail::kBN168>(map_a, map_b, map_b_half, map_b_quarter, args, tiles)
      : m_major ? launch_probe<detail::Ops::dw>(map_a, map_b, map_b_half, map_b_quarter, args, tiles)
      : n_major ? launch_probe<detail::Ops::dx>(map_a, map_b, map_b_half, map_b_quarter, args, tiles)
                : launch_probe<detail::Ops::forward>(map_a, map_b, map_b_half, map_b_quarter, args, tiles);
  if (e || (e = cudaDeviceSynchronize())) return cuda_status(e, "wgmma probe kernel");
  d.resize(n);
  if ((e = cudaMemcpy(d.data(), dd.p, n * 4, cudaMemcpyDeviceToHost))) return cuda_status(e, "cudaMemcpy");
  return Status::success();
}

}  // namespace ordo::kernels
