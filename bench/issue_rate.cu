// ordo_bench_issue: how many FMAs per clock a scheduler issues from the FP32 tiles' inner loop, by the
// number of warps per scheduler and the chains per thread. The by-shape cost model (kernels/by_shape_cost.h)
// assumes about half an instruction per clock and scheduler; this bench measures the loop alone, without
// global memory, so that the loader and the barrier can be told apart from the loop itself.
//
// Every kernel runs one block per SM (132 on the H200), each thread owning TM x TN chains of a BM x BN block
// tile, thread (ty, tx) at rows ty*TM.., columns tx*TN.., tx fastest (as kernels/bwd_dw_f32_simt_by_shape.cu).
// A step reads one float4 / float2 / float of each operand row from shared memory and runs the TM x TN FMAs;
// slabs of 32 steps alternate between 2 stages (so that no load can be hoisted out of the slab loop), with or
// without a __syncthreads per slab. A register-only loop (8 independent chains, no loads) is the reference.
// Cycles are the largest block's clock64 span; "FMA/clk/sched" = FMAs per clock and scheduler (1 at peak).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "kernels/outer_product_step.cuh"

namespace {

using ordo::kernels::detail::outer_product_step;
using ordo::kernels::detail::read_vector;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "ordo_bench_issue: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

constexpr int kBK = 32, kStages = 2;

// kAhead > 0: the operands of step r + kAhead are read while step r's FMAs run (a register ring of kAhead + 1
// steps, refilled from the start of each slab); kAhead == 0 leaves the schedule to the compiler; kAhead == -1
// too, with the FMAs of every other row in reverse (snake order).
template <int BM, int BN, int TM, int TN, bool kBarrier, int kAhead = 0>
__global__ void outer_loop_kernel(int slabs, float* out, long long* cycles) {
  constexpr int kStage = kBK * (BM + BN);
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float ring[kStages * kStage];
  const int tid = static_cast<int>(threadIdx.x);
  for (int i = tid; i < kStages * kStage; i += kThreads) ring[i] = 1.0f + 1e-3f * static_cast<float>(i % 97);
  __syncthreads();
  const int tx = tid % (BN / TN), ty = tid / (BN / TN);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  const long long t0 = clock64();
  for (int s = 0; s < slabs; ++s) {
    if constexpr (kBarrier) __syncthreads();
    const float* gs = ring + (s % kStages) * kStage + ty * TM;
    const float* xs = ring + (s % kStages) * kStage + BM * kBK + tx * TN;
    if constexpr (kAhead == 0) {  // the dW tiles' step
#pragma unroll
      for (int r = 0; r < kBK; ++r) {
        float gv[TM];
        outer_product_step<TM, TN>(acc, gv, gs + r * BM, xs + r * BN);
      }
    } else if constexpr (kAhead < 0) {
#pragma unroll
      for (int r = 0; r < kBK; ++r) {
        float gv[TM], xv[TN];
        read_vector<TM>(gv, gs + r * BM);
        read_vector<TN>(xv, xs + r * BN);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int jj = 0; jj < TN; ++jj) {
            // every other row backwards (snake order), so that consecutive FMAs share an operand
            const int j = i % 2 == 1 ? TN - 1 - jj : jj;
            acc[i][j] = __fmaf_rn(gv[i], xv[j], acc[i][j]);
          }
      }
    } else {
      float gv[kAhead + 1][TM], xv[kAhead + 1][TN];
#pragma unroll
      for (int r = 0; r < kAhead; ++r) {
        read_vector<TM>(gv[r], gs + r * BM);
        read_vector<TN>(xv[r], xs + r * BN);
      }
#pragma unroll
      for (int r = 0; r < kBK; ++r) {
        if (r + kAhead < kBK) {
          read_vector<TM>(gv[(r + kAhead) % (kAhead + 1)], gs + (r + kAhead) * BM);
          read_vector<TN>(xv[(r + kAhead) % (kAhead + 1)], xs + (r + kAhead) * BN);
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j)
            acc[i][j] = __fmaf_rn(gv[r % (kAhead + 1)][i], xv[r % (kAhead + 1)][j], acc[i][j]);
      }
    }
  }
  const long long t1 = clock64();
  float sum = 0;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) sum += acc[i][j];
  out[blockIdx.x * kThreads + tid] = sum;
  if (tid == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int kChains>
__global__ void register_loop_kernel(int steps, float a, float b, float* out, long long* cycles) {
  float acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c] = a + static_cast<float>(threadIdx.x + c);
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i)
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = __fmaf_rn(acc[c], b, a);
  const long long t1 = clock64();
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += acc[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

struct Row {
  const char* name;
  int threads;
  int fmas_per_thread_step;
  double cycles_per_step;
};

long long max_cycles(const long long* d, int n) {
  std::vector<long long> h(static_cast<std::size_t>(n));
  check(cudaMemcpy(h.data(), d, sizeof(long long) * static_cast<std::size_t>(n), cudaMemcpyDeviceToHost), "copy");
  return *std::max_element(h.begin(), h.end());
}

template <int BM, int BN, int TM, int TN, bool kBarrier, int kAhead = 0>
Row run_outer(const char* name, int sms, float* out, long long* cyc) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  const int slabs = 2048;
  long long best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    outer_loop_kernel<BM, BN, TM, TN, kBarrier, kAhead><<<sms, kThreads>>>(slabs, out, cyc);
    check(cudaGetLastError(), name);
    check(cudaDeviceSynchronize(), name);
    const long long c = max_cycles(cyc, sms);
    best = rep == 0 ? c : std::min(best, c);
  }
  return Row{name, kThreads, TM * TN, static_cast<double>(best) / (slabs * kBK)};
}

template <int kChains>
Row run_register(const char* name, int threads, int sms, float* out, long long* cyc) {
  const int steps = 1 << 15;
  long long best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    register_loop_kernel<kChains><<<sms, threads>>>(steps, 0.999f, 0.5f, out, cyc);
    check(cudaGetLastError(), name);
    check(cudaDeviceSynchronize(), name);
    const long long c = max_cycles(cyc, sms);
    best = rep == 0 ? c : std::min(best, c);
  }
  return Row{name, threads, kChains, static_cast<double>(best) / steps};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    std::printf(
        "usage: ordo_bench_issue\n"
        "FMAs per clock and scheduler of the FP32 tiles' inner loop (operands from shared memory, no global\n"
        "memory), one block per SM, by warps per scheduler and chains per thread; a register-only loop as the\n"
        "reference. Needs a GPU. Exit codes: 0 measured, 1 a CUDA error, 2 no GPU or bad arguments.\n");
    return argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") ? 0 : 2;
  }
  int dev = 0, sms = 0, devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "ordo_bench_issue: no GPU: nothing measured\n");
    return 2;
  }
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count");
  float* out = nullptr;
  long long* cyc = nullptr;
  check(cudaMalloc(&out, sizeof(float) * 1024 * static_cast<std::size_t>(sms)), "cudaMalloc");
  check(cudaMalloc(&cyc, sizeof(long long) * static_cast<std::size_t>(sms)), "cudaMalloc");
  std::vector<Row> rows;
  rows.push_back(run_register<8>("registers, 8 chains", 128, sms, out, cyc));
  rows.push_back(run_register<16>("registers, 16 chains", 128, sms, out, cyc));
  rows.push_back(run_register<8>("registers, 8 chains", 256, sms, out, cyc));
  rows.push_back(run_register<8>("registers, 8 chains", 512, sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 4, false>("64x32 t4x4", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 4, true>("64x32 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<32, 64, 4, 4, true>("32x64 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 2, false>("64x32 t4x2", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 2, true>("64x32 t4x2 +barrier", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 2, 4, true>("64x32 t2x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<32, 64, 2, 4, true>("32x64 t2x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 2, 2, true>("64x32 t2x2 +barrier", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 1, true>("64x32 t4x1 +barrier", sms, out, cyc));
  rows.push_back(run_outer<128, 32, 4, 4, true>("128x32 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<128, 64, 4, 4, true>("128x64 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<64, 64, 4, 4, true>("64x64 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<32, 32, 4, 4, true>("32x32 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<128, 32, 8, 4, true>("128x32 t8x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<48, 32, 4, 4, true>("48x32 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<32, 48, 4, 4, true>("32x48 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<96, 16, 4, 4, true>("96x16 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<16, 32, 4, 4, true>("16x32 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<96, 32, 4, 4, true>("96x32 t4x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 8, 4, true>("64x32 t8x4 +barrier", sms, out, cyc));
  rows.push_back(run_outer<32, 32, 4, 2, true>("32x32 t4x2 +barrier", sms, out, cyc));
  rows.push_back(run_outer<16, 32, 4, 4, true, 2>("16x32 t4x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<16, 32, 4, 4, true, 3>("16x32 t4x4 ahead 3", sms, out, cyc));
  rows.push_back(run_outer<32, 32, 4, 4, true, 2>("32x32 t4x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<48, 32, 4, 4, true, 2>("48x32 t4x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<48, 32, 4, 4, true, 3>("48x32 t4x4 ahead 3", sms, out, cyc));
  rows.push_back(run_outer<32, 48, 4, 4, true, 2>("32x48 t4x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 4, true, 2>("64x32 t4x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 4, true, 3>("64x32 t4x4 ahead 3", sms, out, cyc));
  rows.push_back(run_outer<32, 64, 4, 4, true, 2>("32x64 t4x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<128, 32, 4, 4, true, 2>("128x32 t4x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<32, 32, 4, 2, true, 2>("32x32 t4x2 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<32, 32, 4, 2, true, 4>("32x32 t4x2 ahead 4", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 2, true, 2>("64x32 t4x2 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<32, 32, 8, 4, true, 2>("32x32 t8x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 8, 4, true, 2>("64x32 t8x4 ahead 2", sms, out, cyc));
  rows.push_back(run_outer<16, 32, 4, 4, true, -1>("16x32 t4x4 snake", sms, out, cyc));
  rows.push_back(run_outer<48, 32, 4, 4, true, -1>("48x32 t4x4 snake", sms, out, cyc));
  rows.push_back(run_outer<64, 32, 4, 4, true, -1>("64x32 t4x4 snake", sms, out, cyc));
  std::printf("%-24s %8s %12s %14s %14s\n", "loop", "threads", "warps/sched", "clk/step", "FMA/clk/sched");
  for (const Row& r : rows) {
    const double warps_per_sched = r.threads / 32.0 / 4.0;
    const double fma_per_clk_sched = r.threads / 32.0 * r.fmas_per_thread_step / r.cycles_per_step / 4.0;
    std::printf("%-24s %8d %12.2f %14.2f %14.3f\n", r.name, r.threads, warps_per_sched, r.cycles_per_step,
                fma_per_clk_sched);
  }
  check(cudaFree(out), "cudaFree");
  check(cudaFree(cyc), "cudaFree");
  return 0;
}
