// Variants "sm90.fwd.bf16.mma-sync.32x32x16" and "sm80.fwd.bf16.mma-sync.32x32x16" of contracts
// fwd.bf16.tc-fdpa-sm90/1 and fwd.bf16.tc-fdpa-sm80/1: the portable BF16 tensor-core baseline, no speed
// goal. A block of 4 warps computes a 32x32 output tile, each warp 16x16 through nvcuda::wmma (two
// mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 per 16-wide k step).
//
// The order (the contract): the accumulator fragment starts at +0 and is the C operand of every
// instruction, k ascending in steps of 16; the operands of each step are staged in shared memory with
// rows past M or N and k past K filled with +0, so the last step's missing products are zero products
// (the T-FDPA model: a zero product never moves the alignment exponent, and the hardware probe agrees).
// The bias is added once after the chain with __fadd_rn; the output is FP32, or BF16 with one
// __float2bfloat16_rn (round to nearest even) at the store.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "kernels/forward_internal.h"

namespace ordo::kernels::detail {
namespace {

constexpr int kTile = 32;
constexpr int kK = 16;
constexpr int kLdOperand = kK + 8;  // bf16 elements; wmma needs a multiple of 8, +8 spreads the banks
constexpr int kLdAcc = kTile + 4;   // floats; a multiple of 4

__global__ void __launch_bounds__(128) fwd_bf16_wmma_kernel(const std::uint16_t* __restrict__ x,
                                                            const std::uint16_t* __restrict__ w,
                                                            const float* __restrict__ bias, float* __restrict__ y,
                                                            std::uint16_t* __restrict__ y_bf16, int M, int N, int K,
                                                            unsigned tiles_n) {
#if __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  __shared__ __align__(32) std::uint16_t xs[kTile * kLdOperand];
  __shared__ __align__(32) std::uint16_t ws[kTile * kLdOperand];
  __shared__ __align__(32) float acc_tile[kTile * kLdAcc];
  const int m0 = static_cast<int>(blockIdx.x / tiles_n) * kTile;
  const int n0 = static_cast<int>(blockIdx.x % tiles_n) * kTile;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int wm = (warp / 2) * 16, wn = (warp % 2) * 16;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);  // +0: the contract's start value
  for (int k0 = 0; k0 < K; k0 += kK) {
    for (int i = static_cast<int>(threadIdx.x); i < kTile * kK; i += 128) {
      const int r = i / kK, k = i % kK;
      const int m = m0 + r, n = n0 + r, kk = k0 + k;
      xs[r * kLdOperand + k] = (m < M && kk < K) ? x[static_cast<size_t>(m) * K + kk] : std::uint16_t{0};
      ws[r * kLdOperand + k] = (n < N && kk < K) ? w[static_cast<size_t>(n) * K + kk] : std::uint16_t{0};
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;  // B[k][n] = w[n][k]
    wmma::load_matrix_sync(fa, reinterpret_cast<const __nv_bfloat16*>(xs + wm * kLdOperand), kLdOperand);
    wmma::load_matrix_sync(fb, reinterpret_cast<const __nv_bfloat16*>(ws + wn * kLdOperand), kLdOperand);
    wmma::mma_sync(acc, fa, fb, acc);  // the running accumulator is C
    __syncthreads();                   // before the next step overwrites the staged operands
  }
  wmma::store_matrix_sync(acc_tile + wm * kLdAcc + wn, acc, kLdAcc, wmma::mem_row_major);
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kTile * kTile; i += 128) {
    const int r = i / kTile, c = i % kTile;
    const int m = m0 + r, n = n0 + c;
    if (m >= M || n >= N) continue;
    const float v = acc_tile[r * kLdAcc + c];
    const float out = bias != nullptr ? __fadd_rn(v, bias[n]) : v;
    if (y_bf16 != nullptr)
      y_bf16[static_cast<size_t>(m) * N + n] = __bfloat16_as_ushort(__float2bfloat16_rn(out));
    else
      y[static_cast<size_t>(m) * N + n] = out;
  }
#endif
}

}  // namespace

cudaError_t launch_fwd_bf16_wmma_32x32x16(const LaunchParams& p) {
  const auto tiles_m = static_cast<unsigned>(ceil_div(p.M, kTile));
  const auto tiles_n = static_cast<unsigned>(ceil_div(p.N, kTile));
  fwd_bf16_wmma_kernel<<<tiles_m * tiles_n, 128, 0, p.stream>>>(p.x_bf16, p.w_bf16, p.bias, p.y, p.y_bf16, p.M, p.N,
                                                                 p.K, tiles_n);
  const cudaError_t e = cudaGetLastError();  // the launch's own error, and clears it
  return e;
}

}  // namespace ordo::kernels::detail
