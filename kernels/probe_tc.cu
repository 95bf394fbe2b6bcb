// The tensor-core probe's device side: one warp per 16x16x16 BF16 tile, fragments loaded and stored
// by nvcuda::wmma so that the probe depends on no hand-written fragment layout.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <string>

#include "kernels/probe_api.h"

namespace ordo::kernels {
namespace {

constexpr int kWarpsPerBlock = 4;

__global__ void bf16_mma_tiles_kernel(const __nv_bfloat16* a, const __nv_bfloat16* bt, const float* c, float* d,
                                      int tiles) {
#if __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  const int tile = blockIdx.x * kWarpsPerBlock + static_cast<int>(threadIdx.x / 32);
  if (tile >= tiles) return;  // whole warps leave together
  const size_t offset = static_cast<size_t>(tile) * 256;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;  // B[k][n] at bt[n*16 + k]
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a + offset, 16);
  wmma::load_matrix_sync(fb, bt + offset, 16);
  wmma::load_matrix_sync(fc, c + offset, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + offset, fc, 16, wmma::mem_row_major);
#endif
}

struct DeviceMemory {
  void* p = nullptr;
  ~DeviceMemory() {
    if (p) cudaFree(p);
  }
};

Status cuda_error(cudaError_t e, const char* what) {
  return Status::error(StatusCode::launch_failed, std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

Status run_bf16_mma_tiles(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                          const std::vector<float>& c, std::vector<float>& d, int tiles) {
  const size_t n = static_cast<size_t>(tiles) * 256;
  if (tiles <= 0 || a.size() != n || bt.size() != n || c.size() != n)
    return Status::error(StatusCode::inconsistent_size, "probe tiles: every operand must hold tiles * 256 values");
  int device = 0;
  cudaDeviceProp prop{};
  cudaError_t e;
  if ((e = cudaGetDevice(&device)) || (e = cudaGetDeviceProperties(&prop, device))) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device, cudaGetErrorString(e));
  }
  if (prop.major < 8) return Status::error(StatusCode::unsupported_device, "BF16 tensor cores need sm_80 or later");
  DeviceMemory da, db, dc, dd;
  if ((e = cudaMalloc(&da.p, n * 2)) || (e = cudaMalloc(&db.p, n * 2)) || (e = cudaMalloc(&dc.p, n * 4)) ||
      (e = cudaMalloc(&dd.p, n * 4)))
    return cuda_error(e, "cudaMalloc");
  if ((e = cudaMemcpy(da.p, a.data(), n * 2, cudaMemcpyHostToDevice)) ||
      (e = cudaMemcpy(db.p, bt.data(), n * 2, cudaMemcpyHostToDevice)) ||
      (e = cudaMemcpy(dc.p, c.data(), n * 4, cudaMemcpyHostToDevice)) || (e = cudaMemset(dd.p, 0xA5, n * 4)))
    return cuda_error(e, "cudaMemcpy");
  const int blocks = (tiles + kWarpsPerBlock - 1) / kWarpsPerBlock;
  bf16_mma_tiles_kernel<<<blocks, 32 * kWarpsPerBlock>>>(static_cast<const __nv_bfloat16*>(da.p),
                                                         static_cast<const __nv_bfloat16*>(db.p),
                                                         static_cast<const float*>(dc.p), static_cast<float*>(dd.p),
                                                         tiles);
  if ((e = cudaGetLastError()) || (e = cudaDeviceSynchronize())) return cuda_error(e, "probe kernel");
  d.resize(n);
  if ((e = cudaMemcpy(d.data(), dd.p, n * 4, cudaMemcpyDeviceToHost))) return cuda_error(e, "cudaMemcpy");
  return Status::success();
}

}  // namespace ordo::kernels
