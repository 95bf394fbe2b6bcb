#pragma once
// Host emulation of the few CUDA features the ordo kernels use, so that their sources compile as C++
// and run on CPU threads (one std::thread per CUDA thread, one block at a time, __syncthreads as a
// std::barrier). Used only by ordo_kernels_host_emulation, which checks the kernels' indexing, masking,
// K-tail padding and bits against the contract's chain on a machine without a GPU.
// Not a CUDA implementation: just enough for kernels/*.cu, nothing else.
#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

// Kernel sources test this to pick host stand-ins for inline PTX (kernels/cp_async.cuh).
#define ORDO_HOST_EMULATION 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// Blocks run one after another, so a function-local static is exactly one block's shared memory.
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
struct alignas(8) float2 {
  float x, y;
};
template <class T>
inline T __ldg(const T* p) {
  return *p;
}
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct EmuIndex {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local EmuIndex threadIdx, blockIdx;
inline std::barrier<>* emu_block_barrier = nullptr;
inline void __syncthreads() { emu_block_barrier->arrive_and_wait(); }

// The GPU returns the canonical NaN 0x7fffffff from every arithmetic operation that yields a NaN.
inline float emu_gpu_nan(float f) {
  if (f != f) {
    const std::uint32_t u = 0x7fffffffu;
    std::memcpy(&f, &u, sizeof f);
  }
  return f;
}
inline float __fmaf_rn(float a, float b, float c) { return emu_gpu_nan(std::fma(a, b, c)); }
inline float __fadd_rn(float a, float b) { return emu_gpu_nan(a + b); }

enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
using cudaStream_t = void*;
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
// One emulated device; its SM count is settable so that tests can move a shape-chosen tile's switch points.
inline int emu_sm_count = 132;
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
inline cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr, int) {
  *value = emu_sm_count;
  return cudaSuccess;
}

// Every ordo forward kernel takes (x, w, bias, y, M, N, K, tiles_n) and the 256x1-thread production
// tile also a trailing bool (vec_store); the 16x16-thread kernels do not.
using EmuKernel9 = void (*)(const float*, const float*, const float*, float*, int, int, int, unsigned, bool);
using EmuKernel8 = void (*)(const float*, const float*, const float*, float*, int, int, int, unsigned);

// Runs the blocks of a grid one after another, each as block.x * block.y threads sharing a barrier;
// thread_body() runs in every thread with blockIdx and threadIdx set.
template <class Body>
inline void emu_run_grid(dim3 grid, dim3 block, const Body& thread_body) {
  const unsigned n_threads = block.x * block.y;
  for (unsigned b = 0; b < grid.x; ++b) {
    std::barrier<> bar(n_threads);
    emu_block_barrier = &bar;
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < n_threads; ++t)
      threads.emplace_back([&, t] {
        blockIdx.x = b;
        threadIdx.x = t % block.x;
        threadIdx.y = t / block.x;
        thread_body();
      });
    for (auto& th : threads) th.join();
  }
  emu_block_barrier = nullptr;
}

inline cudaError_t cudaLaunchKernel(const void* fn, dim3 grid, dim3 block, void** args, std::size_t, cudaStream_t) {
  emu_run_grid(grid, block, [&] {
    const auto x = *static_cast<const float**>(args[0]);
    const auto w = *static_cast<const float**>(args[1]);
    const auto bias = *static_cast<const float**>(args[2]);
    const auto y = *static_cast<float**>(args[3]);
    const int M = *static_cast<int*>(args[4]), N = *static_cast<int*>(args[5]), K = *static_cast<int*>(args[6]);
    const unsigned tiles_n = *static_cast<unsigned*>(args[7]);
    if (block.y == 1)
      reinterpret_cast<EmuKernel9>(fn)(x, w, bias, y, M, N, K, tiles_n, *static_cast<bool*>(args[8]));
    else
      reinterpret_cast<EmuKernel8>(fn)(x, w, bias, y, M, N, K, tiles_n);
  });
  return cudaSuccess;
}

// Kernels that take their parameters as one struct by value (the narrow tile, kernels/bwd_f32_simt_narrow.cu).
// Chosen over the pointer form above for an exact function-pointer type.
template <class Params>
inline cudaError_t cudaLaunchKernel(void (*fn)(Params), dim3 grid, dim3 block, void** args, std::size_t, cudaStream_t) {
  const auto& params = *static_cast<const std::remove_cv_t<Params>*>(args[0]);
  emu_run_grid(grid, block, [&] { fn(params); });
  return cudaSuccess;
}
