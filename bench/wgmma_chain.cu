// ordo_bench_wgmma_chain: how many clocks a chain of wgmma.mma_async.m64nNk16 (BF16 operands from shared
// memory, FP32 accumulators as C) takes per k16 step, by N, by the independent chains each warpgroup
// interleaves (step kk of every chain, then step kk + 1) and by the warpgroups per SM. Under the BF16 contracts every output is one chain of k16 steps,
// so at small M (one 64-row A tile) a kernel cannot be faster than its ceil(K / 16) dependent steps; this
// bench measures that floor apart from the loads, the barriers and the stores of a real kernel.
//
// Every block (one per SM, 132 on the H200) holds one 64 x 64 A tile and one N x 64 B tile in shared memory,
// K-major with the 128-byte swizzle (as TMA writes them), and its warpgroups issue `tiles` k tiles of four
// k16 steps each. Per k tile a warpgroup issues the four steps of each of its chains (k ascending within each
// chain, the chains interleaved), commits them as one group and then either leaves one group in flight
// (`wait_group 1`, as the production kernels do) or waits for all (`wait_group 0`: the group's latency).
// Cycles are the largest warpgroup's clock64 span; "clk/step" = cycles / (4 * tiles), the time of one k16
// step of every chain of the warpgroup.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/sm90/async_ops.cuh"
#include "kernels/sm90/wgmma_bf16.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "ordo_bench_wgmma_chain: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

constexpr int kMaxN = 256;
constexpr int kTileBytesA = 64 * 128;
constexpr int kSmemBytes = kTileBytesA + kMaxN * 128 + 1024;

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
template <int N>
__device__ __forceinline__ void step(float (&d)[N / 2], std::uint64_t a, std::uint64_t b) {
  namespace s = ordo::kernels::detail::sm90;
  if constexpr (N == 32) s::wgmma_m64n32k16_bf16<0, 0>(d, a, b, 1);
  else if constexpr (N == 48) s::wgmma_m64n48k16_bf16<0, 0>(d, a, b, 1);
  else if constexpr (N == 64) s::wgmma_m64n64k16_bf16<0, 0>(d, a, b, 1);
  else if constexpr (N == 128) s::wgmma_m64n128k16_bf16<0, 0>(d, a, b, 1);
  else s::wgmma_m64n256k16_bf16<0, 0>(d, a, b, 1);
}
#endif

template <int N, int kChains, bool kWaitAll>
__global__ void __launch_bounds__(256, 1) chain_kernel(int tiles, long long* cycles, float* sink) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  namespace s = ordo::kernels::detail::sm90;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t{1023});
  // BF16 values near 1 (the arithmetic's speed does not depend on them; no NaN or Inf)
  auto* h = reinterpret_cast<std::uint16_t*>(smem);
  for (int i = static_cast<int>(threadIdx.x); i < (kTileBytesA + N * 128) / 2; i += static_cast<int>(blockDim.x))
    h[i] = static_cast<std::uint16_t>(0x3F80 + (i % 7));
  __syncthreads();
  s::fence_proxy_async_shared();  // the generic-proxy writes above, before wgmma reads them
  const std::uint64_t desc_a = s::smem_desc_k_major_sw128(smem);
  const std::uint64_t desc_b = s::smem_desc_k_major_sw128(smem + kTileBytesA);
  float d[kChains][N / 2];
#pragma unroll
  for (int c = 0; c < kChains; ++c)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d[c][i] = 0.0f;
  __syncthreads();
  const long long t0 = clock64();
  for (int t = 0; t < tiles; ++t) {
    s::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int c = 0; c < kChains; ++c) step<N>(d[c], desc_a + 2 * kk, desc_b + 2 * kk);
    s::wgmma_commit_group();
    if constexpr (kWaitAll)
      s::wgmma_wait_all();
    else
      s::wgmma_wait_all_but_one();
  }
  s::wgmma_wait_all();
  const long long t1 = clock64();
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc += d[c][i];
  if (acc == 1.2345f) sink[threadIdx.x] = acc;  // keeps the chains live
  if (threadIdx.x % 128 == 0) cycles[blockIdx.x * 2 + threadIdx.x / 128] = t1 - t0;
#else
  (void)tiles, (void)cycles, (void)sink;
  __trap();
#endif
}

struct Row {
  int n, chains, warpgroups;
  bool wait_all;
  double clk_per_step;
};

template <int N, int kChains, bool kWaitAll>
Row run(int warpgroups, int tiles, int blocks, long long* cycles_dev, float* sink) {
  auto* kernel = chain_kernel<N, kChains, kWaitAll>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes), "smem attribute");
  kernel<<<blocks, 128 * warpgroups, kSmemBytes>>>(tiles, cycles_dev, sink);  // warm-up
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> best;
  for (int rep = 0; rep < 3; ++rep) {
    check(cudaMemset(cycles_dev, 0, sizeof(long long) * 2 * blocks), "memset");
    kernel<<<blocks, 128 * warpgroups, kSmemBytes>>>(tiles, cycles_dev, sink);
    check(cudaDeviceSynchronize(), "chain kernel");
    std::vector<long long> c(2 * static_cast<size_t>(blocks));
    check(cudaMemcpy(c.data(), cycles_dev, sizeof(long long) * c.size(), cudaMemcpyDeviceToHost), "copy");
    best.push_back(static_cast<double>(*std::max_element(c.begin(), c.end())) / (4.0 * tiles));
  }
  std::sort(best.begin(), best.end());
  return {N, kChains, warpgroups, kWaitAll, best[1]};
}

void usage() {
  std::printf(
      "usage: ordo_bench_wgmma_chain [--tiles T] [--blocks B] [--json PATH]\n"
      "Clocks per k16 step of wgmma.mma_async.m64nNk16 chains (BF16 from shared memory, FP32 accumulators),\n"
      "by N, chains per warpgroup, warpgroups per block, and whether each k tile's group is waited for at\n"
      "once (wait 0) or left in flight (wait 1). Defaults: --tiles 4096 --blocks 132 (one per SM).\n");
}

}  // namespace

int main(int argc, char** argv) {
  int tiles = 4096, blocks = 132;
  std::string json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ordo_bench_wgmma_chain: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else if (a == "--tiles") {
      tiles = std::atoi(value().c_str());
    } else if (a == "--blocks") {
      blocks = std::atoi(value().c_str());
    } else if (a == "--json") {
      json = value();
    } else {
      std::fprintf(stderr, "ordo_bench_wgmma_chain: unknown argument \"%s\" (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (tiles < 1 || blocks < 1) {
    std::fprintf(stderr, "ordo_bench_wgmma_chain: --tiles and --blocks must be positive\n");
    return 2;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  if (prop.major != 9) {
    std::fprintf(stderr, "ordo_bench_wgmma_chain: needs an sm_90 GPU (this is sm_%d%d)\n", prop.major, prop.minor);
    return 1;
  }
  long long* cycles = nullptr;
  float* sink = nullptr;
  check(cudaMalloc(&cycles, sizeof(long long) * 2 * blocks), "malloc");
  check(cudaMalloc(&sink, sizeof(float) * 256), "malloc");
  std::vector<Row> rows;
  for (int wg = 1; wg <= 2; ++wg) {
    rows.push_back(run<32, 1, true>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<32, 1, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<32, 2, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<32, 4, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<48, 1, true>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<48, 1, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<48, 2, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<48, 4, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<64, 1, true>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<64, 1, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<64, 2, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<128, 1, true>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<128, 1, false>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<256, 1, true>(wg, tiles, blocks, cycles, sink));
    rows.push_back(run<256, 1, false>(wg, tiles, blocks, cycles, sink));
  }
  std::printf("GPU: %s, %d SMs; %d blocks, %d k tiles (%d k16 steps) per chain\n", prop.name,
              prop.multiProcessorCount, blocks, tiles, 4 * tiles);
  std::printf("%5s %7s %11s %7s %10s %14s\n", "N", "chains", "warpgroups", "wait", "clk/step", "clk/step/chain");
  for (const Row& r : rows)
    std::printf("%5d %7d %11d %7s %10.1f %14.1f\n", r.n, r.chains, r.warpgroups, r.wait_all ? "0" : "1",
                r.clk_per_step, r.clk_per_step / r.chains);
  if (!json.empty()) {
    std::FILE* f = std::fopen(json.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "ordo_bench_wgmma_chain: cannot write %s\n", json.c_str());
      return 1;
    }
    std::fprintf(f, "{\"gpu\": \"%s\", \"blocks\": %d, \"tiles\": %d, \"rows\": [", prop.name, blocks, tiles);
    for (size_t i = 0; i < rows.size(); ++i)
      std::fprintf(f, "%s\n  {\"n\": %d, \"chains\": %d, \"warpgroups\": %d, \"wait_group\": %d, \"clk_per_step\": %.2f}",
                   i ? "," : "", rows[i].n, rows[i].chains, rows[i].warpgroups, rows[i].wait_all ? 0 : 1,
                   rows[i].clk_per_step);
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
  }
  cudaFree(cycles);
  cudaFree(sink);
  return 0;
}
