// FP32 SIMT tile of 128 x 128 outputs in blocks of 4 warps, 8 x 16 chains per thread, for the by-shape
// variants of contracts fwd.f32.fma-chain/1, bwd.dx.f32.fma-chain/1 and bwd.dw.f32.fma-chain/1
// (kernels/fwd_f32_simt_by_shape.cu and kernels/bwd_dw_f32_simt_by_shape.cu hold the tables that run it).
//
// The product out[P,Q] = A[P,R] B^T, chains over r ascending. An operand is reduction-contiguous (A(i, r) at
// a[i * ld + r]: the forward's X and W, dX's G) or output-contiguous (B(j, r) at b[r * ld + j]: dX's W, dW's
// token-major G and X, whose step r is row rows[r] when the tokens are gathered through the canonical order).
//
// Why this shape (docs/fp32-kernels.md, "What a tile costs"): an SM returns at most 32 registers per clock
// from shared memory, and a thread owning TM x TN chains reads TM + TN operands per step. With 8 x 8 chains
// (the 256-thread 128x128 tile) the returns take as long as the FMAs themselves; with 8 x 16 they take 75%
// of it. cuBLAS's SGEMM for these grids has the same decomposition (ncu on the H200:
// `sm80_xmma_gemm_f32f32_..._tilesize128x128x8_stage3_warpsize2x2x1_ffma`, 128 threads, 255 registers).
//
// Structure
//   * 4 warps of 64 x 64 outputs (2 x 2); in a warp, lane (ry = lane / 4, cx = lane % 4) owns rows
//     ry*4 + {0..3} and 32 + ry*4 + {0..3} of the warp's tile, and columns cx*4 + 16*jj + {0..3}, jj = 0..3.
//     Per step a thread reads two float4 of A and four of B from shared memory (a warp reads 8 and 4
//     distinct, contiguous float4s: broadcast, no bank conflict), then runs its 128 FMAs.
//   * Both operands are staged as As[r][i] and Bs[r][j] (rows of 128 + 4 floats), BK steps per slab, in a
//     ring of STAGES slabs filled by cp.async. A reduction-contiguous operand is transposed by the copies
//     themselves: 4-byte copies, lanes over 8 (or 16) steps of 4 (or 2) rows, so a warp's copies read whole
//     32-byte sectors and write 32 distinct banks (row + 4 x step, the padded row being 4 mod 32 floats).
//     An output-contiguous one is copied in 16-byte pieces when its rows allow (else 4 bytes).
//   * The operands of the next step are read into registers while the FMAs of the current one run (two
//     register sets). One barrier per slab, before the first step of the next slab is read: after it, the
//     slab just finished is free, and the copies of slab s + STAGES - 1 go into it at the start of slab s + 1.
//
// Arithmetic (the contracts): acc = +0 (dW with accumulate: dW's current value); for r ascending:
// acc = __fmaf_rn(A(i, r), B(j, r), acc); then out = __fadd_rn(acc, bias[j]) with a bias (the forward's). Whole
// slabs run all BK steps, the last partial slab only its r < R steps (no padded step, so no pad value can touch
// a signed zero); rows and columns past P or Q are not copied and their outputs not stored. dW's db is a kernel
// of its own (launch_bwd_db_f32). Compiled with --fmad=false, without fast-math.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/backward_internal.h"
#include "kernels/cp_async.cuh"
#include "kernels/forward_internal.h"
#include "kernels/operand_layout.h"

namespace ordo::kernels::detail {
namespace {

using Layout = OperandLayout;

struct OuterArgs {
  const float* a;
  const float* b;
  const float* bias;  // [Q] or null
  float* out;         // [P, Q]
  int lda, ldb;
  int P, Q, R;
  unsigned tiles_p, tiles_q;
  const int* rows = nullptr;  // dW gathered: step r of both operands is row rows[r] (else row r)
  bool accumulate = false;    // dW: every chain starts at the output's current value (else +0); see kAccumulate
};

constexpr int kTile = 128;      // outputs per block in each dimension
constexpr int kThreads = 128;   // 4 warps of 64 x 64 outputs
constexpr int kLd = kTile + 4;  // a staged row: 4 mod 32 floats, so the transposing copies hit distinct banks
constexpr int kTM = 8, kTN = 16;
static_assert(kLd % 32 == 4, "transposing copies: bank = row + 4 x step");

template <int BK, int STAGES>
struct Ring {
  static constexpr int kOperandFloats = BK * kLd;
  static constexpr int kStageFloats = 2 * kOperandFloats;
  static constexpr int kBytes = STAGES * kStageFloats * 4;
  static_assert(BK == 8 || BK == 16, "the copy mappings below are written for 8 or 16 steps per slab");
  static_assert(STAGES >= 2, "slab s + 1 is in flight while slab s is computed");
  static_assert(kBytes <= 48 * 1024, "static shared memory");
};

// A copy that runs only when `p`: copies whose row (or columns) or step do not exist are not issued at all.
// Their shared-memory bytes are never read as terms: a row or column past P or Q feeds only outputs that are
// not stored, and a step past R belongs to the partial last slab, which runs only its r < R steps.
__device__ __forceinline__ void copy4_if(float* dst, const float* src, bool p) {
#if defined(ORDO_HOST_EMULATION)
  if (p) *dst = *src;
#else
  asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n @q cp.async.ca.shared.global [%0], [%1], 4;\n}\n" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(static_cast<int>(p))
               : "memory");
#endif
}
__device__ __forceinline__ void copy16_if(float* dst, const float* src, bool p) {
#if defined(ORDO_HOST_EMULATION)
  if (p) std::memcpy(dst, src, 16);
#else
  asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n @q cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(static_cast<int>(p))
               : "memory");
#endif
}

// One operand's copies into the ring, one slab at a time, in order. `row0` is the block's first output row
// (or column) of this operand, `extent` its number of rows (P or Q). Per slab a copy costs its predicate and
// the copy: its address is this thread's pointer plus a stride that is the same for every thread, and no copy
// is redirected (the measured first version spent 9% of its stall samples
// on selecting addresses and masks per copy, ncu source counters).
template <Layout kL, bool kVec, int BK, bool kGather>
struct OperandLoader {
  // Reduction-contiguous: BK 4-byte copies per thread, step t % BK of rows t / BK + c * (128 / BK).
  // Output-contiguous, 16-byte: BK / 4 copies, columns 4 * (t % 32) of steps t / 32 + 4c.
  // Output-contiguous, 4-byte: BK copies, column t of steps c.
  static constexpr bool kTranspose = reduction_contiguous(kL);
  static_assert(!(kGather && kTranspose), "only output-contiguous operands (dW's G and X) are gathered");
  static constexpr int kCopies = kTranspose || !kVec ? BK : BK / 4;
  const float* src;  // this thread's first copy at the next slab (in place)
  std::size_t copy_stride, slab_stride;
  int dst, first_step, steps_left;  // steps_left: R - the next slab's first step - this thread's first step
  unsigned live = 0;                // bit c: copy c's row (or columns) exist
  // Gathered: the operand's columns this thread copies (src before any row), its row length, the row index
  // of each copy's step in the next slab, read one slab ahead so that no copy waits for its index, and the
  // next slab's first step.
  const float* column = nullptr;
  const int* rows = nullptr;
  int row_length = 0, next_step = 0, reduction = 0;
  int row_of[kGather ? kCopies : 1] = {};

  __device__ __forceinline__ int step_of_copy(int c) const { return kTranspose ? 0 : kVec ? 4 * c : c; }

  // The row indices of the next slab's copies (0 for a step past R: that copy is not issued).
  __device__ __forceinline__ void read_rows() {
#pragma unroll
    for (int c = 0; c < kCopies; ++c) {
      const int r = next_step + first_step + step_of_copy(c);
      row_of[c] = r < reduction ? __ldg(rows + r) : 0;
    }
  }

  __device__ __forceinline__ OperandLoader(const float* p, int ld, int row0, int extent, int reduction_steps, int tid,
                                           const int* gathered_rows = nullptr)
      : rows(gathered_rows), row_length(ld), reduction(reduction_steps) {
    if constexpr (kTranspose) {
      constexpr int kRowsPerPass = kThreads / BK;
      const int row = tid / BK;
      first_step = tid % BK;
      src = p + static_cast<std::ptrdiff_t>(row0 + row) * ld + first_step;
      copy_stride = static_cast<std::size_t>(kRowsPerPass) * ld;
      slab_stride = BK;
      dst = first_step * kLd + row;
#pragma unroll
      for (int c = 0; c < kCopies; ++c) live |= (row0 + row + c * kRowsPerPass < extent ? 1u : 0u) << c;
    } else if constexpr (kVec) {
      const int col = 4 * (tid % 32);
      first_step = tid / 32;
      src = p + static_cast<std::ptrdiff_t>(first_step) * ld + row0 + col;
      copy_stride = static_cast<std::size_t>(4) * ld;
      slab_stride = static_cast<std::size_t>(BK) * ld;
      dst = first_step * kLd + col;
      live = row0 + col < extent ? ~0u : 0u;  // extent % 4 == 0 on this path
    } else {
      first_step = 0;
      src = p + row0 + tid;
      copy_stride = ld;
      slab_stride = static_cast<std::size_t>(BK) * ld;
      dst = tid;
      live = row0 + tid < extent ? ~0u : 0u;
    }
    steps_left = reduction - first_step;
    if constexpr (kGather) {
      column = src - static_cast<std::ptrdiff_t>(first_step) * ld;  // the copies' columns, row 0
      read_rows();
    }
  }

  // Issues this operand's copies of the next slab into `stage` (an operand's place in one ring stage).
  __device__ __forceinline__ void issue(float* stage) {
#pragma unroll
    for (int c = 0; c < kCopies; ++c) {
      // Copy c holds step first_step (+ 4c on the 16-byte path, + c on the 4-byte one) of the slab.
      const bool ok = ((live >> c) & 1u) != 0 && step_of_copy(c) < steps_left;
      const float* from =
          kGather ? column + static_cast<std::ptrdiff_t>(row_of[c]) * row_length : src + c * copy_stride;
      if constexpr (kTranspose)
        copy4_if(stage + dst + c * (kThreads / BK), from, ok);
      else if constexpr (kVec)
        copy16_if(stage + dst + 4 * c * kLd, from, ok);
      else
        copy4_if(stage + dst + c * kLd, from, ok);
    }
    src += slab_stride;
    steps_left -= BK;
    if constexpr (kGather) {
      next_step += BK;
      read_rows();
    }
  }
};

// The operands of one step for this thread: rows and columns as in the file's comment.
struct Fragment {
  float a[kTM];
  float b[kTN];
};

__device__ __forceinline__ void read_fragment(Fragment& f, const float* as, const float* bs, int k, int arow,
                                              int bcol) {
  const float4 a0 = *reinterpret_cast<const float4*>(as + k * kLd + arow);
  const float4 a1 = *reinterpret_cast<const float4*>(as + k * kLd + arow + 32);
  f.a[0] = a0.x, f.a[1] = a0.y, f.a[2] = a0.z, f.a[3] = a0.w;
  f.a[4] = a1.x, f.a[5] = a1.y, f.a[6] = a1.z, f.a[7] = a1.w;
#pragma unroll
  for (int jj = 0; jj < 4; ++jj) {
    const float4 v = *reinterpret_cast<const float4*>(bs + k * kLd + bcol + 16 * jj);
    f.b[4 * jj] = v.x, f.b[4 * jj + 1] = v.y, f.b[4 * jj + 2] = v.z, f.b[4 * jj + 3] = v.w;
  }
}

// The 128 FMAs of one step (one per chain, so their order within the step is free): row by row, or with
// kSnake every other row walked backwards, so that consecutive FMAs always share an operand.
template <bool kSnake>
__device__ __forceinline__ void fma_step(float (&acc)[kTM][kTN], const Fragment& f) {
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int jj = 0; jj < kTN; ++jj) {
      const int j = kSnake && i % 2 == 1 ? kTN - 1 - jj : jj;
      acc[i][j] = __fmaf_rn(f.a[i], f.b[j], acc[i][j]);
    }
}

// Block b's output tile: in bands of kGroup tile rows, the rows of a band fastest (so the blocks resident at
// once share a few B panels and a band of A), or (kGroup = 0) the columns fastest.
template <int kGroup>
__device__ __forceinline__ void block_tile(const OuterArgs& a, unsigned b, unsigned* tp, unsigned* tq) {
  if constexpr (kGroup == 0) {
    *tp = b / a.tiles_q;
    *tq = b % a.tiles_q;
  } else {
    const unsigned band = b / (kGroup * a.tiles_q), in = b % (kGroup * a.tiles_q);
    const unsigned rows = std::min(static_cast<unsigned>(kGroup), a.tiles_p - band * kGroup);
    *tp = band * kGroup + in % rows;
    *tq = in / rows;
  }
}

template <Layout kLA, Layout kLB, bool kVec, int BK, int STAGES, int kGroup, bool kSnake, bool kGather,
          bool kAccumulate>
__global__ void __launch_bounds__(kThreads, 2) f32_outer_kernel(const OuterArgs a) {
  using Rg = Ring<BK, STAGES>;
  __shared__ __align__(16) float ring[STAGES * Rg::kStageFloats];
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32, warp = tid / 32;
  unsigned tp, tq;
  block_tile<kGroup>(a, blockIdx.x, &tp, &tq);
  const int p0 = static_cast<int>(tp) * kTile, q0 = static_cast<int>(tq) * kTile;
  const int arow = (warp / 2) * 64 + (lane / 4) * 4;  // rows arow + {0..3}, arow + 32 + {0..3}
  const int bcol = (warp % 2) * 64 + (lane % 4) * 4;  // columns bcol + 16 jj + {0..3}

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;  // +0: the contract's start value
  if constexpr (kAccumulate) {
    // dW continued: every chain starts at the output's current value (the chain of the earlier calls).
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      const int m = p0 + arow + (i / 4) * 32 + i % 4;
#pragma unroll
      for (int j = 0; j < kTN; ++j) {
        const int n = q0 + bcol + 16 * (j / 4) + j % 4;
        if (m < a.P && n < a.Q) acc[i][j] = a.out[static_cast<std::size_t>(m) * a.Q + n];
      }
    }
  }

  OperandLoader<kLA, kVec, BK, kGather> load_a(a.a, a.lda, p0, a.P, a.R, tid, a.rows);
  OperandLoader<kLB, kVec, BK, kGather> load_b(a.b, a.ldb, q0, a.Q, a.R, tid, a.rows);
  const auto issue = [&](int slab) {
    float* stage = ring + (slab % STAGES) * Rg::kStageFloats;
    load_a.issue(stage);
    load_b.issue(stage + Rg::kOperandFloats);
  };
  const int full = a.R / BK, steps_left = a.R % BK;
  const int slabs = full + (steps_left > 0 ? 1 : 0);
  // Prologue: slabs 0 .. STAGES - 2 in flight, one commit group each (empty past the last slab, so that the
  // group count, and with it every wait below, is the same whatever R is).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slabs) issue(s);
    cp_async_commit();
  }
  cp_async_wait<STAGES - 2>();  // slab 0 has landed (this thread's copies) ...
  __syncthreads();              // ... and everyone's

  Fragment f[2];
  read_fragment(f[0], ring, ring + Rg::kOperandFloats, 0, arow, bcol);
  for (int s = 0; s < full; ++s) {
    // Slab s - 1's stage is free: every thread passed the barrier that ended its reads.
    if (s + STAGES - 1 < slabs) issue(s + STAGES - 1);
    cp_async_commit();
    const float* as = ring + (s % STAGES) * Rg::kStageFloats;
    const float* bs = as + Rg::kOperandFloats;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k < BK - 1) {
        read_fragment(f[(k + 1) % 2], as, bs, k + 1, arow, bcol);
      } else {
        cp_async_wait<STAGES - 2>();  // slab s + 1 has landed (this thread's copies) ...
        __syncthreads();              // ... and everyone's; every thread has read all of slab s
        // Past the last slab this reads resident bytes that no FMA uses.
        const float* an = ring + ((s + 1) % STAGES) * Rg::kStageFloats;
        read_fragment(f[(k + 1) % 2], an, an + Rg::kOperandFloats, 0, arow, bcol);
      }
      fma_step<kSnake>(acc, f[k % 2]);
    }
  }
  if (steps_left > 0) {
    // The partial last slab (resident: the loop's last barrier, or the prologue's, waited for it).
    const float* as = ring + (full % STAGES) * Rg::kStageFloats;
#pragma unroll 1
    for (int k = 0; k < steps_left; ++k) {
      read_fragment(f[0], as, as + Rg::kOperandFloats, k, arow, bcol);
      fma_step<kSnake>(acc, f[0]);
    }
  }
  cp_async_wait<0>();  // nothing may be in flight into shared memory when the block exits

  const bool vec_store = kVec && a.Q % 4 == 0 && reinterpret_cast<std::uintptr_t>(a.out) % 16 == 0;
#pragma unroll
  for (int jj = 0; jj < 4; ++jj) {
    const int n = q0 + bcol + 16 * jj;
    float bv[4] = {0.f, 0.f, 0.f, 0.f};
    if (a.bias != nullptr) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (n + j < a.Q) bv[j] = a.bias[n + j];
    }
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      const int m = p0 + arow + (i / 4) * 32 + i % 4;
      if (m >= a.P) continue;
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = a.bias != nullptr ? __fadd_rn(acc[i][4 * jj + j], bv[j]) : acc[i][4 * jj + j];
      float* o = a.out + static_cast<std::size_t>(m) * a.Q + n;
      if (vec_store && n + 3 < a.Q) {
        *reinterpret_cast<float4*>(o) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (n + j < a.Q) o[j] = v[j];
      }
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// A kernel per operand path (16-byte or 4-byte), gather and accumulate: the accumulate start values cost the
// others registers enough to spill when they share one kernel (ptxas: 255 registers, 64-72 bytes of spills).
template <Layout kLA, Layout kLB, int BK, int STAGES, int kGroup, bool kSnake, bool kGather = false,
          bool kAccumulate = false>
cudaError_t launch_outer(OuterArgs a, bool vec, cudaStream_t stream) {
  a.tiles_p = static_cast<unsigned>(ceil_div(a.P, kTile));
  a.tiles_q = static_cast<unsigned>(ceil_div(a.Q, kTile));
  void* args[] = {&a};
  const dim3 grid(a.tiles_p * a.tiles_q), block(kThreads);
  const cudaError_t e =
      vec ? cudaLaunchKernel(&f32_outer_kernel<kLA, kLB, true, BK, STAGES, kGroup, kSnake, kGather, kAccumulate>, grid,
                             block, args, 0, stream)
          : cudaLaunchKernel(&f32_outer_kernel<kLA, kLB, false, BK, STAGES, kGroup, kSnake, kGather, kAccumulate>, grid,
                             block, args, 0, stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

}  // namespace

// Forward: out = Y [M,N], A = X [M,K], B = W [N,K], both reduction-contiguous, R = K. The 4-byte transposing
// copies need no alignment, so "vec" only decides the float4 output stores.
template <int BK, int STAGES, int kGroup, bool kSnake>
cudaError_t launch_fwd_f32_outer(const LaunchParams& p) {
  const OuterArgs a{p.x, p.w, p.bias, p.y, p.K, p.K, p.M, p.N, p.K, 0, 0};
  return launch_outer<Layout::reduction_contiguous, Layout::reduction_contiguous, BK, STAGES, kGroup, kSnake>(
      a, aligned16(p.y) && p.N % 4 == 0, p.stream);
}

// dX: out = dX [M,K], A = G [M,N] reduction-contiguous, B(j = k, r = n) = W [N,K] output-contiguous, R = N.
template <int BK, int STAGES, int kGroup, bool kSnake>
cudaError_t launch_bwd_dx_f32_outer(const BackwardDataLaunch& p) {
  const OuterArgs a{p.g, p.w, nullptr, p.dx, p.N, p.K, p.M, p.K, p.N, 0, 0};
  return launch_outer<Layout::reduction_contiguous, Layout::output_contiguous, BK, STAGES, kGroup, kSnake>(
      a, p.K % 4 == 0 && aligned16(p.w) && aligned16(p.dx), p.stream);
}

// The configuration the tables run (kernels/fwd_f32_simt_by_shape.cu): slabs of 8 steps in a ring of 3, tile
// columns fastest, snake order. Measured against rings of 4, slabs of 16 in a ring of 2, bands of 8 tile rows
// and plain row order on the seed's square shapes (the 2026-12-02 sweep): the fastest or within 1% of it on
// every shape, forward and dX; the plain row order was 5-13% slower.
// dW: out = dW [N,K], A(i = n, r) = G [row(r), n] and B(j = k, r) = X [row(r), k], both output-contiguous,
// R = the active tokens, row(r) = rows[r] (gathered) or r; then db by its own kernel (launch_bwd_db_f32).
template <int BK, int STAGES, int kGroup, bool kSnake>
cudaError_t launch_bwd_dw_f32_outer(const BackwardWeightLaunch& p) {
  OuterArgs a{p.g, p.x, nullptr, p.dw, p.N, p.K, p.N, p.K, p.R, 0, 0};
  a.rows = p.rows;
  a.accumulate = p.accumulate;
  const bool vec = p.N % 4 == 0 && p.K % 4 == 0 && aligned16(p.g) && aligned16(p.x) && aligned16(p.dw);
  constexpr Layout kOc = Layout::output_contiguous;
  const bool gather = p.rows != nullptr;
  const cudaError_t e =
      p.accumulate ? (gather ? launch_outer<kOc, kOc, BK, STAGES, kGroup, kSnake, true, true>(a, vec, p.stream)
                             : launch_outer<kOc, kOc, BK, STAGES, kGroup, kSnake, false, true>(a, vec, p.stream))
                   : (gather ? launch_outer<kOc, kOc, BK, STAGES, kGroup, kSnake, true, false>(a, vec, p.stream)
                             : launch_outer<kOc, kOc, BK, STAGES, kGroup, kSnake, false, false>(a, vec, p.stream));
  if (e != cudaSuccess || p.db == nullptr) return e;
  return launch_bwd_db_f32(p);
}

template cudaError_t launch_fwd_f32_outer<8, 3, 0, true>(const LaunchParams&);
template cudaError_t launch_bwd_dx_f32_outer<8, 3, 0, true>(const BackwardDataLaunch&);
template cudaError_t launch_bwd_dw_f32_outer<8, 3, 0, true>(const BackwardWeightLaunch&);

}  // namespace ordo::kernels::detail
