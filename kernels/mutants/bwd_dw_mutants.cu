// The self-test's dW/db GPU mutants of contract bwd.dw.f32.fma-chain/1 (kernels/mutants/
// mutant_registry.h). Deliberately plain: one thread per element of dW (and of db) runs its chain over
// the token order that the defect's host code gives (bwd_dw_orders.h: the keys and G are read back to
// the host, as the production dispatch reads keys), with the element functions of bwd_dw_defects.h that
// the host twins run too. The atomics mutant instead gives every chunk of 16 tokens a block of its own,
// which adds its partial sums into dW and db with atomicAdd: in whatever order the blocks finish. The
// call-order mutant is the production tile with an unsorted order (backward_registry.cpp), not this.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/mutants/bwd_dw_orders.h"
#include "kernels/mutants/mutant_internal.h"

namespace ordo::kernels::detail {
namespace {

using mutants::DwDefect;

__global__ void dw_mutant_kernel(DwDefect d, const float* __restrict__ g, const float* __restrict__ x,
                                 const int* __restrict__ rows, int R, int N, int K, float* __restrict__ dw,
                                 bool accumulate) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(N) * K) return;
  const int n = static_cast<int>(i / K), k = static_cast<int>(i % K);
  dw[i] = mutants::dw_element(d, g, x, rows, R, N, K, n, k, accumulate, accumulate ? dw[i] : 0.0f);
}

__global__ void db_mutant_kernel(DwDefect d, const float* __restrict__ g, const int* __restrict__ rows, int R, int N,
                                 float* __restrict__ db, bool accumulate) {
  const int n = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (n >= N) return;
  db[n] = mutants::db_element(d, g, rows, R, N, n, accumulate, accumulate ? db[n] : 0.0f);
}

// blockIdx.y: the chunk of tokens [16 y, 16 y + 16) of the order; its partial sum goes in with an atomic.
__global__ void dw_atomic_chunk_kernel(const float* __restrict__ g, const float* __restrict__ x,
                                       const int* __restrict__ rows, int R, int N, int K, float* dw) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(N) * K) return;
  const int r0 = static_cast<int>(blockIdx.y) * mutants::kDwChunk;
  const int r1 = r0 + mutants::kDwChunk < R ? r0 + mutants::kDwChunk : R;
  atomicAdd(dw + i,
            mutants::dw_chain(g, x, rows, r0, r1, N, K, static_cast<int>(i / K), static_cast<int>(i % K), 0.0f));
}

__global__ void db_atomic_chunk_kernel(const float* __restrict__ g, const int* __restrict__ rows, int R, int N,
                                       float* db) {
  const int n = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (n >= N) return;
  const int r0 = static_cast<int>(blockIdx.y) * mutants::kDwChunk;
  const int r1 = r0 + mutants::kDwChunk < R ? r0 + mutants::kDwChunk : R;
  atomicAdd(db + n, mutants::db_chain(g, rows, r0, r1, N, n, 0.0f));
}

Status cuda_failed(const char* what, cudaError_t e) {
  (void)cudaGetLastError();
  return Status::error(StatusCode::launch_failed,
                       std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// A device copy of a host vector, freed with the object.
class DeviceRows {
 public:
  ~DeviceRows() { (void)cudaFree(ptr_); }
  cudaError_t upload(const std::vector<int>& v) {
    if (v.empty()) return cudaSuccess;
    cudaError_t e = cudaMalloc(&ptr_, v.size() * sizeof(int));
    return e != cudaSuccess ? e : cudaMemcpy(ptr_, v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice);
  }
  const int* get() const { return static_cast<const int*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

}  // namespace

Status launch_dw_mutant(DwDefect d, const BackwardWeightArgs& a) {
  // The self-test hands these mutants well-formed calls only (they promise no fail-closed checks); the
  // shapes still decide every size below, so a bad one is refused rather than read past.
  const std::int64_t T = a.x.rows, K = a.x.cols, N = a.g.cols;
  if (a.x.dtype != DType::f32 || a.g.dtype != DType::f32 || a.g.rows != T || a.dw.rows != N || a.dw.cols != K ||
      N < 1 || K < 1 || T < 0 || (a.db.data != nullptr && a.db.cols != N))
    return Status::error(StatusCode::inconsistent_size,
                         "dW mutant: operands of other shapes than x [T,K], g [T,N], dw [N,K]");
  const bool keyed = a.keys.data != nullptr;
  std::vector<float> g(static_cast<std::size_t>(T * N));
  std::vector<std::int64_t> keys(keyed ? static_cast<std::size_t>(T * a.keys.cols) : 0);
  cudaError_t e;
  if (T > 0 && (e = cudaMemcpy(g.data(), a.g.data, g.size() * 4, cudaMemcpyDeviceToHost)) != cudaSuccess)
    return cuda_failed("reading G back", e);
  if (keyed && T > 0 &&
      (e = cudaMemcpy(keys.data(), a.keys.data, keys.size() * 8, cudaMemcpyDeviceToHost)) != cudaSuccess)
    return cuda_failed("reading the keys back", e);
  const LogicalKeysView view{keys.data(), keyed ? a.keys.rows : 0, keyed ? a.keys.cols : 0, a.keys.dtype};
  const mutants::DwOrders orders = mutants::dw_orders(d, keyed ? &view : nullptr, T, g.data(), N);
  if (!orders.status.ok()) return orders.status;

  DeviceRows dw_rows, db_rows;
  if ((e = dw_rows.upload(orders.dw_rows)) != cudaSuccess || (e = db_rows.upload(orders.db_rows)) != cudaSuccess)
    return cuda_failed("uploading the token order", e);
  const auto* gp = static_cast<const float*>(a.g.data);
  const auto* xp = static_cast<const float*>(a.x.data);
  auto* dw = static_cast<float*>(a.dw.data);
  auto* db = static_cast<float*>(a.db.data);
  const int R = static_cast<int>(orders.dw_rows.size()), Rb = static_cast<int>(orders.db_rows.size());
  const long long elements = N * K;
  const unsigned blocks = static_cast<unsigned>((elements + 255) / 256),
                 db_blocks = static_cast<unsigned>((N + 255) / 256);
  auto stream = static_cast<cudaStream_t>(a.stream);
  if (d == DwDefect::atomics) {
    if (!a.accumulate && ((e = cudaMemsetAsync(dw, 0, static_cast<std::size_t>(elements) * 4, stream)) != cudaSuccess ||
                          (db && (e = cudaMemsetAsync(db, 0, static_cast<std::size_t>(N) * 4, stream)) != cudaSuccess)))
      return cuda_failed("clearing dW, db", e);
    const unsigned chunks = static_cast<unsigned>((R + mutants::kDwChunk - 1) / mutants::kDwChunk);
    if (chunks > 0) {
      dw_atomic_chunk_kernel<<<dim3(blocks, chunks), 256, 0, stream>>>(gp, xp, dw_rows.get(), R, static_cast<int>(N),
                                                                       static_cast<int>(K), dw);
      if (db)
        db_atomic_chunk_kernel<<<dim3(db_blocks, chunks), 256, 0, stream>>>(gp, db_rows.get(), R, static_cast<int>(N),
                                                                            db);
    }
  } else {
    dw_mutant_kernel<<<blocks, 256, 0, stream>>>(d, gp, xp, dw_rows.get(), R, static_cast<int>(N), static_cast<int>(K),
                                                 dw, a.accumulate);
    if (db)
      db_mutant_kernel<<<db_blocks, 256, 0, stream>>>(d, gp, db_rows.get(), Rb, static_cast<int>(N), db, a.accumulate);
  }
  if ((e = cudaGetLastError()) != cudaSuccess) return cuda_failed("launch of a dW mutant", e);
  // The order arrays are freed when this returns: wait for the kernels that read them.
  if ((e = cudaStreamSynchronize(stream)) != cudaSuccess) return cuda_failed("dW mutant", e);
  return Status::success();
}

}  // namespace ordo::kernels::detail
