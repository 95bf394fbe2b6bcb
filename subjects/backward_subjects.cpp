#include "subjects/backward_subject.h"

#include "subjects/cuda_variant_subject.h"
#include "subjects/device_operands.h"
#include "subjects/variant_traits.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "core/contract.h"
#include "core/float_bits.h"
#include "kernels/backward_api.h"
#include "oracle/backward_emulator.h"
#include "oracle/backward_session.h"

namespace ordo {
namespace {

using subjects::cuda_status;
using subjects::DeviceBuffer;
using subjects::HostOperand;
using subjects::to_operand;

// ---------------------------------------------------------------------------------------------------
// Host emulator.

class BackwardEmulatorSubject final : public BackwardSubject {
 public:
  explicit BackwardEmulatorSubject(const Contract& contract) {
    if (contract.kind == ContractKind::forward)
      throw std::invalid_argument("contract " + contract.id + " is not a backward contract");
    traits_.kind = "emulator";
    traits_.id = "host.emulator:" + contract.id;
    traits_.contract = contract;
    traits_.operand_dtype = contract.plan.operand_dtype;
    traits_.accumulate = contract.plan.structure == KStructure::chain;  // the session streams chains only
    traits_.description = "the interpreter of the contract's reduction plan";
  }
  const SubjectTraits& traits() const override { return traits_; }

  BackendResult data(const BackwardDataProblem& p) override {
    if (traits_.contract.kind != ContractKind::backward_data)
      return {Status::error(StatusCode::unsupported_shape, traits_.contract.id + " is not a dX contract"), {}};
    if (Status s = oracle::validate_for_plan(p, plan()); !s.ok()) return {s, {}};
    return {Status::success(), oracle::emulate_backward_data(p, plan())};
  }

  BackwardWeightRun weight(const std::vector<BackwardWeightProblem>& microbatches) override {
    if (traits_.contract.kind != ContractKind::backward_weight)
      return {Status::error(StatusCode::unsupported_shape, traits_.contract.id + " is not a dW contract"), {}};
    if (microbatches.empty()) return {Status::error(StatusCode::tool_error, "no microbatch"), {}};
    if (microbatches.size() == 1) {
      oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(microbatches[0], plan());
      return {r.status, std::move(r.result)};
    }
    if (!traits_.accumulate)
      return {Status::error(StatusCode::unsupported_shape, "a segmented plan is reduced in one whole-batch call"), {}};
    // Microbatches in canonical order: the session in in-order mode continues one chain per element.
    const BackwardWeightProblem& first = microbatches[0];
    oracle::BackwardSessionConfig config;
    config.N = first.N;
    config.K = first.K;
    config.with_bias_grad = first.with_bias_grad;
    config.bf16_operands = first.bf16_operands;
    config.plan = plan();
    oracle::BackwardSession session(config);
    for (const BackwardWeightProblem& mb : microbatches)
      if (Status s = session.submit(mb); !s.ok()) return {s, {}};
    oracle::BackwardWeightOutcome r = session.finish();
    return {r.status, std::move(r.result)};
  }

 private:
  const ReductionPlan& plan() const { return traits_.contract.plan; }
  SubjectTraits traits_;
};

// ---------------------------------------------------------------------------------------------------
// CUDA variants.

// The dW launch is call_ (a test may give its own); dX is always the registry's.
class BackwardCudaSubject final : public CudaVariantSubject<BackwardSubject, kernels::BackwardWeightArgs> {
 public:
  BackwardCudaSubject(const std::string& variant_id, const kernels::LaunchOptions& options)
      : CudaVariantSubject(kernels::find_backward_variant(variant_id), "backward variant", variant_id, options,
                           &kernels::backward_weight) {}
  BackwardCudaSubject(const KernelVariant& v, BackwardWeightCall call) : CudaVariantSubject(v, std::move(call)) {}

  BackendResult data(const BackwardDataProblem& p) override {
    HostOperand g, w;
    if (Status s = to_operand(p.g, operand_dtype_, &g); !s.ok()) return {s, {}};
    if (Status s = to_operand(p.w, operand_dtype_, &w); !s.ok()) return {s, {}};
    DeviceBuffer dg, dw, dx;
    const std::size_t dx_bytes = static_cast<std::size_t>(p.M * p.K) * 4;
    cudaError_t e;
    if ((e = dg.upload(g.data(), g.bytes())) || (e = dw.upload(w.data(), w.bytes())) || (e = dx.allocate(dx_bytes)) ||
        (e = cudaMemset(dx.get(), 0xA5, dx_bytes)))  // poisoned: an unwritten element shows as a mismatch
      return {cuda_status(e, "device setup"), {}};
    kernels::BackwardDataArgs a;
    a.g = {dg.get(), operand_dtype_, p.M, p.N};
    a.w = {dw.get(), operand_dtype_, p.N, p.K};
    a.dx = {dx.get(), DType::f32, p.M, p.K};
    a.options = options_;
    if (Status s = kernels::backward_data(variant_id_, a); !s.ok()) return {s, {}};
    if ((e = cudaDeviceSynchronize())) return {cuda_status(e, "kernel execution"), {}};
    BackendResult r;
    r.y.resize(static_cast<std::size_t>(p.M * p.K));
    if ((e = cudaMemcpy(r.y.data(), dx.get(), dx_bytes, cudaMemcpyDeviceToHost))) return {cuda_status(e, "cudaMemcpy"), {}};
    return r;
  }

  BackwardWeightRun weight(const std::vector<BackwardWeightProblem>& microbatches) override {
    if (microbatches.empty()) return {Status::error(StatusCode::tool_error, "no microbatch"), {}};
    const std::int64_t N = microbatches[0].N, K = microbatches[0].K;
    const bool with_db = microbatches[0].with_bias_grad;
    DeviceBuffer ddw, ddb;
    cudaError_t e;
    const std::size_t dw_bytes = static_cast<std::size_t>(N * K) * 4, db_bytes = static_cast<std::size_t>(N) * 4;
    if ((e = ddw.allocate(dw_bytes)) || (e = cudaMemset(ddw.get(), 0xA5, dw_bytes)) ||
        (with_db && ((e = ddb.allocate(db_bytes)) || (e = cudaMemset(ddb.get(), 0xA5, db_bytes)))))
      return {cuda_status(e, "device setup"), {}};
    for (std::size_t i = 0; i < microbatches.size(); ++i) {
      const BackwardWeightProblem& p = microbatches[i];
      if (p.N != N || p.K != K || p.with_bias_grad != with_db)
        return {Status::error(StatusCode::tool_error, "microbatches disagree on N, K or db"), {}};
      HostOperand x, g;
      if (Status s = to_operand(p.x, operand_dtype_, &x); !s.ok()) return {s, {}};
      if (Status s = to_operand(p.g, operand_dtype_, &g); !s.ok()) return {s, {}};
      DeviceBuffer dxb, dgb, dkeys;
      if ((e = dxb.upload(x.data(), x.bytes())) || (e = dgb.upload(g.data(), g.bytes())) ||
          (p.keys && (e = dkeys.upload(p.keys->values.data(), p.keys->values.size() * 8))))
        return {cuda_status(e, "device setup"), {}};
      kernels::BackwardWeightArgs a;
      a.x = {dxb.get(), operand_dtype_, p.T, K};
      a.g = {dgb.get(), operand_dtype_, p.T, N};
      if (p.keys) a.keys = {dkeys.get(), DType::i64, p.T, p.keys->width};
      a.dw = {ddw.get(), DType::f32, N, K};
      if (with_db) a.db = {ddb.get(), DType::f32, 1, N};
      a.accumulate = i > 0;
      a.options = options_;
      if (Status s = call_(a); !s.ok()) return {s, {}};
      if ((e = cudaDeviceSynchronize())) return {cuda_status(e, "kernel execution"), {}};
    }
    BackwardWeightRun r;
    r.result.dw.resize(static_cast<std::size_t>(N * K));
    if ((e = cudaMemcpy(r.result.dw.data(), ddw.get(), dw_bytes, cudaMemcpyDeviceToHost)))
      return {cuda_status(e, "cudaMemcpy"), {}};
    if (with_db) {
      r.result.db.emplace(static_cast<std::size_t>(N));
      if ((e = cudaMemcpy(r.result.db->data(), ddb.get(), db_bytes, cudaMemcpyDeviceToHost)))
        return {cuda_status(e, "cudaMemcpy"), {}};
    }
    return r;
  }

};

}  // namespace

std::unique_ptr<BackwardSubject> make_backward_emulator_subject(const Contract& contract) {
  return std::make_unique<BackwardEmulatorSubject>(contract);
}
std::unique_ptr<BackwardSubject> make_backward_cuda_subject(const std::string& variant_id,
                                                            const kernels::LaunchOptions& options) {
  return std::make_unique<BackwardCudaSubject>(variant_id, options);
}
std::unique_ptr<BackwardSubject> make_backward_weight_cuda_subject(const KernelVariant& variant, BackwardWeightCall call) {
  return std::make_unique<BackwardCudaSubject>(variant, std::move(call));
}

}  // namespace ordo
