// Production kernels of the FP32 backward contracts:
//   "sm80.bwd.dx.f32.fma.simt.128x128x16": dX = G * W        (bwd.dx.f32.fma-chain/1)
//   "sm80.bwd.dw.f32.fma.simt.128x128x16": dW = G^T * X, db  (bwd.dw.f32.fma-chain/1)
//
// Both products are one tile GEMM, the forward 128x128x16 SIMT tile generalised: out[i, j] (row-major
// [P, Q]) is a chain over the reduction index r = 0..R-1 of A(i, r) * B(j, r). Each operand is stored
// one of two ways (kernels/bwd_tile_loaders.cuh):
//   reduction-contiguous: (i, r) at base[i * ld + r]       (dX's G, like the forward X and W)
//   output-contiguous:    (i, r) at base[row(r) * ld + i]  (dX's W; dW's G and X)
// where row(r) is r, or, for dW with keys not in canonical order, rows[r]: the token the r-th step of
// the canonical order reads, so X and G are gathered on the fly and never copied.
//   dX: i = m, j = k, r = n:  A = G reduction-contiguous (ld N), B = W output-contiguous (ld K), row(r) = r.
//   dW: i = n, j = k, r = step: A = G output-contiguous (ld N), B = X output-contiguous (ld K).
//
// Structure (as the forward tile, fwd_f32_simt_128x128x16.cu)
//   * Block tile 128 (i) x 128 (j), BK = 16, 256 threads, __launch_bounds__(256, 2): at most 128
//     registers, two blocks per SM. 1-D grid of ceil(P/128) * ceil(Q/128), j tiles fastest.
//   * Each thread owns an 8x8 register micro-tile: rows {ty*4 + 0..3, 64 + ty*4 + 0..3}, columns
//     {tx*4 + 0..3, 64 + tx*4 + 0..3}; per step four broadcast, conflict-free LDS.128 and 64 FMAs.
//   * Shared memory holds both operands as [r][i] and [r][j] (leading dimension 132), double
//     buffered; slab s+1 is fetched into registers while slab s is computed, A around the first eight
//     steps and B around the last eight, one __syncthreads per slab.
//   * With a row index, the indices of slab s+2 are read during slab s, so the loads of slab s+1
//     never wait on an index load.
//
// Arithmetic (the contracts): every output is one chain acc = __fmaf_rn(A(i, r), B(j, r), acc) over
// r ascending (the 16 steps of a slab in order, slabs in order), started at +0.0f, or, for dW with
// accumulate, at the output's current value (the chain a previous call over earlier tokens left
// there). Nothing is split, reordered or reduced across threads, so the bits depend on neither the
// shape, the grid nor the tile. The contracts write fma(G, W) and fma(G, X); A and B are G and the
// other operand in that order, and an FMA's product is exact, so the operand order of __fmaf_rn could
// not change a bit anyway. Compiled with --fmad=false and without fast-math.
//
// The reduction tail is padded with A = +0 and B = -0, which leaves every accumulator exactly as it
// was (see bwd_tile_loaders.cuh); the float4 and scalar load paths read the same values into the same
// places, so they give the same bits.
//
// db: a separate kernel, one chain acc = __fadd_rn(acc, G[row(r), n]) per column n over the same
// steps, coalesced over n: a block stages 256 steps x 32 columns of G in shared memory, then one warp
// (lane = column) runs the 32 chains through them in order.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/backward_internal.h"
#include "kernels/bwd_tile_loaders.cuh"
#include "kernels/tile_128x128_steps.cuh"

namespace ordo::kernels::detail {
namespace {

using namespace bwd_tile;  // NOLINT(google-build-using-namespace): the tile's own constants and loaders

// One tile GEMM as the kernel sees it.
struct TileGemm {
  const float* a = nullptr;  // A(i, r): reduction-contiguous or output-contiguous (the kernel's LA)
  const float* b = nullptr;  // B(j, r): output-contiguous
  const int* rows = nullptr; // row(r) of the output-contiguous operands when kGather
  float* out = nullptr;      // [P, Q], row-major
  int lda = 0, ldb = 0;
  int P = 0, Q = 0, R = 0;
  unsigned tiles_q = 1;
  bool accumulate = false;
  bool vec_store = false;
};

// The operand A of one slab into registers (reduction- or output-contiguous), then into shared memory.
template <Layout kLA, bool kVec>
struct ALoader {
  // reduction-contiguous: this thread's row of the A tile and its two k-chunks (as the forward tile)
  const float* row = nullptr;
  bool row_ok = false;
  int ld_row = 0, ld_kh = 0;

  __device__ __forceinline__ void load(float4 (&v)[2], const TileGemm& p, int r0, const int (&trow)[2], int i_oc) const {
    if constexpr (reduction_contiguous(kLA))
      load_rc_chunks<kVec>(v, row, row_ok, r0, ld_kh, p.R, kPadA);
    else
      load_oc_chunks<kVec>(v, p.a, p.lda, trow, i_oc, p.P, kPadA);
  }
  __device__ __forceinline__ void store(float* s, const float4 (&v)[2], int tid) const {
    if constexpr (reduction_contiguous(kLA))
      store_rc_chunks(s, v, ld_row, ld_kh);
    else
      store_oc_chunks(s, v, tid);
  }
};

template <Layout kLA, bool kVec, bool kGather>
__global__ void __launch_bounds__(kThreads, 2) bwd_f32_simt_128x128x16_kernel(const TileGemm p) {
  // [buffer][operand (0 = A as [r][i], 1 = B as [r][j])][r][i or j]
  __shared__ __align__(16) float smem[2 * kBufferFloats];

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int i0 = static_cast<int>(blockIdx.x / p.tiles_q) * kBM;
  const int j0 = static_cast<int>(blockIdx.x % p.tiles_q) * kBN;

  // Loaders. Output-contiguous: thread (warp, lane) loads steps warp and warp + 8 of a slab, the
  // float4 at tile column 4 * lane; a warp reads 512 contiguous bytes of one row.
  ALoader<kLA, kVec> la;
  if constexpr (reduction_contiguous(kLA)) {
    la.ld_row = warp * 16 + (lane & 15);
    la.ld_kh = lane >> 4;
    la.row_ok = i0 + la.ld_row < p.P;
    // 64-bit row offset; a masked row points at row 0 and is never dereferenced.
    la.row = p.a + (la.row_ok ? static_cast<size_t>(i0 + la.ld_row) * static_cast<size_t>(p.lda) : size_t{0});
  }
  const int i_oc = i0 + 4 * lane;  // output-contiguous A: this thread's first tile row
  const int j_oc = j0 + 4 * lane;  // B: this thread's first tile column

  // Compute: warp (wy, wx) = (warp >> 1, warp & 1) covers ty = wy*4 + lane/8, tx = wx*8 + lane%8.
  const int ty = (warp >> 1) * 4 + (lane >> 3);
  const int tx = (warp & 1) * 8 + (lane & 7);

  // The start of every chain: +0.0f (the contracts' start value), or the current output with accumulate.
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  if (p.accumulate) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int m = i0 + (i >> 2) * 64 + ty * 4 + (i & 3);
      if (m >= p.P) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int n = j0 + h * 64 + tx * 4;
        const float* op = p.out + static_cast<size_t>(m) * static_cast<size_t>(p.Q) + static_cast<size_t>(n);
        if (p.vec_store && n + 3 < p.Q) {
          const float4 v = *reinterpret_cast<const float4*>(op);
          acc[i][h * 4 + 0] = v.x;
          acc[i][h * 4 + 1] = v.y;
          acc[i][h * 4 + 2] = v.z;
          acc[i][h * 4 + 3] = v.w;
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (n + j < p.Q) acc[i][h * 4 + j] = op[j];
        }
      }
    }
  }

  // Row indices of the output-contiguous operands for the slab being fetched (-1 past the end).
  int trow[2];
  slab_rows<kGather>(trow, p.rows, 0, warp, p.R);

  // Prologue: slab 0 into buffer 0.
  float4 v[2];  // the prefetch registers, used for A and B in turn
  la.load(v, p, 0, trow, i_oc);
  la.store(smem, v, tid);
  load_oc_chunks<kVec>(v, p.b, p.ldb, trow, j_oc, p.Q, kPadB);
  store_oc_chunks(smem + kOperandFloats, v, tid);
  slab_rows<kGather>(trow, p.rows, 1, warp, p.R);
  __syncthreads();

  // Main loop: slab s is computed from buffer s&1 while slab s+1 is fetched into buffer (s+1)&1 (last
  // read in slab s-1, which every thread finished before the barrier that ended it).
  const int n_slabs = (p.R + kBK - 1) / kBK;
  for (int s = 0; s < n_slabs; ++s) {
    const int r_next = (s + 1) * kBK;
    const float* sa = smem + (s & 1) * kBufferFloats;
    const float* sb = sa + kOperandFloats;
    float* nxt = smem + ((s + 1) & 1) * kBufferFloats;

    la.load(v, p, r_next, trow, i_oc);
    steps_8x8<0, kBK, kLd>(acc, sa, sb, ty, tx);  // steps 0..7 of this slab, ascending
    la.store(nxt, v, tid);
    load_oc_chunks<kVec>(v, p.b, p.ldb, trow, j_oc, p.Q, kPadB);
    slab_rows<kGather>(trow, p.rows, s + 2, warp, p.R);
    steps_8x8<kBK / 2, kBK, kLd>(acc, sa, sb, ty, tx);  // steps 8..15, ascending
    store_oc_chunks(nxt + kOperandFloats, v, tid);
    __syncthreads();
  }

  // Epilogue: out = acc; masked rows and columns are not stored.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int n = j0 + h * 64 + tx * 4;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int m = i0 + (i >> 2) * 64 + ty * 4 + (i & 3);
      if (m >= p.P) continue;
      float* op = p.out + static_cast<size_t>(m) * static_cast<size_t>(p.Q) + static_cast<size_t>(n);
      if (p.vec_store && n + 3 < p.Q) {
        *reinterpret_cast<float4*>(op) = make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2],
                                                     acc[i][h * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (n + j < p.Q) op[j] = acc[i][h * 4 + j];
      }
    }
  }
}

// db: block b owns columns 32b .. 32b+31. Per round of 256 steps, every warp stages 32 steps of the
// block's 32 columns (one 128-byte row segment per step), then warp 0, lane = column, folds the 256
// staged values into its chain in step order. Staged slots past the last step hold -0, the exact
// identity of round-to-nearest addition (-0 + acc == acc for every acc, +0 and -0 included); they
// follow at least one real step, so acc is already a GPU result then (a NaN is the canonical one).
constexpr int kDbCols = 32;
constexpr int kDbSteps = 256;
constexpr int kDbThreads = 256;

template <bool kGather>
__global__ void __launch_bounds__(kDbThreads) bwd_db_f32_kernel(const float* __restrict__ g, const int* __restrict__ rows,
                                                                float* __restrict__ db, int N, int R, bool accumulate) {
  __shared__ float staged[kDbSteps][kDbCols + 1];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int n = static_cast<int>(blockIdx.x) * kDbCols + lane;
  const bool n_ok = n < N;
  float acc = 0.0f;  // +0.0f: the contract's start value
  if (warp == 0 && n_ok && accumulate) acc = db[n];
  for (int r0 = 0; r0 < R; r0 += kDbSteps) {
#pragma unroll 8
    for (int q = 0; q < kDbSteps / 8; ++q) {
      const int slot = warp * (kDbSteps / 8) + q;
      const int r = r0 + slot;
      float val = -0.0f;
      if (r < R && n_ok) {
        const int t = kGather ? __ldg(rows + r) : r;
        val = g[static_cast<size_t>(t) * static_cast<size_t>(N) + static_cast<size_t>(n)];
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
  if (warp == 0 && n_ok) db[n] = acc;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <Layout kLA, bool kVec, bool kGather>
cudaError_t launch_tile(const TileGemm& g, cudaStream_t stream) {
  TileGemm p = g;
  const auto tiles_p = static_cast<unsigned>(ceil_div(p.P, kBM));
  p.tiles_q = static_cast<unsigned>(ceil_div(p.Q, kBN));
  void* args[] = {&p};
  // The typed form (CUDA's cudaLaunchKernel template), which the host emulation's shim also takes.
  return cudaLaunchKernel(&bwd_f32_simt_128x128x16_kernel<kLA, kVec, kGather>, dim3(tiles_p * p.tiles_q),
                          dim3(kThreads), args, 0, stream);
}

}  // namespace

cudaError_t launch_bwd_dx_f32_simt_128x128x16(const BackwardDataLaunch& p) {
  TileGemm t;
  t.a = p.g;  // A(i = m, r = n) = G[m, n]: reduction-contiguous, ld N
  t.lda = p.N;
  t.b = p.w;  // B(j = k, r = n) = W[n, k]: output-contiguous, ld K
  t.ldb = p.K;
  t.out = p.dx;
  t.P = p.M;
  t.Q = p.K;
  t.R = p.N;
  t.vec_store = p.K % 4 == 0 && aligned16(p.dx);
  const bool vec = p.N % 4 == 0 && p.K % 4 == 0 && aligned16(p.g) && aligned16(p.w);
  const cudaError_t e = vec ? launch_tile<Layout::reduction_contiguous, true, false>(t, p.stream)
                            : launch_tile<Layout::reduction_contiguous, false, false>(t, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

cudaError_t launch_bwd_dw_f32_simt_128x128x16(const BackwardWeightLaunch& p) {
  TileGemm t;
  t.a = p.g;  // A(i = n, r) = G[row(r), n]: output-contiguous, ld N
  t.lda = p.N;
  t.b = p.x;  // B(j = k, r) = X[row(r), k]: output-contiguous, ld K
  t.ldb = p.K;
  t.rows = p.rows;
  t.out = p.dw;
  t.P = p.N;
  t.Q = p.K;
  t.R = p.R;
  t.accumulate = p.accumulate;
  t.vec_store = p.K % 4 == 0 && aligned16(p.dw);
  const bool vec = p.N % 4 == 0 && p.K % 4 == 0 && aligned16(p.g) && aligned16(p.x);
  const bool gather = p.rows != nullptr;
  cudaError_t e;
  if (vec)
    e = gather ? launch_tile<Layout::output_contiguous, true, true>(t, p.stream)
               : launch_tile<Layout::output_contiguous, true, false>(t, p.stream);
  else
    e = gather ? launch_tile<Layout::output_contiguous, false, true>(t, p.stream)
               : launch_tile<Layout::output_contiguous, false, false>(t, p.stream);
  if (e == cudaSuccess && p.db != nullptr) return launch_bwd_db_f32(p);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}

cudaError_t launch_bwd_db_f32(const BackwardWeightLaunch& p) {
  const float* g = p.g;
  const int* rows = p.rows;
  float* db = p.db;
  int N = p.N, R = p.R;
  bool accumulate = p.accumulate;
  void* args[] = {&g, &rows, &db, &N, &R, &accumulate};
  const void* fn = p.rows != nullptr ? reinterpret_cast<const void*>(&bwd_db_f32_kernel<true>)
                                     : reinterpret_cast<const void*>(&bwd_db_f32_kernel<false>);
  const cudaError_t e =
      cudaLaunchKernel(fn, dim3(static_cast<unsigned>(ceil_div(p.N, kDbCols))), dim3(kDbThreads), args, 0, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}

}  // namespace ordo::kernels::detail
