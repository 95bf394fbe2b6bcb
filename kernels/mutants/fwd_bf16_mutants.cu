// The self-test's BF16 forward GPU mutants of contract fwd.bf16.tc-fdpa-sm90/1 (sm_90 only: the contract
// states the H200's tensor-core arithmetic). The structure of the portable baseline
// (fwd_bf16_wmma_32x32x16.cu: 4 warps, 16x16 wmma tiles, 16-wide k steps staged in shared memory, +0
// padding), with one defect each, applied element by element to the accumulator fragment (an
// element-wise change needs no knowledge of the fragment's layout):
// fwd_bf16_defects.h states them; their host twins apply the same functions to the T-FDPA model's chain.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <string>
#include <vector>

#include "kernels/mutants/fwd_bf16_defects.h"
#include "kernels/mutants/mutant_internal.h"

namespace ordo::kernels::detail {
namespace {

using mutants::Bf16Defect;

constexpr int kTile = 32;
constexpr int kK = mutants::kBf16Instruction;
constexpr int kLdOperand = kK + 8;
constexpr int kLdAcc = kTile + 4;

template <Bf16Defect kDefect>
__global__ void __launch_bounds__(128)
    fwd_bf16_mutant_kernel(const std::uint16_t* __restrict__ x, const std::uint16_t* __restrict__ w,
                           const float* __restrict__ bias, float* __restrict__ y, std::uint16_t* __restrict__ y_bf16,
                           int M, int N, int K, unsigned tiles_n) {
#if __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  __shared__ __align__(32) std::uint16_t xs[kTile * kLdOperand];
  __shared__ __align__(32) std::uint16_t ws[kTile * kLdOperand];
  __shared__ __align__(32) float acc_tile[kTile * kLdAcc];
  const int m0 = static_cast<int>(blockIdx.x / tiles_n) * kTile;
  const int n0 = static_cast<int>(blockIdx.x % tiles_n) * kTile;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int wm = (warp / 2) * 16, wn = (warp % 2) * 16;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, total;
  wmma::fill_fragment(acc, 0.0f);
  wmma::fill_fragment(total, 0.0f);
  for (int k0 = 0; k0 < K; k0 += kK) {
    for (int i = static_cast<int>(threadIdx.x); i < kTile * kK; i += 128) {
      const int r = i / kK, k = i % kK;
      const int m = m0 + r, n = n0 + r, kk = k0 + k;
      xs[r * kLdOperand + k] = (m < M && kk < K) ? x[static_cast<size_t>(m) * K + kk] : std::uint16_t{0};
      ws[r * kLdOperand + k] = (n < N && kk < K) ? w[static_cast<size_t>(n) * K + kk] : std::uint16_t{0};
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::load_matrix_sync(fa, reinterpret_cast<const __nv_bfloat16*>(xs + wm * kLdOperand), kLdOperand);
    wmma::load_matrix_sync(fb, reinterpret_cast<const __nv_bfloat16*>(ws + wn * kLdOperand), kLdOperand);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncthreads();
    for (int i = 0; i < acc.num_elements; ++i) mutants::after_instruction(kDefect, k0, K, acc.x[i], total.x[i]);
  }
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = mutants::chain_result(kDefect, acc.x[i], total.x[i]);
  wmma::store_matrix_sync(acc_tile + wm * kLdAcc + wn, acc, kLdAcc, wmma::mem_row_major);
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kTile * kTile; i += 128) {
    const int r = i / kTile, c = i % kTile;
    const int m = m0 + r, n = n0 + c;
    if (m >= M || n >= N) continue;
    const float v = acc_tile[r * kLdAcc + c];
    const float out = bias != nullptr ? mutants::add_rn(v, bias[n]) : v;
    if (y_bf16 != nullptr) {
      const float cast = mutants::bf16_store(kDefect, out);
      y_bf16[static_cast<size_t>(m) * N + n] = static_cast<std::uint16_t>(mutants::bits(cast) >> 16);
    } else {
      y[static_cast<size_t>(m) * N + n] = out;
    }
  }
#endif
}

template <Bf16Defect kDefect>
cudaError_t launch(const LaunchParams& p) {
  const auto tiles_m = static_cast<unsigned>(ceil_div(p.M, kTile));
  const auto tiles_n = static_cast<unsigned>(ceil_div(p.N, kTile));
  fwd_bf16_mutant_kernel<kDefect>
      <<<tiles_m * tiles_n, 128, 0, p.stream>>>(p.x_bf16, p.w_bf16, p.bias, p.y, p.y_bf16, p.M, p.N, p.K, tiles_n);
  return cudaGetLastError();  // the launch's own error, and clears it
}

VariantEntry entry(const char* id, const char* defect, LaunchFn fn) {
  KernelVariant v;
  v.id = id;
  v.contract_id = "fwd.bf16.tc-fdpa-sm90/1";
  v.tile_m = kTile;
  v.tile_n = kTile;
  v.tile_k = kK;
  v.threads = 128;
  v.stages = 1;
  v.instruction = "mma.sync.m16n8k16 (wmma)";
  v.sm.min = 90;
  v.sm.max = 90;
  v.operand_dtype = DType::bf16;
  v.bf16_output = true;
  v.is_mutant = true;
  v.description = std::string("MUTANT: ") + defect;
  return {v, fn};
}

}  // namespace

const std::vector<VariantEntry>& fwd_bf16_mutant_entries() {
  static const std::vector<VariantEntry> entries = {
      entry(mutants::kBf16AccRoundedId, mutants::kBf16AccRoundedDefect, &launch<Bf16Defect::acc_rounded>),
      entry(mutants::kBf16ChainRestartId, mutants::kBf16ChainRestartDefect, &launch<Bf16Defect::chain_restart>),
      entry(mutants::kBf16OutputRtzId, mutants::kBf16OutputRtzDefect, &launch<Bf16Defect::output_rtz>),
  };
  return entries;
}

}  // namespace ordo::kernels::detail
