#pragma once
// The cuBLAS side of ordo_bench_forward: one handle on the bench's stream, and the reference GEMM
// Y[M,N] (row-major) = X[M,K] * W[N,K]^T for FP32 and BF16 operands.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

#include "bench/bench_common.h"
#include "core/dtype.h"

namespace ordo::bench {

class CublasReference {
 public:
  explicit CublasReference(cudaStream_t stream);
  ~CublasReference();
  CublasReference(const CublasReference&) = delete;
  CublasReference& operator=(const CublasReference&) = delete;

  int version() const { return version_; }

  // Enqueues Y = X * W^T on the stream. operand f32: cublasSgemm (out must be f32). operand bf16:
  // cublasGemmEx with A, B CUDA_R_16BF, C CUDA_R_32F or CUDA_R_16BF (out), CUBLAS_COMPUTE_32F.
  // Exits 1 on a cuBLAS error.
  void gemm(DType operand, DType out, const Shape& s, const void* x, const void* w, void* y);

  // Enqueues dX [M,K] (row-major) = G [M,N] * W [N,K] with cublasSgemm (the data gradient of the forward
  // shape s). Exits 1 on a cuBLAS error.
  void gemm_dx_f32(const Shape& s, const float* g, const float* w, float* dx);

  // Enqueues dW [N,K] (row-major) = G^T X over the M tokens of G [M,N] and X [M,K] with cublasSgemm (the
  // weight gradient of the forward shape s). Exits 1 on a cuBLAS error.
  void gemm_dw_f32(const Shape& s, const float* g, const float* x, float* dw);

  // What gemm() calls for these dtypes, for the table header and the JSON.
  static std::string describe(DType operand, DType out);

 private:
  cublasHandle_t handle_ = nullptr;
  int version_ = 0;
};

}  // namespace ordo::bench
