// The host twins of the FP32 forward mutants: every output through the defect's `compute`
// (kernels/mutants/fwd_f32_defects.h), the code the GPU mutant runs.
#include <functional>
#include <stdexcept>

#include "core/contract.h"
#include "kernels/mutants/fwd_f32_defects.h"
#include "oracle/plan_emulator.h"
#include "subjects/mutants/host_mutants_internal.h"

namespace ordo::mutants {
namespace {

using ComputeFn = float (*)(const ForwardElement&);

class HostForwardF32Twin final : public ForwardSubject {
 public:
  HostForwardF32Twin(SubjectTraits traits, ComputeFn compute) : traits_(std::move(traits)), compute_(compute) {}
  const SubjectTraits& traits() const override { return traits_; }
  BackendResult forward(const ForwardProblem& p) override {
    if (Status s = check_dot_problem(traits_.contract.plan, p); !s.ok()) return {s, {}};
    if (p.M > kMaxTwinDim || p.N > kMaxTwinDim || p.K > kMaxTwinDim)
      return {Status::error(StatusCode::unsupported_shape, "a host twin takes dimensions below 2^30"), {}};
    ForwardElement e;
    e.x = p.x.data();
    e.w = p.w.data();
    e.M = static_cast<int>(p.M);
    e.N = static_cast<int>(p.N);
    e.K = static_cast<int>(p.K);
    BackendResult r;
    r.y.resize(static_cast<std::size_t>(p.M * p.N));
    for (e.m = 0; e.m < e.M; ++e.m)
      for (e.n = 0; e.n < e.N; ++e.n) {
        e.bias = p.bias ? p.bias->data() + e.n : nullptr;
        r.y[static_cast<std::size_t>(e.m) * static_cast<std::size_t>(e.N) + static_cast<std::size_t>(e.n)] =
            compute_(e);
      }
    return r;
  }

 private:
  SubjectTraits traits_;
  ComputeFn compute_;
};

struct Twin {
  HostTwinInfo info;
  ComputeFn compute;
};

template <class Defect>
Twin twin() {
  return {{Defect::kId, Defect::kDefect, "fwd.f32.fma-chain/1"}, &Defect::compute};
}

const std::vector<Twin>& twins() {
  static const std::vector<Twin> all = {
      twin<KSplitHalves>(), twin<StreamKLastWave>(), twin<BlockKPartials>(),    twin<TwoAccumulators>(),
      twin<KReversed>(),    twin<SplitKSmallM>(),    twin<Tf32Inputs>(),        twin<UnfusedMulAdd>(),
      twin<DazInputs>(),    twin<FtzOutputs>(),      twin<StartNegativeZero>(), twin<NanPayload>(),
      twin<BiasFirst>(),    twin<KTailDropped>(),    twin<KTailOverread>(),     twin<EdgeLastColumn>(),
      twin<EdgeLastRow>(),
  };
  return all;
}

}  // namespace

std::vector<HostTwinInfo> fwd_f32_twin_infos() { return infos_of(twins()); }

std::unique_ptr<ForwardSubject> make_fwd_f32_twin(const std::string& id) {
  const Twin* t = find_twin(twins(), id);
  if (t == nullptr) return nullptr;
  return std::make_unique<HostForwardF32Twin>(twin_traits(t->info), t->compute);
}

std::unique_ptr<ForwardSubject> make_fwd_f32_contract_twin() {
  return std::make_unique<HostForwardF32Twin>(
      contract_twin_traits("host.twin.fwd.f32.contract-chain", "fwd.f32.fma-chain/1"), &ContractChain::compute);
}

}  // namespace ordo::mutants
