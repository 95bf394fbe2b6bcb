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

// Fills p[0..n) with bfloat16 bit patterns: the values of fill_uniform (same seed, same index) rounded
// to bfloat16, to nearest even. Those within 2^-9 of 1 round to +1.0, so the range is [-1, 1].
int fill_uniform_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed, void* stream);

// max |a[i] - b[i]| and max |b[i]| over i < n (NaN if any difference is NaN). Synchronises `stream`.
int max_abs_diff(const float* a, const float* b, std::size_t n, void* stream, float* max_diff, float* max_b);

// The same over bfloat16 bit patterns, each widened exactly to float first.
int max_abs_diff_bf16(const std::uint16_t* a, const std::uint16_t* b, std::size_t n, void* stream, float* max_diff,
                      float* max_b);

}  // namespace ordo::bench
