// The cuBLAS reference of ordo_bench_forward (cublas_reference.h).
#include "bench/cublas_reference.h"

namespace ordo::bench {
namespace {

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    die(std::string(what) + ": " + cublasGetStatusName(s) + " (" + std::to_string(static_cast<int>(s)) + ")");
}

}  // namespace

CublasReference::CublasReference(cudaStream_t stream) {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
  // CUBLAS_DEFAULT_MATH never uses TF32 for SGEMM; the BF16 calls name their compute type explicitly.
  check_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  check_cublas(cublasGetVersion(handle_, &version_), "cublasGetVersion");
}

CublasReference::~CublasReference() { cublasDestroy(handle_); }

void CublasReference::gemm(DType operand, DType out, const Shape& s, const void* x, const void* w, void* y) {
  const float one = 1.0f, zero = 0.0f;
  const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
  // cuBLAS is column-major. Row-major Y [M,N] is column-major C = Y^T [N,M] (ldc N); row-major
  // W [N,K] is column-major A = W^T [K,N] (lda K), so op(A) = A^T = W; row-major X [M,K] is
  // column-major B = X^T [K,M] (ldb K). C = W * X^T = (X * W^T)^T = Y^T.
  if (operand == DType::f32) {
    if (out != DType::f32) die("CublasReference: FP32 operands take an f32 output");
    check_cublas(cublasSgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, static_cast<const float*>(w), K,
                             static_cast<const float*>(x), K, &zero, static_cast<float*>(y), N),
                 "cublasSgemm");
    return;
  }
  if (operand != DType::bf16 || (out != DType::f32 && out != DType::bf16))
    die("CublasReference: unsupported dtypes " + describe(operand, out));
  const cudaDataType_t c_type = out == DType::bf16 ? CUDA_R_16BF : CUDA_R_32F;
  check_cublas(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, CUDA_R_16BF, K, x, CUDA_R_16BF, K,
                            &zero, y, c_type, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

void CublasReference::gemm_dx_f32(const Shape& s, const float* g, const float* w, float* dx) {
  const float one = 1.0f, zero = 0.0f;
  const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
  // Column-major: dX^T [K,M] = W^T [K,N] * G^T [N,M]; row-major W [N,K] is column-major W^T (ld K), row-major
  // G [M,N] is column-major G^T (ld N).
  check_cublas(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, K, M, N, &one, w, K, g, N, &zero, dx, K),
               "cublasSgemm (dX)");
}

void CublasReference::gemm_dw_f32(const Shape& s, const float* g, const float* x, float* dw) {
  const float one = 1.0f, zero = 0.0f;
  const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
  // Column-major: dW^T [K,N] = X^T [K,M] * G [M,N]; row-major X [M,K] is column-major X^T (ld K), row-major
  // G [M,N] is column-major G^T (ld N), transposed.
  check_cublas(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_T, K, N, M, &one, x, K, g, N, &zero, dw, K),
               "cublasSgemm (dW)");
}

std::string CublasReference::describe(DType operand, DType out) {
  if (operand == DType::f32) return "cublasSgemm CUBLAS_DEFAULT_MATH (no TF32)";
  return std::string("cublasGemmEx bf16 x bf16 -> ") + (out == DType::bf16 ? "CUDA_R_16BF" : "CUDA_R_32F") +
         " CUBLAS_COMPUTE_32F";
}

}  // namespace ordo::bench
