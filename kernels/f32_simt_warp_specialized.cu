// The warp-specialised tiles of variant "sm80.fwd.f32.fma.simt.by-shape" (contract fwd.f32.fma-chain/1): for
// grids of few, long chains (outputs 32 wide at 64 and 1024 rows), where a chain's FMA latency sets the pace
// and every instruction in the chain's warp that is not its FMA or its operand read costs time.
//
// A block is BM x BN outputs computed by (BM/TM) x (BN/TN) consumer threads, TM x TN chains each, in warps of
// 4 x 8 threads, plus one producer warp. The producer fills a ring of STAGES slabs of BK steps with cp.async
// (16-byte copies where K % 4 == 0 and X, W are 16-byte aligned, 4-byte copies otherwise; zero-fill past the
// extents) and publishes each slab on its `full` barrier with an arrival the hardware makes once the copies
// have landed; the consumers wait for it, run the slab's steps and arrive on its `empty` barrier, which the
// producer waits for before refilling that stage (kernels/slab_barrier.cuh). So the consumers' instruction
// stream is the FMAs, their shared-memory reads (DEPTH groups of 4 steps read ahead into registers) and one
// wait and one arrival per slab: no copies, no address arithmetic, no block-wide barrier.
// Measured on the H200 against the one-chain 4x16 tile whose threads also copy (evidence/
// h200-72eb632-warp-specialized/): 64 x 32 x 5376 20.9 -> 17.4 us, 1024 x 32 x 5376 39 -> 35 us.
//
// Staging as the other by-shape tiles: As[row][r] and Bs[col][r], rows padded to BK + 4 floats.
// Arithmetic (the contract): acc = +0; for k ascending: acc = __fmaf_rn(X(m, k), W(n, k), acc); then
// y = __fadd_rn(acc, bias[n]) when there is a bias. The last slab runs only its real steps. Compiled with
// --fmad=false, without fast-math.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cp_async.cuh"
#include "kernels/forward_internal.h"
#include "kernels/slab_barrier.cuh"

namespace ordo::kernels::detail {
namespace {

struct WsArgs {
  const float* x;     // [M, K]
  const float* w;     // [N, K]
  const float* bias;  // [N] or null
  float* y;           // [M, N]
  int M, N, K;
  unsigned tiles_n;
  bool vec;  // 16-byte copies
};

template <int BM, int BN, int TM, int TN, int BK, int STAGES, int DEPTH>
struct WsTile {
  static constexpr int kThreadsM = BM / TM, kThreadsN = BN / TN;
  static constexpr int kConsumers = kThreadsM * kThreadsN;
  static constexpr int kConsumerWarps = kConsumers / 32;
  static constexpr int kThreads = kConsumers + 32;
  static constexpr int kWarpM = 4, kWarpN = 8;  // a warp: 4 x 8 consumer threads
  static constexpr int kLd = BK + 4;            // padded staged row, in floats
  static constexpr int kAFloats = BM * kLd, kStageFloats = (BM + BN) * kLd;
  static constexpr int kGroups = BK / 4;
  static_assert(BM % TM == 0 && BN % TN == 0, "the micro-tile divides the block tile");
  static_assert(kThreadsM % kWarpM == 0 && kThreadsN % kWarpN == 0, "warps of 4 x 8 consumer threads");
  static_assert(BK % 4 == 0 && DEPTH >= 1 && DEPTH <= kGroups, "groups of 4 steps");
  static_assert(STAGES >= 2, "a ring");
  static_assert(STAGES * kStageFloats * 4 + 2 * STAGES * 8 <= 48 * 1024, "static shared memory");
};

// The operands of 4 consecutive steps of one thread's chains: a float4 of each X row and of each W row.
template <int TM, int TN>
struct WsGroup {
  float4 x[TM], w[TN];
};

template <class T, int TM, int TN>
__device__ __forceinline__ void ws_read_group(WsGroup<TM, TN>& g, const float* as, const float* bs, int ty, int tx,
                                              int kk) {
#pragma unroll
  for (int i = 0; i < TM; ++i) g.x[i] = *reinterpret_cast<const float4*>(as + (ty + i * T::kThreadsM) * T::kLd + kk);
#pragma unroll
  for (int j = 0; j < TN; ++j) g.w[j] = *reinterpret_cast<const float4*>(bs + (tx + j * T::kThreadsN) * T::kLd + kk);
}

// Steps [0, steps) of a group, ascending, for every chain of this thread.
template <int TM, int TN>
__device__ __forceinline__ void ws_fma_group(float (&acc)[TM][TN], const WsGroup<TM, TN>& g, int steps = 4) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if (q >= steps) break;
#pragma unroll
    for (int j = 0; j < TN; ++j)
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const float x = q == 0 ? g.x[i].x : q == 1 ? g.x[i].y : q == 2 ? g.x[i].z : g.x[i].w;
        const float w = q == 0 ? g.w[j].x : q == 1 ? g.w[j].y : q == 2 ? g.w[j].z : g.w[j].w;
        acc[i][j] = __fmaf_rn(x, w, acc[i][j]);
      }
  }
}

// The producer warp's copies of slab `slab` into a stage: BM rows of X and BN rows of W, steps [r0, r0 + BK).
template <class T, int BM, int BN, int BK>
__device__ __forceinline__ void ws_copy_slab(const WsArgs& a, float* stage, int slab, int m0, int n0, int lane) {
  const int r0 = slab * BK;
  if (a.vec) {
    constexpr int kChunks = BK / 4, kCopies = (BM + BN) * kChunks;
#pragma unroll 4
    for (int c = lane; c < kCopies; c += 32) {
      const int row = c / kChunks, r = (c % kChunks) * 4;
      const bool is_x = row < BM;
      const int i = is_x ? m0 + row : n0 + row - BM;
      // K % 4 == 0 here: a 16-byte chunk is wholly inside K or wholly past it.
      const bool ok = i < (is_x ? a.M : a.N) && r0 + r < a.K;
      const float* base = is_x ? a.x : a.w;
      cp_async16(stage + row * T::kLd + r, base + (ok ? static_cast<std::size_t>(i) * a.K + r0 + r : 0), ok);
    }
  } else {
    constexpr int kCopies = (BM + BN) * BK;
#pragma unroll 4
    for (int c = lane; c < kCopies; c += 32) {
      const int row = c / BK, r = c % BK;
      const bool is_x = row < BM;
      const int i = is_x ? m0 + row : n0 + row - BM;
      const bool ok = i < (is_x ? a.M : a.N) && r0 + r < a.K;
      const float* base = is_x ? a.x : a.w;
      cp_async4(stage + row * T::kLd + r, base + (ok ? static_cast<std::size_t>(i) * a.K + r0 + r : 0), ok);
    }
  }
}

template <int BM, int BN, int TM, int TN, int BK, int STAGES, int DEPTH>
__global__ void __launch_bounds__(WsTile<BM, BN, TM, TN, BK, STAGES, DEPTH>::kThreads)
    f32_warp_specialized_kernel(const WsArgs a) {
  using T = WsTile<BM, BN, TM, TN, BK, STAGES, DEPTH>;
  __shared__ __align__(16) float ring[STAGES * T::kStageFloats];
  __shared__ SlabBarrier full[STAGES], empty[STAGES];
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32, warp = tid / 32;
  const int m0 = static_cast<int>(blockIdx.x / a.tiles_n) * BM;
  const int n0 = static_cast<int>(blockIdx.x % a.tiles_n) * BN;
  const int slabs = (a.K + BK - 1) / BK;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      slab_barrier_init(&full[s], 32);  // one arrival per producer lane, made when its copies have landed
      slab_barrier_init(&empty[s], T::kConsumers);
    }
    slab_barrier_init_fence();
  }
  __syncthreads();

  if (warp == T::kConsumerWarps) {
    // Slab s fills stage s % STAGES in round s / STAGES; from the second round on, it waits until the consumers
    // have released the slab that stage held (round - 1).
    for (int s = 0; s < slabs; ++s) {
      const int stage = s % STAGES, round = s / STAGES;
      if (round > 0) slab_barrier_wait(&empty[stage], static_cast<unsigned>((round - 1) & 1));
      ws_copy_slab<T, BM, BN, BK>(a, ring + stage * T::kStageFloats, s, m0, n0, lane);
      slab_barrier_arrive_on_copies(&full[stage]);
    }
    return;  // the copies land and arrive without this warp
  }

  const int ty = (warp / (T::kThreadsN / T::kWarpN)) * T::kWarpM + lane / T::kWarpN;
  const int tx = (warp % (T::kThreadsN / T::kWarpN)) * T::kWarpN + lane % T::kWarpN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int s = 0; s < slabs; ++s) {
    const int stage = s % STAGES;
    slab_barrier_wait(&full[stage], static_cast<unsigned>((s / STAGES) & 1));
    const float* as = ring + stage * T::kStageFloats;
    const float* bs = as + T::kAFloats;
    const int steps = a.K - s * BK;
    if (steps >= BK) {
      // DEPTH groups read ahead into registers: a group's reads issue DEPTH groups of dependent FMAs (4 x 4
      // cycles each) before its FMAs need them, past the shared-memory latency.
      WsGroup<TM, TN> ahead[DEPTH];
#pragma unroll
      for (int d = 0; d < DEPTH; ++d) ws_read_group<T, TM, TN>(ahead[d], as, bs, ty, tx, 4 * d);
#pragma unroll
      for (int g = 0; g < T::kGroups; ++g) {
        const WsGroup<TM, TN> now = ahead[g % DEPTH];
        if (g + DEPTH < T::kGroups) ws_read_group<T, TM, TN>(ahead[g % DEPTH], as, bs, ty, tx, 4 * (g + DEPTH));
        ws_fma_group(acc, now);
      }
    } else {
#pragma unroll 1
      for (int kk = 0; kk < steps; kk += 4) {
        WsGroup<TM, TN> now;
        ws_read_group<T, TM, TN>(now, as, bs, ty, tx, kk);
        ws_fma_group(acc, now, steps - kk);
      }
    }
    slab_barrier_arrive(&empty[stage]);
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty + i * T::kThreadsM;
    if (m >= a.M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tx + j * T::kThreadsN;
      if (n >= a.N) continue;
      a.y[static_cast<std::size_t>(m) * a.N + n] = a.bias ? __fadd_rn(acc[i][j], a.bias[n]) : acc[i][j];
    }
  }
}

bool ws_aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

template <int BM, int BN, int TM, int TN, int BK, int STAGES, int DEPTH>
cudaError_t launch_fwd_f32_warp_specialized(const LaunchParams& p) {
  using T = WsTile<BM, BN, TM, TN, BK, STAGES, DEPTH>;
  const auto tiles_n = static_cast<unsigned>((p.N + BN - 1) / BN);
  const auto blocks = static_cast<unsigned>((p.M + BM - 1) / BM) * tiles_n;
  WsArgs a{p.x, p.w, p.bias, p.y, p.M, p.N, p.K, tiles_n, p.K % 4 == 0 && ws_aligned16(p.x) && ws_aligned16(p.w)};
  void* args[] = {&a};
  const cudaError_t e = cudaLaunchKernel(&f32_warp_specialized_kernel<BM, BN, TM, TN, BK, STAGES, DEPTH>, dim3(blocks),
                                         dim3(T::kThreads), args, 0, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

// The tiles of the by-shape table and its candidates (kernels/fwd_f32_simt_by_shape.cu).
template cudaError_t launch_fwd_f32_warp_specialized<4, 8, 1, 1, 256, 3, 4>(const LaunchParams&);
template cudaError_t launch_fwd_f32_warp_specialized<4, 8, 1, 1, 256, 3, 3>(const LaunchParams&);
template cudaError_t launch_fwd_f32_warp_specialized<4, 8, 1, 1, 192, 4, 3>(const LaunchParams&);
template cudaError_t launch_fwd_f32_warp_specialized<4, 8, 1, 1, 128, 4, 4>(const LaunchParams&);
template cudaError_t launch_fwd_f32_warp_specialized<8, 16, 2, 1, 128, 3, 2>(const LaunchParams&);
template cudaError_t launch_fwd_f32_warp_specialized<8, 16, 2, 1, 64, 6, 2>(const LaunchParams&);
template cudaError_t launch_fwd_f32_warp_specialized<8, 16, 2, 1, 96, 4, 2>(const LaunchParams&);
template cudaError_t launch_fwd_f32_warp_specialized<8, 8, 1, 1, 128, 4, 3>(const LaunchParams&);

}  // namespace ordo::kernels::detail
