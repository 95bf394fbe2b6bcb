#pragma once
// Small device helpers of the forward benchmark (bench_kernels.cu). No CUDA types in this header.
#include <cstddef>
#include <cstdint>

namespace ordo::bench {

// Keeps the GPU busy for about `ns` nanoseconds on `stream`, so that the host work of the next
// enqueued calls (validation, launch) is hidden and the events that follow time only the GPU.
// Returns the cudaError_t as int (0 = success).
int enqueue_spin(void* stream, std::uint64_t ns);

// Fills p[0..n) with values uniform in [-1, 1), a pure function of (seed, index).
int fill_uniform(float* p, std::size_t n, std::uint64_t seed, void* stream);

// max |a[i] - b[i]| and max |b[i]| over i < n (NaN if any difference is NaN). Synchronises `stream`.
int max_abs_diff(const float* a, const float* b, std::size_t n, void* stream, float* max_diff, float* max_b);

}  // namespace ordo::bench
