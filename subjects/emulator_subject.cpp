#include <stdexcept>

#include "oracle/plan_emulator.h"
#include "subjects/forward_subject.h"

namespace ordo {
namespace {

// The host emulator of a forward contract: the one plan interpreter, fast or plain scalar.
class EmulatorSubject final : public ForwardSubject {
 public:
  EmulatorSubject(const Contract& contract, bool scalar) : scalar_(scalar) {
    if (contract.kind != ContractKind::forward)
      throw std::invalid_argument("contract " + contract.id + " is not a forward contract");
    traits_.kind = scalar ? "scalar-reference" : "emulator";
    traits_.id = (scalar ? "host.scalar-reference:" : "host.emulator:") + contract.id;
    traits_.contract = contract;
    traits_.operand_dtype = contract.plan.operand_dtype;
    traits_.output_dtypes = contract.plan.output_dtypes;
    traits_.description = scalar ? "the plain scalar interpreter of the contract's reduction plan"
                                 : "the vectorised, threaded interpreter of the contract's reduction plan";
  }
  const SubjectTraits& traits() const override { return traits_; }
  BackendResult forward(const ForwardProblem& p) override {
    const ReductionPlan& plan = traits_.contract.plan;
    if (Status s = check_dot_problem(plan, p); !s.ok()) return {s, {}};
    return {Status::success(), scalar_ ? oracle::reference_dot(plan, p) : oracle::emulate_dot(plan, p)};
  }

 private:
  SubjectTraits traits_;
  bool scalar_;
};

}  // namespace

std::unique_ptr<ForwardSubject> make_emulator_subject(const Contract& contract) {
  return std::make_unique<EmulatorSubject>(contract, false);
}
std::unique_ptr<ForwardSubject> make_scalar_reference_subject(const Contract& contract) {
  return std::make_unique<EmulatorSubject>(contract, true);
}

}  // namespace ordo
