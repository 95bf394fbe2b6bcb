#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/contract.h"
#include "core/problem.h"
#include "core/status.h"
#include "core/variant.h"
#include "kernels/forward_api.h"
#include "subjects/fail_closed.h"
#include "subjects/subject_traits.h"

namespace ordo {

struct BackendResult {
  Status status;
  std::vector<float> y;  // [M, N] row-major when status is ok
};

// A subject that runs forward problems and returns the output bits: a registered CUDA variant, a
// plugin, or the host emulator of a contract. The properties are written once against this interface
// and read nothing but the subject's traits.
class ForwardSubject {
 public:
  virtual ~ForwardSubject() = default;
  virtual const SubjectTraits& traits() const = 0;
  virtual BackendResult forward(const ForwardProblem& p) = 0;
  // The malformed-call scenarios (subjects/fail_closed.h); empty unless traits().fail_closed.
  virtual std::vector<FailClosedOutcome> fail_closed_scenarios() { return {}; }

  const std::string& name() const { return traits().kind; }
  const std::string& kernel_id() const { return traits().id; }
  const std::string& contract_id() const { return traits().contract.id; }
};

// The host emulator of a forward contract (oracle/plan_emulator.h): the fast interpreter, or the plain
// scalar reference of the same plan.
std::unique_ptr<ForwardSubject> make_emulator_subject(const Contract& contract);
std::unique_ptr<ForwardSubject> make_scalar_reference_subject(const Contract& contract);
// A registered CUDA variant (kernels/), run on the current device with `options` (how it runs, never what it
// computes). Throws std::invalid_argument for an unknown id.
std::unique_ptr<ForwardSubject> make_cuda_forward_subject(const std::string& variant_id,
                                                          const kernels::LaunchOptions& options = {});
// A CUDA variant of another registry (the self-test's mutants, kernels/mutants/mutant_registry.h): its
// traits from `variant`, each call through `call` (validate, then launch), on the current device.
using ForwardCall = std::function<Status(const kernels::ForwardArgs&)>;
std::unique_ptr<ForwardSubject> make_cuda_forward_subject(const KernelVariant& variant, ForwardCall call);

}  // namespace ordo
