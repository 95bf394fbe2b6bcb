// Production kernels of the BF16 backward contracts on tensor cores, the portable baseline (no speed
// goal), one source for both SM ranges:
//   "sm90.bwd.dx.bf16.mma-sync.32x32x16", "sm80.bwd.dx.bf16.mma-sync.32x32x16": dX = G * W
//       (bwd.dx.bf16.tc-fdpa-sm90/1, bwd.dx.bf16.tc-fdpa-sm80/1)
//   "sm90.bwd.dw.bf16.mma-sync.32x32x16", "sm80.bwd.dw.bf16.mma-sync.32x32x16": dW = G^T * X, db
//       (bwd.dw.bf16.tc-fdpa-sm90/1, bwd.dw.bf16.tc-fdpa-sm80/1)
// The registry gives each variant the SM range whose tensor-core arithmetic its contract describes;
// the code is the same.
//
// Both products are one tile GEMM: out[i, j] (row-major [P, Q], FP32) is a chain over the reduction
// index r = 0..R-1 of A(i, r) * B(j, r), in instruction steps of 16 r. Operands are bfloat16 bit
// patterns (uint16) in global memory:
//   dX: i = m, j = k, r = n: A(i, r) = G[m, n] (r contiguous, ld N), B(j, r) = W[n, k] (j contiguous,
//       ld K), row(r) = r.
//   dW: i = n, j = k, r = the r-th active token of the canonical order: A(i, r) = G[row(r), n] (i
//       contiguous, ld N), B(j, r) = X[row(r), k] (j contiguous, ld K), row(r) = r in place, or
//       rows[r] (a device index of the canonical order: the rows are gathered while staging, never
//       copied).
//
// Structure (as the forward baseline, fwd_bf16_wmma_32x32x16.cu)
//   * A block of 128 threads (4 warps) owns a 32x32 output tile; warp w computes the 16x16 sub-tile at
//     rows 16 * (w / 2), columns 16 * (w % 2) as one nvcuda::wmma accumulator fragment (16x16x16,
//     bf16 -> f32: two mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 per step). 1-D grid of
//     ceil(P/32) * ceil(Q/32) blocks, j tiles fastest.
//   * Per step the 16 r of A for the block's 32 rows i and of B for its 32 columns j are staged in
//     shared memory as [i][r] and [j][r], and loaded as a row-major matrix_a and a col-major matrix_b:
//     the layouts of the forward baseline, so both products issue the forward's instruction
//     (wmma.mma.sync.row.col.m16n16k16.f32.bf16.bf16.f32). An r-contiguous operand (dX's G) is read
//     as it lies, a half-warp reading 16 consecutive r of one row; an operand whose rows are the r
//     (dX's W, dW's G and X) is staged by thread (warp, lane) at steps warp, warp + 4, warp + 8,
//     warp + 12 and column lane (a warp reads 64 contiguous bytes of one row) and transposed into
//     shared memory.
//
// Order (the contracts): the accumulator fragment starts at +0 (fill_fragment) or, for dW with
// accumulate, at the current dW (read through shared memory), and is the C operand of every
// mma_sync(acc, a, b, acc), steps in ascending r. Nothing is split over warps or blocks along r, so
// the bits depend on neither the grid nor the position of an output in its tile.
//
// Zero fill: every staged element outside its operand (r >= R, i >= P, j >= Q) is +0 (bits 0x0000),
// in BOTH operands for r >= R, so a missing step r is the zero product +0 * +0 (never 0 * Inf or 0 *
// NaN), exactly the contract's padding of the last step (in the T-FDPA model a zero product never
// moves the alignment exponent). For dW a step r >= R has no token: nothing is read for it. Rows
// i >= P and columns j >= Q only reach outputs that are never stored.
//
// db: a separate kernel with the structure of the FP32 db kernel (bwd_f32_simt_128x128x16.cu): one
// chain acc = __fadd_rn(acc, G[row(r), n]) per column n over the same r, from +0 or, with accumulate,
// from db; the bfloat16 G is widened exactly to binary32 (its bits shifted up by 16). A block stages
// 256 steps x 32 columns in shared memory, then warp 0 (lane = column) folds them in step order.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

#include "kernels/backward_internal.h"
#include "kernels/operand_layout.h"

namespace ordo::kernels::detail {
namespace {

constexpr int kTile = 32;           // output rows i and columns j per block
constexpr int kStep = 16;           // reduction indices r per instruction step
constexpr int kThreads = 128;       // 4 warps, one 16x16 fragment each
constexpr int kLd = kStep + 8;      // bf16 per row of an [i][r] or [j][r] tile: a multiple of 8 (wmma)
constexpr int kLdAcc = kTile + 4;   // floats per row of the staged accumulator tile: a multiple of 4 (wmma)
constexpr std::uint16_t kZero = 0;  // bfloat16 +0
static_assert(kThreads == 4 * 32 && kTile == 32 && kStep == 16,
              "the staging mappings are written for 4 warps, 32x32x16");

// How A holds element (i, r) in global memory; B always holds (j, r) at b[row(r) * ldb + j].
using ALayout = OperandLayout;

// One tile GEMM as the kernel sees it.
struct Bf16TileGemm {
  const std::uint16_t* a = nullptr;  // A(i, r), as ALayout says
  const std::uint16_t* b = nullptr;  // B(j, r) at b[row(r) * ldb + j]
  const int* rows = nullptr;         // row(r) = rows[r] when gathering
  float* out = nullptr;              // [P, Q], row-major
  int lda = 0, ldb = 0;
  int P = 0, Q = 0, R = 0;
  unsigned tiles_q = 1;
  bool accumulate = false;
};

template <ALayout kLA, bool kGather>
__global__ void __launch_bounds__(kThreads) bwd_bf16_wmma_kernel(const Bf16TileGemm p) {
#if __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  __shared__ __align__(32) std::uint16_t as[kTile * kLd];   // A: [i][r]
  __shared__ __align__(32) std::uint16_t bs[kTile * kLd];   // B: [j][r]
  __shared__ __align__(32) float acc_tile[kTile * kLdAcc];  // the accumulators: [i][j]

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int i0 = static_cast<int>(blockIdx.x / p.tiles_q) * kTile;
  const int j0 = static_cast<int>(blockIdx.x % p.tiles_q) * kTile;
  const int wi = (warp >> 1) * 16;  // this warp's sub-tile: rows wi.., columns wj..
  const int wj = (warp & 1) * 16;

  // The start of every chain: +0, or the current output with accumulate (every warp reads back only
  // its own sub-tile, which it alone overwrites at the end).
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  if (p.accumulate) {
    for (int e = tid; e < kTile * kTile; e += kThreads) {
      const int ti = e / kTile, tj = e % kTile;
      const int i = i0 + ti, j = j0 + tj;
      acc_tile[ti * kLdAcc + tj] =
          (i < p.P && j < p.Q) ? p.out[static_cast<size_t>(i) * static_cast<size_t>(p.Q) + static_cast<size_t>(j)]
                               : 0.0f;
    }
    __syncthreads();
    wmma::load_matrix_sync(acc, acc_tile + wi * kLdAcc + wj, kLdAcc, wmma::mem_row_major);
  } else {
    wmma::fill_fragment(acc, 0.0f);  // +0: the contracts' start value
  }

  for (int r0 = 0; r0 < p.R; r0 += kStep) {
    // Operands whose rows are the r: steps warp + 4q, column lane, transposed into [column][r]. t is
    // the row of the step, -1 past the last.
#pragma unroll
    for (int q = 0; q < kStep / 4; ++q) {
      const int s = warp + 4 * q;
      const int r = r0 + s;
      int t = -1;
      if (r < p.R) {
        if constexpr (kGather)
          t = __ldg(p.rows + r);
        else
          t = r;
      }
      const int j = j0 + lane;
      bs[lane * kLd + s] = (t >= 0 && j < p.Q)
                               ? p.b[static_cast<size_t>(t) * static_cast<size_t>(p.ldb) + static_cast<size_t>(j)]
                               : kZero;
      if constexpr (!reduction_contiguous(kLA)) {
        const int i = i0 + lane;
        as[lane * kLd + s] = (t >= 0 && i < p.P)
                                 ? p.a[static_cast<size_t>(t) * static_cast<size_t>(p.lda) + static_cast<size_t>(i)]
                                 : kZero;
      }
    }
    if constexpr (reduction_contiguous(kLA)) {
      // [i][r] tile: element e = tid + 128q is row e / 16, step e % 16.
#pragma unroll
      for (int q = 0; q < kTile * kStep / kThreads; ++q) {
        const int e = tid + kThreads * q;
        const int ti = e / kStep, s = e % kStep;
        const int i = i0 + ti, r = r0 + s;
        as[ti * kLd + s] = (i < p.P && r < p.R)
                               ? p.a[static_cast<size_t>(i) * static_cast<size_t>(p.lda) + static_cast<size_t>(r)]
                               : kZero;
      }
    }
    __syncthreads();

    // The warp's 16 rows of A[i][r] as a row-major matrix_a, its 16 columns of B as the col-major
    // matrix_b (element (r, j) at bs[j * kLd + r]).
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::load_matrix_sync(fa, reinterpret_cast<const __nv_bfloat16*>(as + wi * kLd), kLd);
    wmma::load_matrix_sync(fb, reinterpret_cast<const __nv_bfloat16*>(bs + wj * kLd), kLd);
    wmma::mma_sync(acc, fa, fb, acc);  // the running accumulator is C
    __syncthreads();                   // before the next step overwrites the staged operands
  }

  // Epilogue: through shared memory, then the tile's rows i < P and columns j < Q (a warp stores 128
  // contiguous bytes of one row).
  wmma::store_matrix_sync(acc_tile + wi * kLdAcc + wj, acc, kLdAcc, wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < kTile * kTile; e += kThreads) {
    const int ti = e / kTile, tj = e % kTile;
    const int i = i0 + ti, j = j0 + tj;
    if (i < p.P && j < p.Q)
      p.out[static_cast<size_t>(i) * static_cast<size_t>(p.Q) + static_cast<size_t>(j)] = acc_tile[ti * kLdAcc + tj];
  }
#endif
}

// db: block b owns columns 32b .. 32b+31. Per round of 256 steps every warp stages 32 steps of the
// block's 32 columns, then warp 0, lane = column, folds the 256 staged values into its chain in step
// order. Staged slots past the last step hold -0, the exact identity of round-to-nearest addition
// (-0 + acc == acc for every acc, +0 and -0 included); they follow at least one real step of the same
// round, so acc is already a GPU result then (a NaN is the canonical one).
constexpr int kDbCols = 32;
constexpr int kDbSteps = 256;
constexpr int kDbThreads = 256;

struct Bf16BiasGrad {
  const std::uint16_t* g = nullptr;  // [T, N] bfloat16
  const int* rows = nullptr;         // row(r) = rows[r] when gathering
  float* db = nullptr;               // [N]
  int N = 0, R = 0;
  bool accumulate = false;
};

template <bool kGather>
__global__ void __launch_bounds__(kDbThreads) bwd_db_bf16_kernel(const Bf16BiasGrad p) {
  __shared__ float staged[kDbSteps][kDbCols + 1];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int n = static_cast<int>(blockIdx.x) * kDbCols + lane;
  const bool n_ok = n < p.N;
  float acc = 0.0f;  // +0.0f: the contract's start value
  if (warp == 0 && n_ok && p.accumulate) acc = p.db[n];
  for (int r0 = 0; r0 < p.R; r0 += kDbSteps) {
#pragma unroll 8
    for (int q = 0; q < kDbSteps / 8; ++q) {
      const int slot = warp * (kDbSteps / 8) + q;
      const int r = r0 + slot;
      float val = -0.0f;
      if (r < p.R && n_ok) {
        int t = r;
        if constexpr (kGather) t = __ldg(p.rows + r);
        const std::uint16_t h = p.g[static_cast<size_t>(t) * static_cast<size_t>(p.N) + static_cast<size_t>(n)];
        val = __uint_as_float(static_cast<unsigned>(h) << 16);  // bfloat16 -> binary32, exact
      }
      staged[slot][lane] = val;
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll 16
      for (int q = 0; q < kDbSteps; ++q) acc = __fadd_rn(acc, staged[q][lane]);
    }
    __syncthreads();
  }
  if (warp == 0 && n_ok) p.db[n] = acc;
}

template <ALayout kLA, bool kGather>
cudaError_t launch_tile(const Bf16TileGemm& g, cudaStream_t stream) {
  Bf16TileGemm p = g;
  const auto tiles_p = static_cast<unsigned>(ceil_div(p.P, kTile));
  p.tiles_q = static_cast<unsigned>(ceil_div(p.Q, kTile));
  void* args[] = {&p};
  const void* fn = reinterpret_cast<const void*>(&bwd_bf16_wmma_kernel<kLA, kGather>);
  return cudaLaunchKernel(fn, dim3(tiles_p * p.tiles_q), dim3(kThreads), args, 0, stream);
}

}  // namespace

cudaError_t launch_bwd_dx_bf16_wmma_32x32x16(const BackwardDataLaunch& p) {
  Bf16TileGemm t;
  t.a = p.g_bf16;  // A(i = m, r = n) = G[m, n]: reduction-contiguous, ld N
  t.lda = p.N;
  t.b = p.w_bf16;  // B(j = k, r = n) = W[n, k], ld K
  t.ldb = p.K;
  t.out = p.dx;
  t.P = p.M;
  t.Q = p.K;
  t.R = p.N;
  const cudaError_t e = launch_tile<ALayout::reduction_contiguous, false>(t, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

cudaError_t launch_bwd_db_bf16(const BackwardWeightLaunch& p) {
  Bf16BiasGrad b;
  b.g = p.g_bf16;
  b.rows = p.rows;
  b.db = p.db;
  b.N = p.N;
  b.R = p.R;
  b.accumulate = p.accumulate;
  void* args[] = {&b};
  const void* fn = p.rows != nullptr ? reinterpret_cast<const void*>(&bwd_db_bf16_kernel<true>)
                                     : reinterpret_cast<const void*>(&bwd_db_bf16_kernel<false>);
  return cudaLaunchKernel(fn, dim3(static_cast<unsigned>(ceil_div(p.N, kDbCols))), dim3(kDbThreads), args, 0, p.stream);
}

cudaError_t launch_bwd_dw_bf16_wmma_32x32x16(const BackwardWeightLaunch& p) {
  // No active token with accumulate: every chain is its start value, dW and db as they are.
  if (p.R == 0 && p.accumulate) return cudaSuccess;
  Bf16TileGemm t;
  t.a = p.g_bf16;  // A(i = n, r) = G[row(r), n]: output-contiguous, ld N
  t.lda = p.N;
  t.b = p.x_bf16;  // B(j = k, r) = X[row(r), k], ld K
  t.ldb = p.K;
  t.rows = p.rows;
  t.out = p.dw;
  t.P = p.N;
  t.Q = p.K;
  t.R = p.R;
  t.accumulate = p.accumulate;
  const bool gather = p.rows != nullptr;
  cudaError_t e = gather ? launch_tile<ALayout::output_contiguous, true>(t, p.stream)
                         : launch_tile<ALayout::output_contiguous, false>(t, p.stream);
  if (e == cudaSuccess && p.db != nullptr) e = launch_bwd_db_bf16(p);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}

}  // namespace ordo::kernels::detail
