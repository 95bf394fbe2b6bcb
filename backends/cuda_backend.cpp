#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "core/float_bits.h"

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
    operand_dtype_ = v->operand_dtype;
  }
  std::string name() const override { return "cuda"; }
  std::string kernel_id() const override { return variant_id_; }
  std::string contract_id() const override { return contract_id_; }

  BackendResult forward(const ForwardProblem& p) override {
    // bf16 operands travel as their bit patterns: the problem must hold bfloat16 values exactly.
    std::vector<std::uint16_t> xh, wh;
    const bool bf16 = operand_dtype_ == DType::bf16;
    if (bf16) {
      for (const auto* src : {&p.x, &p.w}) {
        auto& dst = src == &p.x ? xh : wh;
        dst.reserve(src->size());
        for (float f : *src) {
          const std::uint32_t u = bits_of(f);
          if ((u & 0xFFFFu) != 0 && !std::isnan(f))
            return {Status::error(StatusCode::tool_error, "operand value " + describe_float(f) + " is not a bfloat16"), {}};
          dst.push_back(static_cast<std::uint16_t>(u >> 16));
        }
      }
    }
    const std::size_t es = bf16 ? 2 : 4;
    const std::size_t ys = p.bf16_output ? 2 : 4;
    const std::size_t xb = p.x.size() * es, wb = p.w.size() * es, yb = static_cast<std::size_t>(p.M * p.N) * ys;
    const void* xsrc = bf16 ? static_cast<const void*>(xh.data()) : p.x.data();
    const void* wsrc = bf16 ? static_cast<const void*>(wh.data()) : p.w.data();
    DeviceBuffer dx, dw, db, dy;
    cudaError_t e;
    if ((e = dx.allocate(xb)) || (e = dw.allocate(wb)) || (e = dy.allocate(yb)) ||
        (p.bias && (e = db.allocate(p.bias->size() * 4))))
      return {cuda_status(e, "cudaMalloc"), {}};
    if ((e = cudaMemcpy(dx.get(), xsrc, xb, cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(dw.get(), wsrc, wb, cudaMemcpyHostToDevice)) ||
        (p.bias && (e = cudaMemcpy(db.get(), p.bias->data(), p.bias->size() * 4, cudaMemcpyHostToDevice))))
      return {cuda_status(e, "cudaMemcpy to device"), {}};
    // Poison the output: an element the kernel fails to write shows up as a mismatch, never as a
    // stale value that happens to agree.
    if ((e = cudaMemset(dy.get(), 0xA5, yb))) return {cuda_status(e, "cudaMemset"), {}};

    kernels::ForwardArgs a;
    a.x = {dx.get(), operand_dtype_, p.M, p.K};
    a.w = {dw.get(), operand_dtype_, p.N, p.K};
    if (p.bias) a.bias = {db.get(), DType::f32, 1, p.N};
    a.y = dy.get();
    a.y_dtype = p.bf16_output ? DType::bf16 : DType::f32;
    a.y_rows = p.M;
    a.y_cols = p.N;
    Status s = kernels::forward(variant_id_, a);
    if (!s.ok()) return {s, {}};
    if ((e = cudaDeviceSynchronize())) return {cuda_status(e, "kernel execution"), {}};
    BackendResult r;
    r.y.resize(static_cast<std::size_t>(p.M * p.N));
    if (p.bf16_output) {
      std::vector<std::uint16_t> yh(r.y.size());
      if ((e = cudaMemcpy(yh.data(), dy.get(), yb, cudaMemcpyDeviceToHost))) return {cuda_status(e, "cudaMemcpy to host"), {}};
      for (std::size_t i = 0; i < yh.size(); ++i) r.y[i] = float_of(std::uint32_t{yh[i]} << 16);
      return r;
    }
    if ((e = cudaMemcpy(r.y.data(), dy.get(), yb, cudaMemcpyDeviceToHost))) return {cuda_status(e, "cudaMemcpy to host"), {}};
    return r;
  }

 private:
  std::string variant_id_;
  std::string contract_id_;
  DType operand_dtype_ = DType::f32;
};

}  // namespace

std::unique_ptr<ForwardBackend> make_cuda_backend(const std::string& variant_id) {
  return std::make_unique<CudaBackend>(variant_id);
}

}  // namespace ordo
