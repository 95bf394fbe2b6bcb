#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/status.h"
#include "core/variant.h"
#include "kernels/backward_api.h"
#include "subjects/forward_subject.h"
#include "subjects/subject_traits.h"

namespace ordo {

struct BackwardWeightRun {
  Status status;
  BackwardWeightResult result;  // when status is ok
};

// A subject that runs one backward operation and returns the output bits; the backward properties are
// written once against this interface and read nothing but the traits. Its contract's kind says which
// of the two calls it answers (the other returns unsupported_shape).
class BackwardSubject {
 public:
  virtual ~BackwardSubject() = default;
  virtual const SubjectTraits& traits() const = 0;
  // dX (backward_data contracts); the result's y holds dX [M, K].
  virtual BackendResult data(const BackwardDataProblem& p) = 0;
  // dW and db of the microbatches, one call each, the first from the start value and each later one
  // continuing the chains (the kernels' accumulate; the emulator's in-order session). One microbatch: a
  // whole-batch call. More than one needs traits().accumulate.
  virtual BackwardWeightRun weight(const std::vector<BackwardWeightProblem>& microbatches) = 0;
  // The malformed-call scenarios of its operation (subjects/fail_closed.h), for subjects that can run them.
  virtual bool has_fail_closed_scenarios() const { return false; }
  virtual std::vector<FailClosedOutcome> fail_closed_scenarios() { return {}; }

  const std::string& name() const { return traits().kind; }
  const std::string& kernel_id() const { return traits().id; }
  const std::string& contract_id() const { return traits().contract.id; }
};

// The host emulator of a backward contract (oracle/backward_emulator.h).
std::unique_ptr<BackwardSubject> make_backward_emulator_subject(const Contract& contract);
// A registered backward CUDA variant, run on the current device with `options`.
std::unique_ptr<BackwardSubject> make_backward_cuda_subject(const std::string& variant_id,
                                                            const kernels::LaunchOptions& options = {});
// A dW/db CUDA variant of another registry (the self-test's mutants): traits from `variant`, each call
// through `call`, on the current device.
using BackwardWeightCall = std::function<Status(const kernels::BackwardWeightArgs&)>;
std::unique_ptr<BackwardSubject> make_backward_weight_cuda_subject(const KernelVariant& variant, BackwardWeightCall call);

}  // namespace ordo
