// Production kernels of contracts fwd.f32.fma-chain/1 and bwd.dx.f32.fma-chain/1: variants
// "sm80.fwd.f32.fma.simt.by-shape" and "sm80.bwd.dx.f32.fma.simt.by-shape".
//
// One SIMT kernel template, instantiated for a table of block tiles, and a rule that picks the tile from
// the problem's shape (choose_by_shape_tile). Under the contracts every output is one whole chain, so the
// tile decides only which thread runs which chains and how operands reach it, never a bit of the result:
// a row's output is the same whichever tile ran it (the batch-invariance property checks this across
// the rule's switch points).
//
// The product out[P,Q] = A[P,R] B^T, chains over r ascending. A is reduction-contiguous (A(i, r) at
// a[i * lda + r]); B is reduction-contiguous (B(j, r) at b[j * ldb + r]: the forward's W [N,K]) or
// output-contiguous (B(j, r) at b[r * ldb + j]: W [N,K] read as dX = G W, reducing over N).
//
// Structure of a tile <BM, BN, TM, TN, BK, STAGES>
//   * A block computes BM x BN outputs with (BM/TM) x (BN/TN) threads; a thread owns TM x TN chains: rows
//     ty + i*(BM/TM) of the block tile, and columns tx + j*(BN/TN) (B reduction-contiguous) or, B
//     output-contiguous, groups of 4 contiguous columns tx*4 + (j/4)*(BN/TN)*4 + j%4 (TN a multiple of 4;
//     else tx*TN + j), tx fastest, so a warp's output stores are contiguous.
//   * Operands are staged in shared memory as they lie in global memory: As[row][r] with rows padded to
//     BK + 4 floats (a row starts 4 banks after the one before, so eight consecutive rows read as float4
//     hit eight distinct 4-bank groups), and Bs[col][r] likewise, or Bs[r][col] rows of BN floats.
//   * A ring of STAGES slabs filled by cp.async (16-byte copies when the contiguous extents are multiples
//     of 4 and the operands 16-byte aligned, 4-byte copies otherwise): slab s + STAGES - 1 is in flight
//     while slab s is computed. One barrier per slab: the buffer refilled at slab s was last read at slab
//     s - 1, before that barrier.
//
// Arithmetic (the contracts): acc = +0; for r ascending: acc = __fmaf_rn(A(i, r), B(j, r), acc); then
// out = __fadd_rn(acc, bias[j]) when there is a bias (the forward's). The last slab runs only its r < R
// steps (no padded steps at all, so no pad value can touch a signed zero); rows and columns past P or Q
// are zero-filled and their outputs are not stored. Compiled with --fmad=false, without fast-math.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/backward_internal.h"
#include "kernels/cp_async.cuh"
#include "kernels/forward_internal.h"
#include "kernels/operand_layout.h"

namespace ordo::kernels::detail {
namespace {

using BLayout = OperandLayout;

struct ByShapeArgs {
  const float* a;
  const float* b;
  const float* bias;  // [Q] or null
  float* out;         // [P, Q]
  int lda, ldb;
  int P, Q, R;
  unsigned tiles_q;
};

template <int BM, int BN, int TM, int TN, int BK, int STAGES, BLayout kLB, int WN>
struct Tile {
  static constexpr int kThreadsN = BN / TN;
  static constexpr int kThreads = (BM / TM) * kThreadsN;
  // A warp's lanes: kWarpM rows of WN threads of the thread grid. With at most eight distinct rows of each
  // operand per warp (4 x 8 or 8 x 4), every float4 read of a staged slab is one shared-memory wavefront.
  static constexpr int kWarpM = 32 / WN;
  static constexpr int kWarpsN = kThreadsN / WN;
  // Groups of 4 steps read ahead into registers: enough to cover the shared-memory latency (about 30
  // cycles) with the FMAs of one thread's chains, one group of 4 dependent steps taking 4 x 4 cycles.
  static constexpr int kDepth = TM * TN >= 8 ? 2 : 4;
  static constexpr int kLd = BK + 4;  // padded row of a reduction-contiguous staged slab, in floats
  static constexpr int kAFloats = BM * kLd;
  static constexpr int kBFloats = reduction_contiguous(kLB) ? BN * kLd : BK * BN;
  static constexpr int kStageFloats = kAFloats + kBFloats;
  static constexpr int kSharedBytes = STAGES * kStageFloats * 4;
  static_assert(BM % TM == 0 && BN % TN == 0, "the micro-tile divides the block tile");
  static_assert(BK % 4 == 0 && BN % 4 == 0, "float4 copies and reads of the staged rows");
  static_assert(kThreads >= 32 && kThreads <= 256, "one to eight warps");
  static_assert(kThreads % 32 == 0, "whole warps");
  static_assert(kSharedBytes <= 48 * 1024, "static shared memory");
  static_assert(STAGES >= 3, "a ring of at least three slabs: slab s + 1 is resident while slab s is computed");
  static_assert(32 % WN == 0 && kThreadsN % WN == 0 && (BM / TM) % kWarpM == 0, "warps tile the thread grid");
  static_assert((BK / 4) % kDepth == 0, "the register ring wraps at slab boundaries");
};

// The 16-byte copies of one thread into a slab, set up once: each with its source pointer at the next slab
// it fills, its advance per slab, its place in a stage, and the first slab it does not fill (0 when its row,
// or its columns, do not exist; else the first slab whose reduction offset for this copy reaches R). Per
// slab a copy then costs a compare, a 64-bit add and the copy itself: the measured small tiles spent about
// half their stall samples in a loader that recomputed its bounds per slab (ncu source counters,
// evidence/h200-7fbabab-fp32-tiles/ncu/). A copy past its end zero-fills its bytes from the last
// address it read (they are never read as terms: the last slab runs only its real steps, and a slab past the
// last one fills a buffer that no later slab reads). Slabs are issued in order, once each.
template <class T, int BM, int BN, int BK, BLayout kLB>
struct VecSlabLoader {
  static constexpr bool kBRc = reduction_contiguous(kLB);
  static constexpr int kACopies = BM * (BK / 4);
  static constexpr int kBCopies = kBRc ? BN * (BK / 4) : BK * (BN / 4);
  static constexpr int kCopies = kACopies + kBCopies;
  static constexpr int kIters = (kCopies + T::kThreads - 1) / T::kThreads;
  const float* src[kIters];
  std::size_t step[kIters];
  int dst[kIters], end[kIters];
  bool exists = true;  // the thread's last copy (the others always exist)
  int slab = 0;        // the next slab to issue

  __device__ __forceinline__ VecSlabLoader(const ByShapeArgs& a, int m0, int n0, int tid, int slabs) {
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int c = it * T::kThreads + tid;
      bool live;
      int roff;
      if (c < kACopies) {
        const int row = c / (BK / 4), r = (c % (BK / 4)) * 4;
        live = m0 + row < a.P;
        src[it] = a.a + (live ? static_cast<std::size_t>(m0 + row) * a.lda + r : 0);
        step[it] = BK;
        dst[it] = row * T::kLd + r;
        roff = r;
      } else if (kBRc) {
        const int cb = c - kACopies, col = cb / (BK / 4), r = (cb % (BK / 4)) * 4;
        live = c < kCopies && n0 + col < a.Q;
        src[it] = a.b + (live ? static_cast<std::size_t>(n0 + col) * a.ldb + r : 0);
        step[it] = BK;
        dst[it] = T::kAFloats + col * T::kLd + r;
        roff = r;
      } else {
        const int cb = c - kACopies, r = cb / (BN / 4), col = (cb % (BN / 4)) * 4;
        live = c < kCopies && n0 + col < a.Q;  // Q % 4 == 0 here: four columns in or out together
        src[it] = a.b + (live ? static_cast<std::size_t>(r) * a.ldb + n0 + col : 0);
        step[it] = static_cast<std::size_t>(BK) * a.ldb;
        dst[it] = T::kAFloats + r * BN + col;
        roff = r;
      }
      // Reduction-contiguous copies hold 4 steps, R % 4 == 0 on this path: all in or all out. Copy it fills
      // slab s iff s * BK + roff < R and s < slabs.
      end[it] = live && roff < a.R ? std::min(slabs, (a.R - roff + BK - 1) / BK) : 0;
      if (it == kIters - 1) exists = c < kCopies;
    }
  }
  // Copy `it` of the next slab into a stage at `base`.
  __device__ __forceinline__ void issue_copy(float* base, int it) {
    if (kCopies % T::kThreads != 0 && it == kIters - 1 && !exists) return;
    const bool ok = slab < end[it];
    cp_async16(base + dst[it], src[it], ok);
    if (slab + 1 < end[it]) src[it] += step[it];  // never past the last slab it fills
  }
  // Part `part` of `parts` of the next slab's copies (the parts split the copies evenly, in order).
  __device__ __forceinline__ void issue_part(float* base, int part, int parts) {
#pragma unroll
    for (int it = 0; it < kIters; ++it)
      if (it * parts / kIters == part) issue_copy(base, it);
  }
  __device__ __forceinline__ void advance() { ++slab; }
  __device__ __forceinline__ void issue(float* ring, int stage) {
    float* base = ring + stage * T::kStageFloats;
#pragma unroll
    for (int it = 0; it < kIters; ++it) issue_copy(base, it);
    advance();
  }
};

// The scalar path (any extents, 4-byte alignment): one 4-byte copy per element, addresses computed per slab.
template <class T, int BM, int BN, int BK, BLayout kLB>
__device__ __forceinline__ void load_slab_scalar(const ByShapeArgs& a, float* ring, int stage, int slab, int slabs,
                                                 int m0, int n0, int tid) {
  float* base = ring + stage * T::kStageFloats;
  const int r0 = slab * BK;
  constexpr int kAElems = BM * BK, kElems = (BM + BN) * BK;
#pragma unroll 4
  for (int c0 = 0; c0 < kElems; c0 += T::kThreads) {
    const int c = c0 + tid;
    if (kElems % T::kThreads != 0 && c >= kElems) break;
    bool ok;
    const float* src;
    float* dst;
    if (c < kAElems) {
      const int row = c / BK, r = c % BK;
      ok = slab < slabs && m0 + row < a.P && r0 + r < a.R;
      src = a.a + (ok ? static_cast<std::size_t>(m0 + row) * a.lda + r0 + r : 0);
      dst = base + row * T::kLd + r;
    } else if (reduction_contiguous(kLB)) {
      const int col = (c - kAElems) / BK, r = (c - kAElems) % BK;
      ok = slab < slabs && n0 + col < a.Q && r0 + r < a.R;
      src = a.b + (ok ? static_cast<std::size_t>(n0 + col) * a.ldb + r0 + r : 0);
      dst = base + T::kAFloats + col * T::kLd + r;
    } else {
      const int r = (c - kAElems) / BN, col = (c - kAElems) % BN;
      ok = slab < slabs && n0 + col < a.Q && r0 + r < a.R;
      src = a.b + (ok ? static_cast<std::size_t>(r0 + r) * a.ldb + n0 + col : 0);
      dst = base + T::kAFloats + r * BN + col;
    }
    cp_async4(dst, src, ok);
  }
}

// Column j of this thread's micro-tile within the block tile. A reduction-contiguous B is read one column at a
// time (a float4 of 4 steps), so the columns are strided by the thread grid's width. An output-contiguous B
// is read along its rows: a thread's columns are groups of 4 contiguous ones (one float4 per step), the
// groups BN / TN x 4 apart, so that the lanes of a warp read consecutive float4s of a staged row (one
// wavefront per 8 lanes; with TN contiguous columns per thread, threads TN floats apart would share banks
// from TN = 8 on). For TN <= 4 the two forms are the same.
template <int BN, int TN, BLayout kLB>
__device__ __forceinline__ int tile_column(int tx, int j) {
  if constexpr (reduction_contiguous(kLB)) return tx + j * (BN / TN);
  if constexpr (TN % 4 == 0) return (j / 4) * (BN / TN) * 4 + tx * 4 + j % 4;
  return tx * TN + j;
}

// The operands of 4 consecutive steps of one thread's TM x TN chains, read from a staged slab: a float4 of
// each A row, and a float4 of each B column (reduction-contiguous B) or the thread's TN columns of 4 B
// rows (output-contiguous B).
template <int TM, int TN, BLayout kLB>
struct Group {
  float4 x[TM];
  float w[4][TN];
};

template <class T, int BM, int BN, int TM, int TN, BLayout kLB>
__device__ __forceinline__ void read_group(Group<TM, TN, kLB>& g, const float* as, const float* bs, int ty, int tx,
                                           int kk) {
  constexpr int kRowStep = BM / TM;
#pragma unroll
  for (int i = 0; i < TM; ++i) g.x[i] = *reinterpret_cast<const float4*>(as + (ty + i * kRowStep) * T::kLd + kk);
  if constexpr (reduction_contiguous(kLB)) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const float4 v = *reinterpret_cast<const float4*>(bs + tile_column<BN, TN, kLB>(tx, j) * T::kLd + kk);
      g.w[0][j] = v.x, g.w[1][j] = v.y, g.w[2][j] = v.z, g.w[3][j] = v.w;
    }
  } else {
    // Bs[r][col]: this thread's TN columns (tile_column) of one staged row per step.
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float* row = bs + (kk + q) * BN;  // this thread's columns of the step's staged row
      if constexpr (TN % 4 == 0) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float4 v = *reinterpret_cast<const float4*>(row + tile_column<BN, TN, kLB>(tx, j));
          g.w[q][j] = v.x, g.w[q][j + 1] = v.y, g.w[q][j + 2] = v.z, g.w[q][j + 3] = v.w;
        }
      } else if constexpr (TN % 2 == 0) {
#pragma unroll
        for (int j = 0; j < TN; j += 2) {
          const float2 v = *reinterpret_cast<const float2*>(row + tx * TN + j);
          g.w[q][j] = v.x, g.w[q][j + 1] = v.y;
        }
      } else {
#pragma unroll
        for (int j = 0; j < TN; ++j) g.w[q][j] = row[tx * TN + j];
      }
    }
  }
}

// Steps [0, steps) of a group, ascending, for every chain of this thread.
template <int TM, int TN, BLayout kLB>
__device__ __forceinline__ void fma_group(float (&acc)[TM][TN], const Group<TM, TN, kLB>& g, int steps = 4) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if (q >= steps) break;
#pragma unroll
    for (int j = 0; j < TN; ++j)
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const float x = q == 0 ? g.x[i].x : q == 1 ? g.x[i].y : q == 2 ? g.x[i].z : g.x[i].w;
        acc[i][j] = __fmaf_rn(x, g.w[q][j], acc[i][j]);
      }
  }
}

struct NoCopies {
  __device__ __forceinline__ void operator()(int) const {}
};

// The steps [0, steps) of one staged slab, ascending, for every chain of this thread. after_group(g) runs after
// the FMAs of group g (steps 4g .. 4g + 3): the next slab's copies, spread over the slab.
template <class T, int BM, int BN, int TM, int TN, int BK, BLayout kLB, bool kFull, class AfterGroup = NoCopies>
__device__ __forceinline__ void compute_slab(float (&acc)[TM][TN], const float* as, const float* bs, int ty, int tx,
                                             int steps, AfterGroup after_group = {}) {
  constexpr int kRowStep = BM / TM;
#pragma unroll
  for (int kk = 0; kk < BK; kk += 4) {
    if (!kFull && kk >= steps) break;
    float4 xv[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) xv[i] = *reinterpret_cast<const float4*>(as + (ty + i * kRowStep) * T::kLd + kk);
    if constexpr (reduction_contiguous(kLB)) {
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const float4 wv = *reinterpret_cast<const float4*>(bs + tile_column<BN, TN, kLB>(tx, j) * T::kLd + kk);
#pragma unroll
        for (int i = 0; i < TM; ++i) {
          if (kFull || kk + 0 < steps) acc[i][j] = __fmaf_rn(xv[i].x, wv.x, acc[i][j]);
          if (kFull || kk + 1 < steps) acc[i][j] = __fmaf_rn(xv[i].y, wv.y, acc[i][j]);
          if (kFull || kk + 2 < steps) acc[i][j] = __fmaf_rn(xv[i].z, wv.z, acc[i][j]);
          if (kFull || kk + 3 < steps) acc[i][j] = __fmaf_rn(xv[i].w, wv.w, acc[i][j]);
        }
      }
    } else {
      // Bs[r][col]: this thread's TN columns (tile_column) of one staged row per step.
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        if (!kFull && kk + q >= steps) break;
        float wv[TN];
        const float* row = bs + (kk + q) * BN;  // this thread's columns of the step's staged row
        if constexpr (TN % 4 == 0) {
#pragma unroll
          for (int j = 0; j < TN; j += 4) {
            const float4 v = *reinterpret_cast<const float4*>(row + tile_column<BN, TN, kLB>(tx, j));
            wv[j] = v.x, wv[j + 1] = v.y, wv[j + 2] = v.z, wv[j + 3] = v.w;
          }
        } else if constexpr (TN % 2 == 0) {
#pragma unroll
          for (int j = 0; j < TN; j += 2) {
            const float2 v = *reinterpret_cast<const float2*>(row + tx * TN + j);
            wv[j] = v.x, wv[j + 1] = v.y;
          }
        } else {
#pragma unroll
          for (int j = 0; j < TN; ++j) wv[j] = row[tx * TN + j];
        }
#pragma unroll
        for (int j = 0; j < TN; ++j)
#pragma unroll
          for (int i = 0; i < TM; ++i) {
            const float x = q == 0 ? xv[i].x : q == 1 ? xv[i].y : q == 2 ? xv[i].z : xv[i].w;
            acc[i][j] = __fmaf_rn(x, wv[j], acc[i][j]);
          }
      }
    }
    after_group(kk / 4);
  }
}

// The last slab when it is partial: its `steps` < BK real steps, read group by group.
template <class T, int BM, int BN, int TM, int TN, int BK, BLayout kLB>
__device__ __forceinline__ void compute_partial_slab(float (&acc)[TM][TN], const float* as, const float* bs, int ty,
                                                     int tx, int steps) {
#pragma unroll 1
  for (int kk = 0; kk < steps; kk += 4) {
    Group<TM, TN, kLB> g;
    read_group<T, BM, BN, TM, TN, kLB>(g, as, bs, ty, tx, kk);
    fma_group(acc, g, steps - kk);
  }
}

// fn(std::integral_constant<int, i>) for i = 0 .. n - 1, in order.
template <class Fn, int... kI>
__device__ __forceinline__ void for_each_index(std::integer_sequence<int, kI...>, Fn&& fn) {
  (fn(std::integral_constant<int, kI>{}), ...);
}

template <int BM, int BN, int TM, int TN, int BK, int STAGES, BLayout kLB, int WN, bool kRing, bool kVec>
__global__ void __launch_bounds__(Tile<BM, BN, TM, TN, BK, STAGES, kLB, WN>::kThreads)
    f32_by_shape_kernel(const ByShapeArgs a) {
  using T = Tile<BM, BN, TM, TN, BK, STAGES, kLB, WN>;
  using G = Group<TM, TN, kLB>;
  constexpr int kGroups = BK / 4, kDepth = T::kDepth;
  constexpr bool kSpreadCopies = kVec && TM * TN == 1;  // see the slab loop below
  __shared__ __align__(16) float ring[STAGES * T::kStageFloats];
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32, warp = tid / 32;
  const int tx = (warp % T::kWarpsN) * WN + lane % WN;
  const int ty = (warp / T::kWarpsN) * T::kWarpM + lane / WN;
  const int m0 = static_cast<int>(blockIdx.x / a.tiles_q) * BM;
  const int n0 = static_cast<int>(blockIdx.x % a.tiles_q) * BN;
  const int slabs = (a.R + BK - 1) / BK;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // Prologue: the first STAGES - 1 slabs in flight, one commit group each (empty past the last slab, so
  // that the group count, and with it the wait below, is the same for every slab).
  VecSlabLoader<T, BM, BN, BK, kLB> loader(a, m0, n0, tid, slabs);
  const auto load = [&](int stage, int slab) {
    if constexpr (kVec)
      (void)slab, loader.issue(ring, stage);  // slabs are issued in order: slab == loader.slab
    else
      load_slab_scalar<T, BM, BN, BK, kLB>(a, ring, stage, slab, slabs, m0, n0, tid);
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    load(s, s);
    cp_async_commit();
  }
  if constexpr (!kRing) {
    // Each slab's operands read from shared memory as its FMAs need them (the compiler schedules the reads);
    // the wait is STAGES - 2 slabs ahead.
    for (int s = 0; s < slabs; ++s) {
      cp_async_wait<STAGES - 2>();  // slab s has landed (for this thread's copies) ...
      __syncthreads();              // ... and for everyone's; every thread is done with slab s - 1
      // The copies of slab s + STAGES - 1 (unconditional: a slab past the last zero-fills a buffer no later
      // slab reads). The compiler keeps copies into shared memory in order with the reads of it, so copies
      // issued before the FMAs run as a block of their own between two slabs. With one chain per thread
      // (kSpreadCopies) that block is outside the chain's latency, which leaves issue slots free: there the
      // copies of a whole slab of the 16-byte path are spread over its groups of 4 steps, a few after each
      // group's FMAs. Measured on the H200 (evidence/h200-c157493-fp32-latency-tiles/, old and new
      // builds alternated): every one-chain tile as fast or faster where the rule runs it (the 4x16 tile at
      // 64 x 32 x 5376: 20.9 -> 20.0 us, about 116 instructions per 128-step slab that had made a step 7.5
      // cycles against the chain's 4.14), tiles of several chains per thread up to 18% slower (their FMAs
      // already fill the issue slots the copies would take).
      const int next = s + STAGES - 1;
      const float* as = ring + (s % STAGES) * T::kStageFloats;
      const float* bs = as + T::kAFloats;
      const int steps = a.R - s * BK;
      if (kSpreadCopies && steps >= BK) {
        float* stage = ring + (next % STAGES) * T::kStageFloats;
        compute_slab<T, BM, BN, TM, TN, BK, kLB, true>(acc, as, bs, ty, tx, BK,
                                                       [&](int group) { loader.issue_part(stage, group, kGroups); });
        loader.advance();
      } else {
        load(next % STAGES, next);
        if (steps >= BK)
          compute_slab<T, BM, BN, TM, TN, BK, kLB, true>(acc, as, bs, ty, tx, BK);
        else
          compute_slab<T, BM, BN, TM, TN, BK, kLB, false>(acc, as, bs, ty, tx, steps);
      }
      cp_async_commit();
    }
  } else {
    // The operands of the next kDepth groups, read ahead into registers; in the last groups of a slab they
    // come from the next slab, which is resident by then (the wait below is one slab ahead). So neither the
    // shared-memory latency nor the slab boundary stalls the chains, only the one barrier per slab.
    G ahead[kDepth];
    cp_async_wait<STAGES - 3>();  // slabs 0 and 1 have landed (for this thread's copies) ...
    __syncthreads();              // ... and for everyone's
#pragma unroll
    for (int d = 0; d < kDepth; ++d)
      read_group<T, BM, BN, TM, TN, kLB>(ahead[d], ring, ring + T::kAFloats, ty, tx, 4 * d);
    for (int s = 0; s < slabs; ++s) {
      if (s > 0) {
        cp_async_wait<STAGES - 3>();  // slabs s and s + 1 have landed (for this thread's copies) ...
        __syncthreads();              // ... and for everyone's; every thread is done reading slab s - 1
      }
      // Unconditional (a slab past the last zero-fills a buffer no later slab reads), so that the copies
      // share a basic block with the FMAs below and issue in the shadow of their latency. The buffer is
      // slab s - 1's.
      const int next = s + STAGES - 1;
      load(next % STAGES, next);
      cp_async_commit();
      const float* as = ring + (s % STAGES) * T::kStageFloats;
      const float* bs = as + T::kAFloats;
      const int steps = a.R - s * BK;
      if (steps >= BK) {
        const float* as_next = ring + ((s + 1) % STAGES) * T::kStageFloats;
        const float* bs_next = as_next + T::kAFloats;
        // The ring's index is a template argument (a register array indexed at run time would live in local
        // memory, and the compiler does not always unroll a loop over it).
#pragma unroll
        for (int g0 = 0; g0 < kGroups; g0 += kDepth)
          for_each_index(std::make_integer_sequence<int, kDepth>{}, [&](auto d) {
            fma_group(acc, ahead[d]);
            // Past the last slab, or into a partial one, this reads resident bytes that no FMA uses: the
            // partial slab reads its own operands.
            const int g_next = g0 + d + kDepth;
            if (g_next < kGroups)
              read_group<T, BM, BN, TM, TN, kLB>(ahead[d], as, bs, ty, tx, 4 * g_next);
            else
              read_group<T, BM, BN, TM, TN, kLB>(ahead[d], as_next, bs_next, ty, tx, 4 * (g_next - kGroups));
          });
      } else {
        compute_partial_slab<T, BM, BN, TM, TN, BK, kLB>(acc, as, bs, ty, tx, steps);
      }
    }
  }
  cp_async_wait<0>();  // nothing may be in flight into shared memory when the block exits

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty + i * (BM / TM);
    if (m >= a.P) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tile_column<BN, TN, kLB>(tx, j);
      if (n >= a.Q) continue;
      a.out[static_cast<std::size_t>(m) * a.Q + n] = a.bias ? __fadd_rn(acc[i][j], a.bias[n]) : acc[i][j];
    }
  }
}
bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <int BM, int BN, int TM, int TN, int BK, int STAGES, int WN, bool kRing, BLayout kLB>
cudaError_t launch_args(ByShapeArgs a, bool vec, cudaStream_t stream) {
  a.tiles_q = static_cast<unsigned>(ceil_div(a.Q, BN));
  const auto blocks = static_cast<unsigned>(ceil_div(a.P, BM) * a.tiles_q);
  void* args[] = {&a};
  constexpr int kThreads = Tile<BM, BN, TM, TN, BK, STAGES, kLB, WN>::kThreads;
  const cudaError_t e = vec ? cudaLaunchKernel(&f32_by_shape_kernel<BM, BN, TM, TN, BK, STAGES, kLB, WN, kRing, true>,
                                               dim3(blocks), dim3(kThreads), args, 0, stream)
                            : cudaLaunchKernel(&f32_by_shape_kernel<BM, BN, TM, TN, BK, STAGES, kLB, WN, kRing, false>,
                                               dim3(blocks), dim3(kThreads), args, 0, stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

// Forward: out = Y [M,N], A = X [M,K], B = W [N,K] reduction-contiguous, R = K.
template <int BM, int BN, int TM, int TN, int BK, int STAGES, int WN, bool kRing>
cudaError_t launch_tile(const LaunchParams& p) {
  const ByShapeArgs a{p.x, p.w, p.bias, p.y, p.K, p.K, p.M, p.N, p.K, 0};
  const bool vec = p.K % 4 == 0 && aligned16(p.x) && aligned16(p.w);
  return launch_args<BM, BN, TM, TN, BK, STAGES, WN, kRing, BLayout::reduction_contiguous>(a, vec, p.stream);
}

// dX: out = dX [M,K], A = G [M,N], B(j = k, r = n) = W [N,K] output-contiguous, R = N.
template <int BM, int BN, int TM, int TN, int BK, int STAGES, int WN, bool kRing>
cudaError_t launch_dx_tile(const BackwardDataLaunch& p) {
  const ByShapeArgs a{p.g, p.w, nullptr, p.dx, p.N, p.K, p.M, p.K, p.N, 0};
  const bool vec = p.N % 4 == 0 && p.K % 4 == 0 && aligned16(p.g) && aligned16(p.w);
  return launch_args<BM, BN, TM, TN, BK, STAGES, WN, kRing, BLayout::output_contiguous>(a, vec, p.stream);
}

int sm_count_of_current_device(cudaError_t* e) {
  int device = 0, sm_count = 0;
  *e = cudaGetDevice(&device);
  if (*e == cudaSuccess) *e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (*e != cudaSuccess) (void)cudaGetLastError();
  return sm_count;
}

struct TileEntry {
  ByShapeTile tile;
  LaunchFn launch;
};
struct DxTileEntry {
  ByShapeTile tile;
  BackwardDataLaunchFn launch;
};

// A tile's warps are kWarpM x WN patches of its thread grid; the plain entries keep whole rows of up to 32
// threads in a warp (WN = min(32, BN / TN)), the ".wMxN" entries name their patch.
constexpr int row_warp(int bn, int tn) { return bn / tn < 32 ? bn / tn : 32; }
#define ORDO_TILE_NAME(BM, BN, TM, TN, BK, ST) #BM "x" #BN "x" #BK ".t" #TM "x" #TN ".s" #ST
#define ORDO_TILE(ENTRY, LAUNCH, SUFFIX, BM, BN, TM, TN, BK, ST, WN, RING)                                     \
  ENTRY {                                                                                                      \
    ByShapeTile{ORDO_TILE_NAME(BM, BN, TM, TN, BK, ST) SUFFIX, BM, BN, TM, TN, BK, ST, (BM / TM) * (BN / TN)}, \
        &LAUNCH<BM, BN, TM, TN, BK, ST, WN, RING>                                                              \
  }
// Plain entries: whole rows of the thread grid in a warp, operands read as the FMAs need them. ".wMxN":
// warps of M x N threads. ".r": operands read kDepth groups ahead into registers, across slab boundaries.
#define ORDO_BY_SHAPE_TILE(BM, BN, TM, TN, BK, ST) \
  ORDO_TILE(TileEntry, launch_tile, "", BM, BN, TM, TN, BK, ST, row_warp(BN, TN), false)
#define ORDO_BY_SHAPE_TILE_W(BM, BN, TM, TN, BK, ST, WM, WN) \
  ORDO_TILE(TileEntry, launch_tile, ".w" #WM "x" #WN, BM, BN, TM, TN, BK, ST, WN, false)
#define ORDO_BY_SHAPE_TILE_R(BM, BN, TM, TN, BK, ST, WM, WN) \
  ORDO_TILE(TileEntry, launch_tile, ".w" #WM "x" #WN ".r", BM, BN, TM, TN, BK, ST, WN, true)
// ".ws": the warp-specialised tiles of kernels/f32_simt_warp_specialized.cu (forward only), DEPTH groups read ahead.
#define ORDO_WS_TILE(BM, BN, TM, TN, BK, ST, DEPTH)                                                                \
  TileEntry {                                                                                                    \
    ByShapeTile{ORDO_TILE_NAME(BM, BN, TM, TN, BK, ST) ".ws.r" #DEPTH, BM, BN, TM, TN, BK, ST,                    \
                (BM / TM) * (BN / TN) + 32},                                                                     \
        &launch_fwd_f32_warp_specialized<BM, BN, TM, TN, BK, ST, DEPTH>                                          \
  }
#define ORDO_DX_TILE(BM, BN, TM, TN, BK, ST) \
  ORDO_TILE(DxTileEntry, launch_dx_tile, "", BM, BN, TM, TN, BK, ST, row_warp(BN, TN), false)
#define ORDO_DX_TILE_W(BM, BN, TM, TN, BK, ST, WM, WN) \
  ORDO_TILE(DxTileEntry, launch_dx_tile, ".w" #WM "x" #WN, BM, BN, TM, TN, BK, ST, WN, false)
#define ORDO_DX_TILE_R(BM, BN, TM, TN, BK, ST, WM, WN) \
  ORDO_TILE(DxTileEntry, launch_dx_tile, ".w" #WM "x" #WN ".r", BM, BN, TM, TN, BK, ST, WN, true)

// A tile the rules run only on grids of at least 3 blocks per SM. The 32x32 tile with 4 x 4 chains per thread
// (two warps) measured faster than the 64x32 tile at 16384 x 32 x 5376 (3.9 blocks per SM: 0.182 against
// 0.203 ms forward, 0.182 against 0.198 ms dX [16384, 32]) and slower at 4096 rows (one block per SM: 0.091
// against the 32x32 4 x 2 tile's 0.075 ms), evidence/h200-c157493-fp32-latency-tiles/.
template <class Entry>
Entry many_waves(Entry e) {
  e.tile.min_blocks_per_sm = 3;
  return e;
}

// Ordered from the most operand reuse per FMA to the least. The first entry is the 128x128 tile of 4 warps
// with 8 x 16 chains per thread (kernels/f32_simt_outer_128x128.cu), the fastest once the grid has many
// waves; the second the production 128x128 tile (kernels/fwd_f32_simt_128x128x16.cu): the same chains, so
// the same bits, and the fastest with few waves (its 8 warps per block keep an SM busy when the last wave
// leaves it one block). The others are the tiles that measured best for the shapes the rule gives
// them (the sweep of every candidate, evidence/h200-7fbabab-fp32-tiles/): the 64x32 tile reads ahead into
// registers (short-scoreboard stalls on shared memory were its largest cost), the 8x32 tile runs 2 chains
// per thread in warps of 4 x 8 threads. The last (the rule's fallback for grids too small for the 4x16 tile) is
// the warp-specialised tile of kernels/f32_simt_warp_specialized.cu: one chain per consumer thread, the copies in
// a producer warp; 64 x 32 x 5376 in 18.9 us against the 4x16 tile's 20.1 (evidence/
// h200-72eb632-warp-specialized/). dX keeps the 4x16 tile: its W [N, K] would need 4-byte transposing copies.
const TileEntry kTiles[] = {
    TileEntry{ByShapeTile{"128x128x8.t8x16.s3.outer", 128, 128, 8, 16, 8, 3, 128, 2}, &launch_fwd_f32_outer<8, 3, 0, true>},
    TileEntry{ByShapeTile{"128x128x16 (production)", 128, 128, 8, 8, 16, 2, 256, 2}, &launch_fwd_f32_simt_128x128x16},
    ORDO_BY_SHAPE_TILE(64, 64, 4, 4, 16, 4),
    many_waves(ORDO_BY_SHAPE_TILE(32, 32, 4, 4, 32, 4)),
    ORDO_BY_SHAPE_TILE_R(64, 32, 4, 4, 16, 4, 4, 8),
    ORDO_BY_SHAPE_TILE(32, 64, 4, 4, 16, 4),
    ORDO_BY_SHAPE_TILE(32, 32, 4, 2, 32, 4),
    ORDO_BY_SHAPE_TILE(16, 32, 2, 2, 32, 6),
    ORDO_BY_SHAPE_TILE_W(8, 32, 2, 1, 64, 4, 4, 8),
    ORDO_BY_SHAPE_TILE(16, 16, 1, 1, 64, 4),
    ORDO_BY_SHAPE_TILE(4, 16, 1, 1, 128, 4),
    ORDO_WS_TILE(4, 8, 1, 1, 256, 3, 4),
};
// dX: the same shapes of tile (the output-contiguous B stages BK x BN), led by the production 128x128 dX
// tile (kernels/bwd_f32_simt_128x128x16.cu); its 8x32 tile reads ahead into registers (measured faster for
// dX, slower for the forward).
const DxTileEntry kDxTiles[] = {
    DxTileEntry{ByShapeTile{"128x128x8.t8x16.s3.outer", 128, 128, 8, 16, 8, 3, 128, 2}, &launch_bwd_dx_f32_outer<8, 3, 0, true>},
    DxTileEntry{ByShapeTile{"128x128x16 (production)", 128, 128, 8, 8, 16, 2, 256, 2}, &launch_bwd_dx_f32_simt_128x128x16},
    ORDO_DX_TILE(64, 64, 4, 4, 16, 4),
    many_waves(ORDO_DX_TILE(32, 32, 4, 4, 32, 4)),
    ORDO_DX_TILE_R(64, 32, 4, 4, 16, 4, 4, 8),
    ORDO_DX_TILE(32, 64, 4, 4, 16, 4),
    ORDO_DX_TILE(32, 32, 4, 2, 32, 4),
    ORDO_DX_TILE(16, 32, 2, 2, 32, 6),
    ORDO_DX_TILE_R(8, 32, 2, 1, 64, 4, 4, 8),
    ORDO_DX_TILE(16, 16, 1, 1, 64, 4),
    ORDO_DX_TILE(4, 16, 1, 1, 128, 4),
};
// Candidates: tiles the rule does not run, timed next to the table's by the tile sweep (`ordo_bench_tiles
// --candidates`) before any of them joins a table. Their bits are the variant's, like every tile's.
// Today: this template's tiles of 8 x 8 and 8 x 12 chains per thread in 4-warp blocks, which grids of few
// waves might fill more evenly than the 128x128 tiles (1024 x 5376 is 2.5 waves of those at two blocks per
// SM). This template with 8 x 16 chains per thread measured 1.2-1.4x slower than
// kernels/f32_simt_outer_128x128.cu, its operands' 16-byte reads along the reduction costing registers and
// reads that the outer-product layout does not (sweep of 2026-12-02, evidence/h200-9dd9b31-fp32-outer/).
// Also, for the outputs 32 wide (the seed's audio rows), blocks of one or two warps that spread the grid over
// more SMs. The sweep of 2026-12-03 (evidence/h200-c157493-fp32-latency-tiles/) timed thirteen: the
// 32x32 tile with 4 x 4 chains per thread joined the tables (grids of >= 3 blocks per SM); the two left here
// came closest to the table's choice (8x32 with 2 x 2 chains within 1-2% of it at 1024 x 32 x 5376, 2x16 with
// one chain per thread 7-15% slower at 64 rows); the others were slower on every row of the sweep. The
// warp-specialised candidates (forward only) are the other rings and read-ahead depths of the table's 4x8 tile and
// blocks of 8 x 16 and 8 x 8 outputs: at 1024 x 32 x 5376 the best of them, 8x16 with 2 chains per thread, took
// 41.5 us against the table's 8x32 tile's 38.3 (evidence/h200-72eb632-warp-specialized/call4-*/).
#define ORDO_CANDIDATES(TILE, TILE_W)                                                                       \
  TILE_W(128, 96, 8, 12, 8, 4, 4, 8), TILE_W(128, 64, 8, 8, 8, 4, 4, 8), TILE_W(64, 128, 8, 8, 8, 4, 4, 8), \
      TILE(8, 32, 2, 2, 64, 4), TILE(2, 16, 1, 1, 128, 4)
const TileEntry kCandidateTiles[] = {
    ORDO_CANDIDATES(ORDO_BY_SHAPE_TILE, ORDO_BY_SHAPE_TILE_W),
    ORDO_WS_TILE(4, 8, 1, 1, 256, 3, 3),
    ORDO_WS_TILE(4, 8, 1, 1, 192, 4, 3),
    ORDO_WS_TILE(4, 8, 1, 1, 128, 4, 4),
    ORDO_WS_TILE(8, 16, 2, 1, 128, 3, 2),
    ORDO_WS_TILE(8, 16, 2, 1, 64, 6, 2),
    ORDO_WS_TILE(8, 16, 2, 1, 96, 4, 2),
    ORDO_WS_TILE(8, 8, 1, 1, 128, 4, 3),
};
const DxTileEntry kDxCandidateTiles[] = {
    ORDO_CANDIDATES(ORDO_DX_TILE, ORDO_DX_TILE_W),
};
#undef ORDO_CANDIDATES
#undef ORDO_WS_TILE
#undef ORDO_DX_TILE_R
#undef ORDO_DX_TILE_W
#undef ORDO_DX_TILE
#undef ORDO_BY_SHAPE_TILE_R
#undef ORDO_BY_SHAPE_TILE_W
#undef ORDO_BY_SHAPE_TILE
#undef ORDO_TILE
#undef ORDO_TILE_NAME
constexpr int kDxTileCount = static_cast<int>(sizeof kDxTiles / sizeof kDxTiles[0]);
constexpr int kTileCount = static_cast<int>(sizeof kTiles / sizeof kTiles[0]);
constexpr int kCandidateCount = static_cast<int>(sizeof kCandidateTiles / sizeof kCandidateTiles[0]);
constexpr int kDxCandidateCount = static_cast<int>(sizeof kDxCandidateTiles / sizeof kDxCandidateTiles[0]);

template <class Entry, std::size_t kCount>
std::vector<ByShapeTile> tile_infos(const Entry (&entries)[kCount]) {
  std::vector<ByShapeTile> v;
  for (const Entry& e : entries) v.push_back(e.tile);
  return v;
}

}  // namespace

const std::vector<ByShapeTile>& by_shape_tiles() {
  static const std::vector<ByShapeTile> tiles = tile_infos(kTiles);
  return tiles;
}

// The first entry of both tables, the 4-warp 128x128 tile, runs only on grids of at least kOuterWavesForward
// (forward) or kOuterWavesBackward (dX, dW) waves of two blocks per SM; below that the 8-warp production tile
// is faster (it fills an SM alone in a partial last wave, where the 4-warp tile leaves one warp per
// scheduler). Measured on the H200, ratio to cuBLAS (evidence/h200-9dd9b31-fp32-outer/): forward
// 1024 / 4096 / 16384 x 5376 x 5376: 1.72 / 1.17 / 1.17 against 1.42 / 1.15 / 1.20 for the production tile
// (2.5 / 5.1 / 20 waves); dX 1.54 / 1.16 / 1.05 against 1.33 / 1.19 / 1.14 (the dX tile copies W in 16-byte
// pieces, the forward transposes both operands with 4-byte copies).
constexpr std::int64_t kOuterWavesForward = 8;

static int choose_tile(const std::vector<ByShapeTile>& tiles, std::int64_t rows, std::int64_t cols, int sm_count,
                       std::int64_t outer_waves) {
  // Measured on the H200 (evidence/h200-ec46e69-by-shape-tiles/): a tile pays when its grid fills the
  // SMs evenly. So, in order of reuse, the first tile that is not wider than the output (rounded up to
  // 16 columns: wider tiles idle half their threads), that gives at least 0.9 blocks per SM, and whose
  // last wave is not mostly empty (blocks / (waves x SMs) >= 0.8). A problem too small for any gets the
  // smallest tile: its chains are latency-bound, and spreading them over more SMs is what pays.
  const std::int64_t sms = std::max(1, sm_count);
  const std::int64_t width = (cols + 15) / 16 * 16;
  const int count = static_cast<int>(tiles.size());
  if (ceil_div(rows, tiles[0].bm) * ceil_div(cols, tiles[0].bn) >= outer_waves * tiles[0].resident * sms) return 0;
  for (int i = 1; i < count - 1; ++i) {
    const ByShapeTile& t = tiles[static_cast<std::size_t>(i)];
    if (t.bn > width) continue;
    const std::int64_t blocks = ceil_div(rows, t.bm) * ceil_div(cols, t.bn);
    const std::int64_t waves = ceil_div(blocks, sms);
    if (blocks < t.min_blocks_per_sm * sms) continue;
    if (10 * blocks >= 9 * sms && 10 * blocks >= 8 * waves * sms) return i;
  }
  return count - 1;
}

int choose_by_shape_tile(std::int64_t M, std::int64_t N, std::int64_t /*K*/, int sm_count) {
  return choose_tile(by_shape_tiles(), M, N, sm_count, kOuterWavesForward);
}

// Where a 128x128 tile (the only entries that declare `resident`) would end its grid in a last wave at most half
// full, only the rows that fill its whole waves run in a 128x128 tile (the 4-warp one, below); the other rows
// run as a problem of their own, with the tile the rule picks for them. Such a last wave holds at most one
// block per SM and leaves the other SMs idle (the 72 blocks past 768 rows of 1024 x 5376 run 0.58 ms on 72 of
// 132 SMs), where smaller tiles spread those rows over every SM. Measured on the H200, each part timed alone
// (evidence/h200-9490b03-fp32-split/): forward 1024 x 5376 x 5376 1.688 ms in one grid against 1.105
// (768 rows) + 0.515 (256 rows, 64x64 tile); 4096 x 5376 x 5376 5.96 against 5.41 + 0.257; dX [4096, 5376] 5.79
// against 4.87 + 0.258. Every output is one chain whatever the tile, so the bits do not change;
// LaunchOptions::fp32.split = false (--fp32-split 0) runs the whole grid in one tile (a measurement switch).
// Only where the reduction has at least kSplitMinReduction steps: the second launch starts when the first has
// drained, which short chains do not repay. Measured on the H200, ordo / cuBLAS with the split and without
// (evidence/h200-72eb632-warp-specialized/call4/): reduction 32, forward 1024 / 4096 / 16384 x 5376
// 1.04 / 0.96 / 0.89 against 0.91 / 0.90 / 0.87, dX [M, 5376] 1.15 / 0.98 / 0.89 against 1.11 / 0.92 / 0.87;
// reduction 256 at 1024 x 5376, forward 0.086 against 0.087 ms, dX 0.086 against 0.088; 512 and 1024 steps
// 5-8% faster split.
constexpr std::int64_t kSplitMinReduction = 256;
static ByShapePlan split_last_wave(const std::vector<ByShapeTile>& tiles, int tile, std::int64_t rows,
                                   std::int64_t cols, std::int64_t reduction, int sm_count,
                                   std::int64_t outer_waves, bool split_rows) {
  ByShapePlan plan{tile, rows, -1};
  const ByShapeTile& t = tiles[static_cast<std::size_t>(tile)];
  if (t.resident < 1 || reduction < kSplitMinReduction || !split_rows) return plan;
  const std::int64_t slots = t.resident * std::max(1, sm_count);
  const std::int64_t tiles_n = ceil_div(cols, t.bn);
  const std::int64_t blocks = ceil_div(rows, t.bm) * tiles_n;
  const std::int64_t waves = blocks / slots, last = blocks % slots;
  if (waves < 1 || last == 0 || 2 * last > slots) return plan;
  const std::int64_t head_rows = waves * slots / tiles_n * t.bm;
  if (head_rows < t.bm || head_rows >= rows) return plan;
  const int tail = choose_tile(tiles, rows - head_rows, cols, sm_count, outer_waves);
  if (tail == tile) return plan;
  // The head is whole waves of two blocks per SM, where the 4-warp tile (the first entry: the same 128x128
  // blocks and residency) is the faster of the two; the rule picks the production tile below kOuterWavesForward
  // (kOuterWavesBackward) waves only for what it does in a partial last wave. Measured on the H200, grids of
  // whole waves, ratio to cuBLAS (evidence/h200-9490b03-fp32-split/call4-heads/): forward 768 / 1536 /
  // 3968 x 5376 x 5376 1.25 / 1.25 / 1.24 (production) against 1.17 / 1.17 / 1.18 (4-warp); dX 1.25 / 1.24 /
  // 1.15 against 1.12 / 1.11 / 1.03.
  const ByShapeTile& outer = tiles[0];
  const int head = outer.bm == t.bm && outer.bn == t.bn && outer.resident == t.resident ? 0 : tile;
  return ByShapePlan{head, head_rows, tail};
}

ByShapePlan plan_by_shape(std::int64_t M, std::int64_t N, std::int64_t K, int sm_count, bool split_rows) {
  return split_last_wave(by_shape_tiles(), choose_by_shape_tile(M, N, K, sm_count), M, N, K, sm_count,
                         kOuterWavesForward, split_rows);
}

const std::vector<ByShapeTile>& dx_by_shape_tiles() {
  static const std::vector<ByShapeTile> tiles = tile_infos(kDxTiles);
  return tiles;
}

int choose_dx_by_shape_tile(std::int64_t M, std::int64_t N, std::int64_t K, int sm_count) {
  (void)N;  // the reduction length does not move the choice
  return choose_tile(dx_by_shape_tiles(), M, K, sm_count, kOuterWavesBackward);
}

ByShapePlan plan_dx_by_shape(std::int64_t M, std::int64_t N, std::int64_t K, int sm_count, bool split_rows) {
  return split_last_wave(dx_by_shape_tiles(), choose_dx_by_shape_tile(M, N, K, sm_count), M, K, N, sm_count,
                         kOuterWavesBackward, split_rows);
}

const std::vector<ByShapeTile>& by_shape_candidate_tiles() {
  static const std::vector<ByShapeTile> tiles = tile_infos(kCandidateTiles);
  return tiles;
}

const std::vector<ByShapeTile>& dx_by_shape_candidate_tiles() {
  static const std::vector<ByShapeTile> tiles = tile_infos(kDxCandidateTiles);
  return tiles;
}

cudaError_t launch_fwd_f32_by_shape_candidate(const LaunchParams& p, int tile) {
  if (tile < 0 || tile >= kCandidateCount) return cudaErrorInvalidValue;
  return kCandidateTiles[tile].launch(p);
}

cudaError_t launch_bwd_dx_f32_by_shape_candidate(const BackwardDataLaunch& p, int tile) {
  if (tile < 0 || tile >= kDxCandidateCount) return cudaErrorInvalidValue;
  return kDxCandidateTiles[tile].launch(p);
}

cudaError_t launch_bwd_dx_f32_by_shape_tile(const BackwardDataLaunch& p, int tile) {
  if (tile < 0 || tile >= kDxTileCount) return cudaErrorInvalidValue;
  return kDxTiles[tile].launch(p);
}

int forced_fp32_tile(const std::vector<ByShapeTile>& tiles, const Fp32Options& options) {
  const char* v = options.tile.c_str();
  if (*v == '\0') return -1;
  for (std::size_t i = 0; i < tiles.size(); ++i)
    if (std::strcmp(tiles[i].name, v) == 0) return static_cast<int>(i);
  std::fprintf(stderr, "--fp32-tile \"%s\": no such tile; the tiles are:", v);
  for (const ByShapeTile& t : tiles) std::fprintf(stderr, " \"%s\"", t.name);
  std::fprintf(stderr, "\n");
  return -2;
}

cudaError_t launch_fwd_f32_by_shape_tile(const LaunchParams& p, int tile) {
  if (tile < 0 || tile >= kTileCount) return cudaErrorInvalidValue;
  return kTiles[tile].launch(p);
}

namespace {
// A by-shape variant's launch: the options' forced tile over the whole problem, else the plan for this GPU
// (`plan_of(sm_count)`): its tile for rows [0, rows) and, when it has one, its second tile for the problem of
// rows [rows, M) alone (`rest(rows)`).
template <class Params, class LaunchTile, class PlanOf, class Rest>
cudaError_t launch_by_shape(const Params& p, const std::vector<ByShapeTile>& tiles, LaunchTile launch_tile,
                            PlanOf plan_of, Rest rest) {
  const int forced = forced_fp32_tile(tiles, p.options->fp32);
  if (forced == -2) return cudaErrorInvalidValue;
  if (forced >= 0) return launch_tile(p, forced);
  cudaError_t e;
  const int sm_count = sm_count_of_current_device(&e);
  if (e != cudaSuccess) return e;
  const ByShapePlan plan = plan_of(sm_count);
  Params head = p;
  head.M = static_cast<int>(plan.rows);
  e = launch_tile(head, plan.tile);
  if (e != cudaSuccess || plan.tail_tile < 0) return e;
  return launch_tile(rest(head.M), plan.tail_tile);
}
}  // namespace

// rows is a multiple of 128 wherever a plan splits, so the rest's pointers keep their 16-byte alignment.
cudaError_t launch_bwd_dx_f32_simt_by_shape(const BackwardDataLaunch& p) {
  return launch_by_shape(
      p, dx_by_shape_tiles(), launch_bwd_dx_f32_by_shape_tile,
      [&p](int sm_count) { return plan_dx_by_shape(p.M, p.N, p.K, sm_count, p.options->fp32.split); },
      [&p](int rows) {  // dX rows [rows, M) from G's rows [rows, M)
        BackwardDataLaunch r = p;
        r.M = p.M - rows;
        r.g = p.g + static_cast<std::size_t>(rows) * static_cast<std::size_t>(p.N);
        r.dx = p.dx + static_cast<std::size_t>(rows) * static_cast<std::size_t>(p.K);
        return r;
      });
}

cudaError_t launch_fwd_f32_simt_by_shape(const LaunchParams& p) {
  return launch_by_shape(
      p, by_shape_tiles(), launch_fwd_f32_by_shape_tile,
      [&p](int sm_count) { return plan_by_shape(p.M, p.N, p.K, sm_count, p.options->fp32.split); },
      [&p](int rows) {  // Y rows [rows, M) from X's rows [rows, M)
        LaunchParams r = p;
        r.M = p.M - rows;
        r.x = p.x + static_cast<std::size_t>(rows) * static_cast<std::size_t>(p.K);
        r.y = p.y + static_cast<std::size_t>(rows) * static_cast<std::size_t>(p.N);
        return r;
      });
}

}  // namespace ordo::kernels::detail
