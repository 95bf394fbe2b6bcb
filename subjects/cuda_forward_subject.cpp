#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "core/float_bits.h"

#include "subjects/cuda_variant_subject.h"
#include "subjects/device_operands.h"
#include "subjects/forward_subject.h"
#include "subjects/variant_traits.h"
#include "kernels/forward_api.h"

namespace ordo {
namespace {

using subjects::cuda_status;
using subjects::DeviceBuffer;
using subjects::HostOperand;
using subjects::to_operand;

class CudaForwardSubject final : public CudaVariantSubject<ForwardSubject, kernels::ForwardArgs> {
 public:
  CudaForwardSubject(const std::string& variant_id, const kernels::LaunchOptions& options)
      : CudaVariantSubject(kernels::find_forward_variant(variant_id), "kernel variant", variant_id, options,
                           &kernels::forward) {}
  CudaForwardSubject(const KernelVariant& v, ForwardCall call) : CudaVariantSubject(v, std::move(call)) {}
  std::vector<FailClosedOutcome> fail_closed_scenarios() override {
    FailClosedTarget target{
        traits_,
        true,
        [](const std::string& variant, const kernels::ForwardArgs& a) { return kernels::forward(variant, a); },
        {}};
    return run_forward_fail_closed(target);
  }

  BackendResult forward(const ForwardProblem& p) override {
    HostOperand x, w;
    if (Status st = to_operand(p.x, operand_dtype_, &x); !st.ok()) return {st, {}};
    if (Status st = to_operand(p.w, operand_dtype_, &w); !st.ok()) return {st, {}};
    const std::size_t ys = p.bf16_output ? 2 : 4;
    const std::size_t xb = x.bytes(), wb = w.bytes(), yb = static_cast<std::size_t>(p.M * p.N) * ys;
    const void* xsrc = x.data();
    const void* wsrc = w.data();
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
    a.options = options_;
    Status s = call_(a);
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

};

}  // namespace

std::unique_ptr<ForwardSubject> make_cuda_forward_subject(const std::string& variant_id,
                                                          const kernels::LaunchOptions& options) {
  return std::make_unique<CudaForwardSubject>(variant_id, options);
}
std::unique_ptr<ForwardSubject> make_cuda_forward_subject(const KernelVariant& variant, ForwardCall call) {
  return std::make_unique<CudaForwardSubject>(variant, std::move(call));
}

}  // namespace ordo
