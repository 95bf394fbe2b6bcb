// Production kernel of contract fwd.f32.fma-chain/1: variant "sm80.fwd.f32.fma.simt.128x128x16".
//
// SIMT SGEMM for the "TN" layout (X [M,K] and W [N,K], both K-contiguous), Y = X * W^T (+ b).
//
// Structure
//   * Block tile 128 (m) x 128 (n), BK = 16, 256 threads (8 warps), __launch_bounds__(256, 2):
//     at most 128 registers per thread, so two blocks (16 warps) share an SM.
//   * 1-D grid of ceil(M/128) * ceil(N/128) blocks; blockIdx.x walks the N tiles fastest, so the blocks
//     resident at one time share a few X row panels and sweep W.
//   * Each thread owns an 8x8 register micro-tile: rows {ty*4 + 0..3, 64 + ty*4 + 0..3} and columns
//     {tx*4 + 0..3, 64 + tx*4 + 0..3} of the block tile (ty, tx in 0..15). A warp covers 4 (ty) x 8 (tx)
//     threads, so per k its four LDS.128 read 4 and 8 distinct, contiguous float4s: broadcast and
//     conflict-free.
//   * Shared memory holds both operands transposed, As[k][m] and Bs[k][n], with the leading dimension
//     padded to 132 floats, double-buffered: 2 buffers x 2 operands x 16 x 132 x 4 B = 33 KiB.
//   * Global -> register prefetch, one operand per half slab: while slab s is computed from shared
//     buffer s&1, the X chunks of slab s+1 are loaded into 8 registers before k-steps 0..7 and stored
//     (transposed) into buffer (s+1)&1 after them; then W's chunks likewise around k-steps 8..15. One
//     __syncthreads per slab: buffer (s+1)&1 was last read in slab s-1, before the previous barrier.
//     Halving the prefetch registers keeps the kernel at <= 128 registers with no spills and lets
//     ptxas keep the global loads early (the loads and stores are unconditional: past the last slab
//     every load is masked, and the stores go to a buffer that is never read again).
//   * Zero-cost K tail: k >= K is padded with X = +0 and W = -0 (product -0, the exact identity of
//     round-to-nearest addition; see load_chunks for why +0/+0 padding would not be exact).
//   * Loader mapping: thread (warp, lane) loads rows warp*16 + (lane & 15) of both tiles and the
//     16-byte k-chunks 2*i + (lane >> 4), i = 0, 1. A warp reads 16 rows x 32 contiguous bytes (full
//     sectors), and its transposed 4-byte stores hit 32 distinct banks (row + 16*chunk mod 32, since
//     the padded leading dimension is 4 mod 32).
//
// Arithmetic (the contract): every output is one chain acc = __fmaf_rn(X[m,k], W[n,k], acc) started at
// +0.0f, over k ascending: the 16 k of a slab in ascending order, slabs in ascending order. Nothing is
// split, reordered or reduced across threads, so the bits depend on neither M, N, the grid nor the
// tile. The bias is added once at the end with __fadd_rn. The file is compiled with --fmad=false and
// without fast-math; every multiply-add is an explicit __fmaf_rn.
//
// Loads: the float4 path (K % 4 == 0 and x, w 16-byte aligned) and the scalar path (any K, any 4-byte
// alignment) load exactly the same values into the same places, so they give identical bits; the
// choice is a template parameter (the only two instantiations of this kernel).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/forward_internal.h"
#include "kernels/tile_128x128_steps.cuh"

namespace ordo::kernels::detail {
namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 16;
constexpr int kThreads = 256;
constexpr int kLd = kBM + 4;                 // padded leading dimension of As[k][m] and Bs[k][n]
constexpr int kOperandFloats = kBK * kLd;    // one operand of one buffer
constexpr int kBufferFloats = 2 * kOperandFloats;
static_assert(kBM == kBN, "the loader mapping assumes square block tiles");
static_assert(kThreads == 256 && kBM == 128 && kBK == 16, "the thread mappings below are written for 256 x 128 x 16");
static_assert(kLd % 4 == 0, "LDS.128 needs 16-byte aligned rows");
constexpr float kPadX = 0.0f;   // +0: pad of X for k >= K (see load_chunks)
constexpr float kPadW = -0.0f;  // -0: pad of W for k >= K, so each padded product is exactly -0
static_assert(kLd % 32 == 4, "conflict-free transposed stores need ld == 4 (mod 32)");

// Loads this thread's two 4-float k-chunks (chunks 2*i + kh of the slab starting at k0) of one row;
// `pad` replaces every element outside the matrix (row beyond M or N, or k >= K).
//
// Padding the K tail, and why it is exact: the kernel runs whole BK = 16 slabs, so for k >= K it
// performs extra steps acc = __fmaf_rn(xpad, wpad, acc). X is padded with +0.0f and W with -0.0f, so
// every such step computes (+0 * -0) + acc = -0 + acc, rounded once. -0 is the exact identity of
// round-to-nearest addition: -0 + acc == acc bitwise for EVERY acc, including acc = +0 (-0 + +0 = +0),
// acc = -0 (-0 + -0 = -0), +-Inf, and NaN (a NaN acc stays the canonical NaN). So the padded steps never
// change a bit, and the chain is exactly the contract's chain over k = 0..K-1.
// Padding both operands with +0 would NOT be exact: +0 + acc turns acc = -0 into +0, and acc CAN be -0
// under round-to-nearest: an FMA whose exact result is a nonzero value below half the smallest
// subnormal rounds to a zero with the sign of that value, e.g. __fmaf_rn(-1e-30f, 1e-30f, +0.0f) = -0.0f
// (the exact product -1e-60 underflows). With K = 1 and those inputs the contract's y is -0.0f.
// Rows beyond M (X) or N (W) only feed outputs that are never stored, so their pad value is irrelevant.
template <bool kVec>
__device__ __forceinline__ void load_chunks(float4 (&r)[2], const float* __restrict__ row, bool row_ok, int k0, int kh,
                                            int K, float pad) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int k = k0 + (2 * i + kh) * 4;
    if constexpr (kVec) {
      // K % 4 == 0 here, so a chunk is either entirely inside [0, K) or entirely past it.
      r[i] = (row_ok && k < K) ? *reinterpret_cast<const float4*>(row + k) : make_float4(pad, pad, pad, pad);
    } else {
      r[i].x = (row_ok && k + 0 < K) ? row[k + 0] : pad;
      r[i].y = (row_ok && k + 1 < K) ? row[k + 1] : pad;
      r[i].z = (row_ok && k + 2 < K) ? row[k + 2] : pad;
      r[i].w = (row_ok && k + 3 < K) ? row[k + 3] : pad;
    }
  }
}

// Stores the two chunks transposed: s[k][row] for the 8 k of this thread.
__device__ __forceinline__ void store_chunks(float* s, const float4 (&r)[2], int row, int kh) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float* p = s + (2 * i + kh) * 4 * kLd + row;
    p[0 * kLd] = r[i].x;
    p[1 * kLd] = r[i].y;
    p[2 * kLd] = r[i].z;
    p[3 * kLd] = r[i].w;
  }
}

template <bool kVecLoad>
__global__ void __launch_bounds__(kThreads, 2)
    fwd_f32_simt_128x128x16_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ bias, float* __restrict__ y, int M, int N, int K,
                                   unsigned tiles_n, bool vec_store) {
  // [buffer][operand (0 = X as As[k][m], 1 = W as Bs[k][n])][k][m or n]
  __shared__ __align__(16) float smem[2 * kBufferFloats];

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int m0 = static_cast<int>(blockIdx.x / tiles_n) * kBM;
  const int n0 = static_cast<int>(blockIdx.x % tiles_n) * kBN;

  // Loader: row ld_row of both tiles, k-chunks 2*i + ld_kh.
  const int ld_row = warp * 16 + (lane & 15);
  const int ld_kh = lane >> 4;
  const bool a_ok = m0 + ld_row < M;
  const bool b_ok = n0 + ld_row < N;
  // 64-bit row offsets; masked rows point at row 0 and are never dereferenced.
  const float* a_row = x + (a_ok ? static_cast<size_t>(m0 + ld_row) * static_cast<size_t>(K) : size_t{0});
  const float* b_row = w + (b_ok ? static_cast<size_t>(n0 + ld_row) * static_cast<size_t>(K) : size_t{0});

  // Compute: warp (wy, wx) = (warp >> 1, warp & 1) covers ty = wy*4 + lane/8, tx = wx*8 + lane%8.
  const int ty = (warp >> 1) * 4 + (lane >> 3);
  const int tx = (warp & 1) * 8 + (lane & 7);

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;  // +0.0f: the contract's start value

  // Prologue: slab 0 into buffer 0.
  float4 r[2];  // the prefetch registers, used for X and W in turn (see the main loop)
  load_chunks<kVecLoad>(r, a_row, a_ok, 0, ld_kh, K, kPadX);
  store_chunks(smem, r, ld_row, ld_kh);
  load_chunks<kVecLoad>(r, b_row, b_ok, 0, ld_kh, K, kPadW);
  store_chunks(smem + kOperandFloats, r, ld_row, ld_kh);
  __syncthreads();

  // Main loop. Slab s is computed from buffer s&1 while slab s+1 is fetched into buffer (s+1)&1, one
  // operand per half slab so that only 8 prefetch registers are live: X's chunks are loaded before
  // k-steps 0..7 and stored after them, W's are loaded before k-steps 8..15 and stored after them.
  // Buffer (s+1)&1 was last read in slab s-1, which every thread finished before the barrier that
  // ended it; the barrier at the end of slab s publishes slab s+1.
  const int n_slabs = (K + kBK - 1) / kBK;
  for (int s = 0; s < n_slabs; ++s) {
    const int k_next = (s + 1) * kBK;
    const float* sa = smem + (s & 1) * kBufferFloats;
    const float* sb = sa + kOperandFloats;
    float* nxt = smem + ((s + 1) & 1) * kBufferFloats;

    load_chunks<kVecLoad>(r, a_row, a_ok, k_next, ld_kh, K, kPadX);
    steps_8x8<0, kBK, kLd>(acc, sa, sb, ty, tx);  // k-steps 0..7 of this slab, ascending
    store_chunks(nxt, r, ld_row, ld_kh);
    load_chunks<kVecLoad>(r, b_row, b_ok, k_next, ld_kh, K, kPadW);
    steps_8x8<kBK / 2, kBK, kLd>(acc, sa, sb, ty, tx);  // k-steps 8..15, ascending
    store_chunks(nxt + kOperandFloats, r, ld_row, ld_kh);
    __syncthreads();
  }

  // Epilogue: y = acc, or __fadd_rn(acc, b[n]) once; masked rows/columns are not stored.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int n = n0 + h * 64 + tx * 4;
    float bv[4] = {0.f, 0.f, 0.f, 0.f};
    if (bias != nullptr) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (n + j < N) bv[j] = bias[n + j];
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int m = m0 + (i >> 2) * 64 + ty * 4 + (i & 3);
      if (m >= M) continue;
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = bias != nullptr ? __fadd_rn(acc[i][h * 4 + j], bv[j]) : acc[i][h * 4 + j];
      float* yp = y + static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n);
      if (vec_store && n + 3 < N) {
        *reinterpret_cast<float4*>(yp) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (n + j < N) yp[j] = v[j];
      }
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t launch_fwd_f32_simt_128x128x16(const LaunchParams& p) {
  const auto tiles_m = static_cast<unsigned>(ceil_div(p.M, kBM));
  unsigned tiles_n = static_cast<unsigned>(ceil_div(p.N, kBN));
  const bool vec_load = p.K % 4 == 0 && aligned16(p.x) && aligned16(p.w);
  bool vec_store = p.N % 4 == 0 && aligned16(p.y);
  const float* x = p.x;
  const float* w = p.w;
  const float* bias = p.bias;
  float* y = p.y;
  int M = p.M, N = p.N, K = p.K;
  void* args[] = {&x, &w, &bias, &y, &M, &N, &K, &tiles_n, &vec_store};
  const void* fn = vec_load ? reinterpret_cast<const void*>(&fwd_f32_simt_128x128x16_kernel<true>)
                            : reinterpret_cast<const void*>(&fwd_f32_simt_128x128x16_kernel<false>);
  const cudaError_t e = cudaLaunchKernel(fn, dim3(tiles_m * tiles_n), dim3(kThreads), args, 0, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}

}  // namespace ordo::kernels::detail
