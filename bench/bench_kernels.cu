// Device helpers of the forward benchmark: a GPU spin (to hide host enqueue time from the events),
// random fills (f32 and bf16 bits) and max-difference reductions (f32 and bf16 bits).
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

// 24 random bits r: r * 2^-23 is in [0, 2) exactly, and subtracting 1 gives [-1, 1) exactly.
__device__ __forceinline__ float uniform_value(std::uint64_t seed, std::size_t i) {
  const auto r = static_cast<unsigned>(splitmix64(seed ^ (i * 0xd1b54a32d192ed03ull)) >> 40);
  return __fsub_rn(__fmul_rn(static_cast<float>(r), 0x1p-23f), 1.0f);
}

__global__ void fill_uniform_kernel(float* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = uniform_value(seed, i);
}

// Round to nearest even on the bit pattern: adding 0x7fff plus the lowest kept bit carries into the
// kept half exactly when the dropped half is above the tie, or at the tie with an odd kept half.
// The inputs are finite, so no NaN case is needed.
__device__ __forceinline__ std::uint16_t bf16_bits_rn(float f) {
  const unsigned u = __float_as_uint(f);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__global__ void fill_uniform_bf16_kernel(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = bf16_bits_rn(uniform_value(seed, i));
}

__device__ __forceinline__ float widen(float f) { return f; }
__device__ __forceinline__ float widen(std::uint16_t b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }

// Non-negative floats (and the positive NaN that fabsf makes) order like their bit patterns.
template <typename T>
__global__ void max_abs_diff_kernel(const T* a, const T* b, std::size_t n, unsigned* out) {
  float md = 0.f, mb = 0.f;
  unsigned nan_seen = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float ai = widen(a[i]), bi = widen(b[i]);
    const float d = fabsf(__fsub_rn(ai, bi));
    if (d != d) nan_seen = 1;
    md = fmaxf(md, d);
    mb = fmaxf(mb, fabsf(bi));
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

int fill_uniform_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed, void* stream) {
  fill_uniform_bf16_kernel<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(p, n, seed);
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int max_abs_diff_impl(const T* a, const T* b, std::size_t n, void* stream, float* max_diff, float* max_b) {
  const auto s = static_cast<cudaStream_t>(stream);
  unsigned* d_out = nullptr;
  cudaError_t e = cudaMalloc(&d_out, 2 * sizeof(unsigned));
  if (e != cudaSuccess) return static_cast<int>(e);
  unsigned h[2] = {0, 0};
  e = cudaMemsetAsync(d_out, 0, 2 * sizeof(unsigned), s);
  if (e == cudaSuccess) {
    max_abs_diff_kernel<T><<<1024, 256, 0, s>>>(a, b, n, d_out);
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

int max_abs_diff(const float* a, const float* b, std::size_t n, void* stream, float* max_diff, float* max_b) {
  return max_abs_diff_impl(a, b, n, stream, max_diff, max_b);
}

int max_abs_diff_bf16(const std::uint16_t* a, const std::uint16_t* b, std::size_t n, void* stream, float* max_diff,
                      float* max_b) {
  return max_abs_diff_impl(a, b, n, stream, max_diff, max_b);
}

}  // namespace ordo::bench
