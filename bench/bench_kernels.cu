// Device helpers of the forward benchmark: a GPU spin (to hide host enqueue time from the events),
// a random fill and a max-difference reduction.
#include <cuda_runtime.h>

#include <cstring>

#include "bench/bench_kernels.h"

namespace ordo::bench {
namespace {

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(std::uint64_t ns) {
  const std::uint64_t start = global_ns();
  while (global_ns() - start < ns) {
  }
}

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void fill_uniform_kernel(float* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    // 24 random bits -> [0, 1) exactly representable, then [-1, 1).
    const auto r = static_cast<unsigned>(splitmix64(seed ^ (i * 0xd1b54a32d192ed03ull)) >> 40);
    p[i] = __fsub_rn(__fmul_rn(static_cast<float>(r), 0x1p-23f), 1.0f);
  }
}

// Non-negative floats (and the positive NaN that fabsf makes) order like their bit patterns.
__global__ void max_abs_diff_kernel(const float* a, const float* b, std::size_t n, unsigned* out) {
  float md = 0.f, mb = 0.f;
  unsigned nan_seen = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float d = fabsf(__fsub_rn(a[i], b[i]));
    if (d != d) nan_seen = 1;
    md = fmaxf(md, d);
    mb = fmaxf(mb, fabsf(b[i]));
  }
  atomicMax(&out[0], nan_seen ? 0x7fffffffu : __float_as_uint(md));
  atomicMax(&out[1], __float_as_uint(mb));
}

}  // namespace

int enqueue_spin(void* stream, std::uint64_t ns) {
  spin_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(ns);
  return static_cast<int>(cudaGetLastError());
}

int fill_uniform(float* p, std::size_t n, std::uint64_t seed, void* stream) {
  fill_uniform_kernel<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(p, n, seed);
  return static_cast<int>(cudaGetLastError());
}

int max_abs_diff(const float* a, const float* b, std::size_t n, void* stream, float* max_diff, float* max_b) {
  const auto s = static_cast<cudaStream_t>(stream);
  unsigned* d_out = nullptr;
  cudaError_t e = cudaMalloc(&d_out, 2 * sizeof(unsigned));
  if (e != cudaSuccess) return static_cast<int>(e);
  unsigned h[2] = {0, 0};
  e = cudaMemsetAsync(d_out, 0, 2 * sizeof(unsigned), s);
  if (e == cudaSuccess) {
    max_abs_diff_kernel<<<1024, 256, 0, s>>>(a, b, n, d_out);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(h, d_out, sizeof h, cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  cudaFree(d_out);
  if (e != cudaSuccess) return static_cast<int>(e);
  std::memcpy(max_diff, &h[0], sizeof(float));
  std::memcpy(max_b, &h[1], sizeof(float));
  return 0;
}

}  // namespace ordo::bench
