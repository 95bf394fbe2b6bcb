#include <optional>
#include <stdexcept>

#include "backends/backend.h"
#include "core/contract.h"
#include "oracle/fma_chain_emulator.h"
#include "oracle/tc_chain_emulator.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo {
namespace {

class EmulatorBackend final : public ForwardBackend {
 public:
  EmulatorBackend(std::string contract_id, bool scalar) : contract_id_(std::move(contract_id)), scalar_(scalar) {
    if (contract_id_ == contract_fwd_bf16_tc_fdpa_sm80().id) tc_params_ = oracle::tc_fdpa_params_sm80();
    else if (contract_id_ == contract_fwd_bf16_tc_fdpa_sm90().id) tc_params_ = oracle::tc_fdpa_params_sm90();
    else if (contract_id_ != contract_fwd_f32_fma_chain().id)
      throw std::invalid_argument("no host emulator for contract " + contract_id_);
    if (tc_params_ && scalar_) throw std::invalid_argument("no scalar reference for contract " + contract_id_);
  }
  std::string name() const override { return scalar_ ? "scalar-reference" : "emulator"; }
  std::string kernel_id() const override { return scalar_ ? "host.scalar-reference" : "host.emulator"; }
  std::string contract_id() const override { return contract_id_; }
  BackendResult forward(const ForwardProblem& p) override {
    if (!p.shapes_consistent()) return {Status::error(StatusCode::inconsistent_size, "problem shapes"), {}};
    if (tc_params_) {
      std::vector<float> y = oracle::emulate_forward_tc_chain(p, *tc_params_);
      // The contract's output rounding for a BF16 Y: one round-to-nearest-even cast per element, NaN
      // to the canonical bfloat16 NaN 0x7fff.
      if (p.bf16_output)
        for (float& v : y) v = oracle::round_to_bf16(v);
      return {Status::success(), std::move(y)};
    }
    if (p.bf16_output)
      return {Status::error(StatusCode::wrong_dtype, "contract " + contract_id_ + " writes an f32 Y only"), {}};
    return {Status::success(),
            scalar_ ? oracle::reference_forward_fma_chain(p) : oracle::emulate_forward_fma_chain(p)};
  }

 private:
  std::string contract_id_;
  bool scalar_;
  std::optional<oracle::TcFdpaParams> tc_params_;
};

}  // namespace

std::unique_ptr<ForwardBackend> make_emulator_backend(const std::string& contract_id) {
  return std::make_unique<EmulatorBackend>(contract_id, false);
}
std::unique_ptr<ForwardBackend> make_scalar_reference_backend(const std::string& contract_id) {
  return std::make_unique<EmulatorBackend>(contract_id, true);
}

}  // namespace ordo
