// Production kernel of contract fwd.f32.fma-chain/1: variant "sm80.fwd.f32.fma.simt.by-shape".
//
// One SIMT kernel template, instantiated for a table of block tiles, and a rule that picks the tile from
// the problem's shape (choose_by_shape_tile). Under the contract every output is one whole chain, so the
// tile decides only which thread runs which chains and how operands reach it, never a bit of the result:
// a row's output is the same whichever tile ran it (the batch-invariance property checks this across
// the rule's switch points).
//
// Structure of a tile <BM, BN, TM, TN, BK, STAGES>
//   * A block computes BM x BN outputs with (BM/TM) x (BN/TN) threads; a thread owns TM x TN chains, rows
//     ty + i*(BM/TM) and columns tx + j*(BN/TN) of the block tile (tx fastest), so a warp's output stores
//     are contiguous and its shared loads are broadcasts (X) or distinct bank groups (W).
//   * Both operands are staged in shared memory as they lie in global memory, reduction-contiguous:
//     Xs[row][k] and Ws[col][k], each row padded to BK + 4 floats (a row starts 4 banks after the one
//     before, so eight consecutive rows read as float4 hit eight distinct 4-bank groups).
//   * A ring of STAGES slabs filled by cp.async (16-byte copies when K % 4 == 0 and both operands are
//     16-byte aligned, 4-byte copies otherwise): slab s + STAGES - 1 is in flight while slab s is
//     computed, which hides the L2 / HBM latency behind STAGES - 1 slabs of FMAs. One barrier per slab:
//     the buffer refilled at slab s was last read at slab s - 1, before that barrier.
//   * Per 4 k-steps a thread reads TM + TN float4s and issues 4 * TM * TN FMAs.
//
// Arithmetic (the contract): acc = +0; for k ascending: acc = __fmaf_rn(X[m,k], W[n,k], acc); then
// y = __fadd_rn(acc, b[n]) when there is a bias. The last slab runs only its k < K steps (no padded
// steps at all, so no pad value can touch a signed zero); rows past M or N are zero-filled and their
// outputs are not stored. Compiled with --fmad=false, without fast-math.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cp_async.cuh"
#include "kernels/forward_internal.h"

namespace ordo::kernels::detail {
namespace {

struct ByShapeArgs {
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  int M, N, K;
  unsigned tiles_n;
};

template <int BM, int BN, int TM, int TN, int BK, int STAGES>
struct Tile {
  static constexpr int kThreadsN = BN / TN;
  static constexpr int kThreads = (BM / TM) * kThreadsN;
  static constexpr int kLd = BK + 4;  // padded row of a staged slab, in floats
  static constexpr int kStageFloats = (BM + BN) * kLd;
  static constexpr int kSharedBytes = STAGES * kStageFloats * 4;
  static_assert(BM % TM == 0 && BN % TN == 0, "the micro-tile divides the block tile");
  static_assert(BK % 4 == 0 && kLd % 4 == 0, "float4 reads of the staged rows");
  static_assert(kThreads >= 32 && kThreads <= 256, "one to eight warps");
  static_assert(kThreads % 32 == 0, "whole warps");
  static_assert(kSharedBytes <= 48 * 1024, "static shared memory");
  static_assert(STAGES >= 2, "a ring of at least two slabs");
};

// The copies of one thread into a slab, set up once: 16-byte copies (K % 4 == 0, 16-byte aligned operands)
// each with its source row pointer, its place in a stage and its k offset in the slab; per slab only the
// k bound and the pointer's advance are computed, so the loader costs a few instructions per copy. A copy
// whose row is past M or N, whose k is past K, or whose slab is past the last one zero-fills its bytes
// (they are never read as terms: the last slab runs only its real steps, and a slab past the last one
// fills a buffer that no later slab reads).
template <class T, int BM, int BN, int BK>
struct VecSlabLoader {
  static constexpr int kPerRow = BK / 4;
  static constexpr int kCopies = (BM + BN) * kPerRow;
  static constexpr int kIters = (kCopies + T::kThreads - 1) / T::kThreads;
  const float* src[kIters];
  int dst[kIters], kc[kIters];
  bool live[kIters];   // the copy reads a real row (its k bound is checked per slab)
  bool exists = true;  // the thread's last copy (the others always exist)

  __device__ __forceinline__ VecSlabLoader(const ByShapeArgs& a, int m0, int n0, int tid) {
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int c = it * T::kThreads + tid;
      const int row = c / kPerRow;
      const bool is_x = row < BM;
      const int r = is_x ? row : row - BM;
      const int g = (is_x ? m0 : n0) + r;
      kc[it] = (c % kPerRow) * 4;
      live[it] = c < kCopies && g < (is_x ? a.M : a.N);
      src[it] = live[it] ? (is_x ? a.x : a.w) + static_cast<std::size_t>(g) * a.K + kc[it] : a.x;
      dst[it] = (is_x ? 0 : BM * T::kLd) + r * T::kLd + kc[it];
      if (it == kIters - 1) exists = c < kCopies;
    }
  }
  __device__ __forceinline__ void issue(float* ring, int stage, int slab, int slabs, int K) const {
    float* base = ring + stage * T::kStageFloats;
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      if (kCopies % T::kThreads != 0 && it == kIters - 1 && !exists) continue;
      const int k = slab * BK + kc[it];
      const bool ok = live[it] && slab < slabs && k < K;
      cp_async16(base + dst[it], ok ? src[it] + slab * BK : src[it], ok);
    }
  }
};

// The scalar path (any K, 4-byte alignment): one 4-byte copy per element, addresses computed per slab.
template <class T, int BM, int BN, int BK>
__device__ __forceinline__ void load_slab_scalar(const ByShapeArgs& a, float* ring, int stage, int slab, int slabs,
                                                 int m0, int n0, int tid) {
  float* xs = ring + stage * T::kStageFloats;
  float* ws = xs + BM * T::kLd;
  const int k0 = slab * BK;
  constexpr int kElems = (BM + BN) * BK;
#pragma unroll 4
  for (int c0 = 0; c0 < kElems; c0 += T::kThreads) {
    const int c = c0 + tid;
    if (kElems % T::kThreads != 0 && c >= kElems) break;
    const int row = c / BK, k = k0 + c % BK;
    const bool is_x = row < BM;
    const int r = is_x ? row : row - BM;
    const int g = (is_x ? m0 : n0) + r;
    const bool ok = slab < slabs && g < (is_x ? a.M : a.N) && k < a.K;
    const float* src = (is_x ? a.x : a.w) + (ok ? static_cast<std::size_t>(g) * a.K + k : 0);
    cp_async4((is_x ? xs : ws) + r * T::kLd + (k - k0), src, ok);
  }
}

// The k-steps [0, steps) of one staged slab, ascending, for every chain of this thread.
template <class T, int BM, int BN, int TM, int TN, int BK, bool kFull>
__device__ __forceinline__ void compute_slab(float (&acc)[TM][TN], const float* xs, const float* ws, int ty, int tx,
                                             int steps) {
  constexpr int kRowStep = BM / TM, kColStep = BN / TN;
#pragma unroll
  for (int kk = 0; kk < BK; kk += 4) {
    if (!kFull && kk >= steps) break;
    float4 xv[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) xv[i] = *reinterpret_cast<const float4*>(xs + (ty + i * kRowStep) * T::kLd + kk);
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const float4 wv = *reinterpret_cast<const float4*>(ws + (tx + j * kColStep) * T::kLd + kk);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        if (kFull || kk + 0 < steps) acc[i][j] = __fmaf_rn(xv[i].x, wv.x, acc[i][j]);
        if (kFull || kk + 1 < steps) acc[i][j] = __fmaf_rn(xv[i].y, wv.y, acc[i][j]);
        if (kFull || kk + 2 < steps) acc[i][j] = __fmaf_rn(xv[i].z, wv.z, acc[i][j]);
        if (kFull || kk + 3 < steps) acc[i][j] = __fmaf_rn(xv[i].w, wv.w, acc[i][j]);
      }
    }
  }
}

template <int BM, int BN, int TM, int TN, int BK, int STAGES, bool kVec>
__global__ void __launch_bounds__(Tile<BM, BN, TM, TN, BK, STAGES>::kThreads)
    fwd_f32_by_shape_kernel(const ByShapeArgs a) {
  using T = Tile<BM, BN, TM, TN, BK, STAGES>;
  __shared__ __align__(16) float ring[STAGES * T::kStageFloats];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % T::kThreadsN, ty = tid / T::kThreadsN;
  const int m0 = static_cast<int>(blockIdx.x / a.tiles_n) * BM;
  const int n0 = static_cast<int>(blockIdx.x % a.tiles_n) * BN;
  const int slabs = (a.K + BK - 1) / BK;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // Prologue: the first STAGES - 1 slabs in flight, one commit group each (empty past the last slab, so
  // that the group count, and with it the wait below, is the same for every slab).
  const VecSlabLoader<T, BM, BN, BK> loader(a, m0, n0, tid);
  const auto load = [&](int stage, int slab) {
    if constexpr (kVec)
      loader.issue(ring, stage, slab, slabs, a.K);
    else
      load_slab_scalar<T, BM, BN, BK>(a, ring, stage, slab, slabs, m0, n0, tid);
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    load(s, s);
    cp_async_commit();
  }
  for (int s = 0; s < slabs; ++s) {
    cp_async_wait<STAGES - 2>();  // slab s has landed (for this thread's copies) ...
    __syncthreads();              // ... and for everyone's; every thread is done with slab s - 1
    // Unconditional (a slab past the last zero-fills a buffer no later slab reads), so that the copies
    // share a basic block with the FMAs below and issue in the shadow of their latency.
    const int next = s + STAGES - 1;
    load(next % STAGES, next);
    cp_async_commit();
    const float* xs = ring + (s % STAGES) * T::kStageFloats;
    const float* ws = xs + BM * T::kLd;
    const int steps = a.K - s * BK;
    if (steps >= BK)
      compute_slab<T, BM, BN, TM, TN, BK, true>(acc, xs, ws, ty, tx, BK);
    else
      compute_slab<T, BM, BN, TM, TN, BK, false>(acc, xs, ws, ty, tx, steps);
  }
  cp_async_wait<0>();  // nothing may be in flight into shared memory when the block exits

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty + i * (BM / TM);
    if (m >= a.M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tx + j * (BN / TN);
      if (n >= a.N) continue;
      a.y[static_cast<std::size_t>(m) * a.N + n] = a.bias ? __fadd_rn(acc[i][j], a.bias[n]) : acc[i][j];
    }
  }
}

template <int BM, int BN, int TM, int TN, int BK, int STAGES>
cudaError_t launch_tile(const LaunchParams& p) {
  ByShapeArgs a{p.x, p.w, p.bias, p.y, p.M, p.N, p.K, static_cast<unsigned>(ceil_div(p.N, BN))};
  const auto blocks = static_cast<unsigned>(ceil_div(p.M, BM) * a.tiles_n);
  const bool vec = p.K % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.x) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(p.w) % 16 == 0;
  void* args[] = {&a};
  constexpr int kThreads = Tile<BM, BN, TM, TN, BK, STAGES>::kThreads;
  const cudaError_t e =
      vec ? cudaLaunchKernel(&fwd_f32_by_shape_kernel<BM, BN, TM, TN, BK, STAGES, true>, dim3(blocks), dim3(kThreads),
                             args, 0, p.stream)
          : cudaLaunchKernel(&fwd_f32_by_shape_kernel<BM, BN, TM, TN, BK, STAGES, false>, dim3(blocks),
                             dim3(kThreads), args, 0, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

struct TileEntry {
  ByShapeTile tile;
  LaunchFn launch;
};

#define ORDO_BY_SHAPE_TILE(BM, BN, TM, TN, BK, ST) \
  TileEntry { ByShapeTile{#BM "x" #BN "x" #BK ".t" #TM "x" #TN ".s" #ST, BM, BN, TM, TN, BK, ST, \
                          Tile<BM, BN, TM, TN, BK, ST>::kThreads}, &launch_tile<BM, BN, TM, TN, BK, ST> }

// Ordered from the most operand reuse per FMA to the least. The first entry is the production 128x128
// tile (kernels/fwd_f32_simt_128x128x16.cu): the same chains, so the same bits, and the fastest tile once
// the grid has waves to spare.
const TileEntry kTiles[] = {
    TileEntry{ByShapeTile{"128x128x16 (production)", 128, 128, 8, 8, 16, 2, 256}, &launch_fwd_f32_simt_128x128x16},
    ORDO_BY_SHAPE_TILE(64, 64, 4, 4, 16, 4),  ORDO_BY_SHAPE_TILE(64, 32, 4, 4, 16, 4),
    ORDO_BY_SHAPE_TILE(32, 64, 4, 4, 16, 4),  ORDO_BY_SHAPE_TILE(32, 32, 4, 2, 32, 4),
    ORDO_BY_SHAPE_TILE(16, 32, 2, 2, 32, 6),  ORDO_BY_SHAPE_TILE(8, 32, 1, 1, 64, 4),
    ORDO_BY_SHAPE_TILE(16, 16, 1, 1, 64, 4),  ORDO_BY_SHAPE_TILE(4, 16, 1, 1, 128, 4),
};
#undef ORDO_BY_SHAPE_TILE
constexpr int kTileCount = static_cast<int>(sizeof kTiles / sizeof kTiles[0]);

}  // namespace

const std::vector<ByShapeTile>& by_shape_tiles() {
  static const std::vector<ByShapeTile> tiles = [] {
    std::vector<ByShapeTile> v;
    for (const TileEntry& e : kTiles) v.push_back(e.tile);
    return v;
  }();
  return tiles;
}

int choose_by_shape_tile(std::int64_t M, std::int64_t N, std::int64_t /*K*/, int sm_count) {
  // Measured on the H200 (reports/evidence/h200-ec46e69-by-shape-tiles/): a tile pays when its grid fills the
  // SMs evenly. So, in order of reuse, the first tile that is not wider than the output (rounded up to
  // 16 columns: wider tiles idle half their threads), that gives at least 0.9 blocks per SM, and whose
  // last wave is not mostly empty (blocks / (waves x SMs) >= 0.8). A problem too small for any gets the
  // smallest tile: its chains are latency-bound, and spreading them over more SMs is what pays.
  const std::int64_t sms = std::max(1, sm_count);
  const std::int64_t width = (N + 15) / 16 * 16;
  for (int i = 0; i < kTileCount - 1; ++i) {
    const ByShapeTile& t = kTiles[i].tile;
    if (t.bn > width) continue;
    const std::int64_t blocks = ceil_div(M, t.bm) * ceil_div(N, t.bn);
    const std::int64_t waves = ceil_div(blocks, sms);
    if (10 * blocks >= 9 * sms && 10 * blocks >= 8 * waves * sms) return i;
  }
  return kTileCount - 1;
}

cudaError_t launch_fwd_f32_by_shape_tile(const LaunchParams& p, int tile) {
  if (tile < 0 || tile >= kTileCount) return cudaErrorInvalidValue;
  return kTiles[tile].launch(p);
}

cudaError_t launch_fwd_f32_simt_by_shape(const LaunchParams& p) {
  int device = 0, sm_count = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return e;
  }
  return launch_fwd_f32_by_shape_tile(p, choose_by_shape_tile(p.M, p.N, p.K, sm_count));
}

}  // namespace ordo::kernels::detail
