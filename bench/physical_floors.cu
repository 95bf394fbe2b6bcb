// Measurements behind bench/physical_floors.h.
#include "bench/physical_floors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ordo::bench {
namespace {

constexpr int kChainSteps = 1 << 16;

__global__ void fma_chain_kernel(float a, float b, float* out, long long* cycles) {
  float acc = a;
  const long long t0 = clock64();
#pragma unroll 64
  for (int i = 0; i < kChainSteps; ++i) acc = __fmaf_rn(acc, b, a);
  const long long t1 = clock64();
  *out = acc;
  *cycles = t1 - t0;
}

constexpr int kPeakChains = 8;
constexpr int kPeakSteps = 1 << 14;
__global__ void fma_peak_kernel(float a, float b, float* out) {
  float acc[kPeakChains];
#pragma unroll
  for (int c = 0; c < kPeakChains; ++c) acc[c] = a + static_cast<float>(threadIdx.x + c);
  for (int i = 0; i < kPeakSteps; ++i)
#pragma unroll
    for (int c = 0; c < kPeakChains; ++c) acc[c] = __fmaf_rn(acc[c], b, a);
  float s = 0;
#pragma unroll
  for (int c = 0; c < kPeakChains; ++c) s += acc[c];
  if (s == 12345.0f) *out = s;  // never true for these inputs; keeps the chains alive
}

// Its own error path and buffer type: the three benches that link this file each have their own.
void check_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "physical floors: %s: %s: %s\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  std::exit(1);
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { check_cuda(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p; }
};

double event_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return ms;
}

}  // namespace

PhysicalFloors measure_physical_floors(cudaStream_t stream) {
  PhysicalFloors f;
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&f.sm_count, cudaDevAttrMultiProcessorCount, dev), "SM count");
  check_cuda(cudaDeviceGetAttribute(&f.l2_bytes, cudaDevAttrL2CacheSize, dev), "L2 size");
  DeviceBuffer out(64), cyc(64);
  cudaEvent_t e0, e1;
  check_cuda(cudaEventCreate(&e0), "event");
  check_cuda(cudaEventCreate(&e1), "event");
  // Latency and clock: one thread, best of 5 (the chain is nearly all of the kernel's time).
  double best_ms = 1e30, best_cycles = 0;
  for (int r = 0; r < 5; ++r) {
    check_cuda(cudaEventRecord(e0, stream), "record");
    fma_chain_kernel<<<1, 1, 0, stream>>>(0.999f, 0.5f, static_cast<float*>(out.get()), static_cast<long long*>(cyc.get()));
    check_cuda(cudaEventRecord(e1, stream), "record");
    check_cuda(cudaStreamSynchronize(stream), "chain kernel");
    long long c = 0;
    check_cuda(cudaMemcpy(&c, cyc.get(), sizeof c, cudaMemcpyDeviceToHost), "copy");
    const double ms = event_ms(e0, e1);
    if (ms < best_ms) best_ms = ms, best_cycles = static_cast<double>(c);
  }
  f.fma_latency_cycles = best_cycles / kChainSteps;
  f.clock_hz = best_cycles / (best_ms * 1e-3);
  // Peak: 8 blocks of 256 threads per SM, 8 independent chains per thread.
  const int blocks = f.sm_count * 8, threads = 256;
  double peak_ms = 1e30;
  for (int r = 0; r < 3; ++r) {
    check_cuda(cudaEventRecord(e0, stream), "record");
    fma_peak_kernel<<<blocks, threads, 0, stream>>>(0.999f, 0.5f, static_cast<float*>(out.get()));
    check_cuda(cudaEventRecord(e1, stream), "record");
    check_cuda(cudaStreamSynchronize(stream), "peak kernel");
    peak_ms = std::min(peak_ms, event_ms(e0, e1));
  }
  f.fma_per_s = static_cast<double>(blocks) * threads * kPeakChains * kPeakSteps / (peak_ms * 1e-3);
  // HBM: a device-to-device copy of 1 GiB, best of 4.
  const std::size_t bytes = std::size_t{1} << 30;
  DeviceBuffer a(bytes), b(bytes);
  double copy_ms = 1e30;
  for (int r = 0; r < 4; ++r) {
    check_cuda(cudaEventRecord(e0, stream), "record");
    check_cuda(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream), "copy");
    check_cuda(cudaEventRecord(e1, stream), "record");
    check_cuda(cudaStreamSynchronize(stream), "copy");
    copy_ms = std::min(copy_ms, event_ms(e0, e1));
  }
  f.hbm_bytes_per_s = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e-3);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return f;
}

Floor strict_chain_floor(const PhysicalFloors& f, double fmas, std::int64_t chain_length, double bytes) {
  Floor r{fmas / f.fma_per_s * 1e3, "FMA peak"};
  const double chain = static_cast<double>(chain_length) * f.fma_latency_cycles / f.clock_hz * 1e3;
  if (chain > r.ms) r = {chain, "chain latency"};
  const double hbm = bytes > f.l2_bytes ? bytes / f.hbm_bytes_per_s * 1e3 : 0.0;
  if (hbm > r.ms) r = {hbm, "HBM bandwidth"};
  return r;
}

}  // namespace ordo::bench
