// The host twins of the BF16 forward mutants: the contract's chain of tensor-core steps on the T-FDPA
// model (oracle/tc_fdpa_model.h, the contract's L, F and e_zero), with the defect's element functions
// (kernels/mutants/fwd_bf16_defects.h) applied where the GPU mutant applies them to its fragment.
#include <algorithm>
#include <optional>

#include "core/contract.h"
#include "kernels/mutants/fwd_bf16_defects.h"
#include "oracle/plan_emulator.h"
#include "oracle/tc_fdpa_model.h"
#include "subjects/mutants/host_mutants_internal.h"

namespace ordo::mutants {
namespace {

class HostForwardBf16Twin final : public ForwardSubject {
 public:
  HostForwardBf16Twin(SubjectTraits traits, std::optional<Bf16Defect> defect)
      : traits_(std::move(traits)), defect_(defect) {
    const TcFdpaStep& tc = traits_.contract.plan.step.tc;
    params_ = {tc.L, tc.F, tc.e_zero};
    width_ = tc.k_width;
  }
  const SubjectTraits& traits() const override { return traits_; }

  BackendResult forward(const ForwardProblem& p) override {
    if (Status s = check_dot_problem(traits_.contract.plan, p); !s.ok()) return {s, {}};
    if (p.K > kMaxTwinDim) return {Status::error(StatusCode::unsupported_shape, "a host twin takes K below 2^30"), {}};
    BackendResult r;
    r.y.resize(static_cast<std::size_t>(p.M * p.N));
    for (std::int64_t m = 0; m < p.M; ++m)
      for (std::int64_t n = 0; n < p.N; ++n) r.y[static_cast<std::size_t>(m * p.N + n)] = element(p, m, n);
    return r;
  }

 private:
  float element(const ForwardProblem& p, std::int64_t m, std::int64_t n) const {
    const float* x = p.x_row(m);
    const float* w = p.w_row(n);
    const int K = static_cast<int>(p.K);
    float acc = 0.0f, total = 0.0f;
    for (int k0 = 0; k0 < K; k0 += width_) {
      // One instruction: width / L steps, each over the terms that exist (a short step is zero padded).
      for (int s = k0; s < k0 + width_; s += params_.L) {
        const int terms = std::clamp(K - s, 0, params_.L);
        acc = oracle::tc_fdpa_step(params_, x + std::min(s, K), w + std::min(s, K), terms, acc);
      }
      if (defect_) after_instruction(*defect_, k0, K, acc, total);
    }
    const float sum = defect_ ? chain_result(*defect_, acc, total) : acc;
    const float out = p.bias ? add_rn(sum, (*p.bias)[static_cast<std::size_t>(n)]) : sum;
    if (!p.bf16_output) return out;
    return defect_ ? bf16_store(*defect_, out) : round_bf16_rne(out);
  }

  SubjectTraits traits_;
  std::optional<Bf16Defect> defect_;
  oracle::TcFdpaParams params_{};
  int width_ = 16;
};

struct Twin {
  HostTwinInfo info;
  Bf16Defect defect;
};

const std::vector<Twin>& twins() {
  static const std::vector<Twin> all = {
      {{kBf16AccRoundedId, kBf16AccRoundedDefect, "fwd.bf16.tc-fdpa-sm90/1"}, Bf16Defect::acc_rounded},
      {{kBf16ChainRestartId, kBf16ChainRestartDefect, "fwd.bf16.tc-fdpa-sm90/1"}, Bf16Defect::chain_restart},
      {{kBf16OutputRtzId, kBf16OutputRtzDefect, "fwd.bf16.tc-fdpa-sm90/1"}, Bf16Defect::output_rtz},
  };
  return all;
}

}  // namespace

std::vector<HostTwinInfo> fwd_bf16_twin_infos() { return infos_of(twins()); }

std::unique_ptr<ForwardSubject> make_fwd_bf16_twin(const std::string& id) {
  const Twin* t = find_twin(twins(), id);
  if (t == nullptr) return nullptr;
  return std::make_unique<HostForwardBf16Twin>(twin_traits(t->info), t->defect);
}

std::unique_ptr<ForwardSubject> make_fwd_bf16_contract_twin() {
  return std::make_unique<HostForwardBf16Twin>(
      contract_twin_traits("host.twin.fwd.bf16.contract-chain", "fwd.bf16.tc-fdpa-sm90/1"), std::nullopt);
}

}  // namespace ordo::mutants
