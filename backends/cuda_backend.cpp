#include <cuda_runtime.h>

#include <stdexcept>

#include "backends/backend.h"
#include "kernels/forward_api.h"

namespace ordo {
namespace {

// Device buffer owned for the duration of one call.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  cudaError_t allocate(std::size_t bytes) { return cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes); }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

Status cuda_status(cudaError_t e, const char* what) {
  return Status::error(StatusCode::launch_failed, std::string(what) + ": " + cudaGetErrorString(e));
}

class CudaBackend final : public ForwardBackend {
 public:
  explicit CudaBackend(std::string variant_id) : variant_id_(std::move(variant_id)) {
    const KernelVariant* v = kernels::find_forward_variant(variant_id_);
    if (!v) throw std::invalid_argument("unknown kernel variant " + variant_id_);
    contract_id_ = v->contract_id;
  }
  std::string name() const override { return "cuda"; }
  std::string kernel_id() const override { return variant_id_; }
  std::string contract_id() const override { return contract_id_; }

  BackendResult forward(const ForwardProblem& p) override {
    const std::size_t xb = p.x.size() * 4, wb = p.w.size() * 4, yb = static_cast<std::size_t>(p.M * p.N) * 4;
    DeviceBuffer dx, dw, db, dy;
    cudaError_t e;
    if ((e = dx.allocate(xb)) || (e = dw.allocate(wb)) || (e = dy.allocate(yb)) ||
        (p.bias && (e = db.allocate(p.bias->size() * 4))))
      return {cuda_status(e, "cudaMalloc"), {}};
    if ((e = cudaMemcpy(dx.get(), p.x.data(), xb, cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(dw.get(), p.w.data(), wb, cudaMemcpyHostToDevice)) ||
        (p.bias && (e = cudaMemcpy(db.get(), p.bias->data(), p.bias->size() * 4, cudaMemcpyHostToDevice))))
      return {cuda_status(e, "cudaMemcpy to device"), {}};
    // Poison the output: an element the kernel fails to write shows up as a mismatch, never as a
    // stale value that happens to agree.
    if ((e = cudaMemset(dy.get(), 0xA5, yb))) return {cuda_status(e, "cudaMemset"), {}};

    kernels::ForwardArgs a;
    a.x = {dx.get(), DType::f32, p.M, p.K};
    a.w = {dw.get(), DType::f32, p.N, p.K};
    if (p.bias) a.bias = {db.get(), DType::f32, 1, p.N};
    a.y = dy.get();
    a.y_rows = p.M;
    a.y_cols = p.N;
    Status s = kernels::forward(variant_id_, a);
    if (!s.ok()) return {s, {}};
    if ((e = cudaDeviceSynchronize())) return {cuda_status(e, "kernel execution"), {}};
    BackendResult r;
    r.y.resize(static_cast<std::size_t>(p.M * p.N));
    if ((e = cudaMemcpy(r.y.data(), dy.get(), yb, cudaMemcpyDeviceToHost))) return {cuda_status(e, "cudaMemcpy to host"), {}};
    return r;
  }

 private:
  std::string variant_id_;
  std::string contract_id_;
};

}  // namespace

std::unique_ptr<ForwardBackend> make_cuda_backend(const std::string& variant_id) {
  return std::make_unique<CudaBackend>(variant_id);
}

}  // namespace ordo
