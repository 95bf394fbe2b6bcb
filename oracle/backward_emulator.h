#pragma once
#include <vector>

#include "core/backward_problem.h"
#include "core/reduction_plan.h"
#include "core/status.h"

namespace ordo::oracle {

// Host emulation of the backward contracts through the one plan interpreter (oracle/plan_emulator.h):
// each backward product is brought to the dot form and run by emulate_dot. `plan` is the contract's
// reduction plan (a backward_data plan for dX, a backward_weight plan for dW/db). NaN results have the
// plan's NaN bits.

// dX[m,k]: the dot form with A = G, B = W^T. Throws std::invalid_argument when validate_for_plan fails.
std::vector<float> emulate_backward_data(const BackwardDataProblem& p, const ReductionPlan& plan, unsigned threads = 0);

struct BackwardWeightOutcome {
  Status status;
  BackwardWeightResult result;  // empty unless status is ok
};

// dW and db over the whole batch: validates the problem and its keys (fail closed: a rejected problem
// gives no result), orders the active tokens as the plan's row order says, then dW is the dot form with
// A = (G in that order)^T, B = (X in that order)^T, and db the plan's add_rn chain over the same tokens.
BackwardWeightOutcome emulate_backward_weight(const BackwardWeightProblem& p, const ReductionPlan& plan,
                                              unsigned threads = 0);

// validate(p), then: wrong_dtype unless bf16_operands matches the plan's operand dtype; for dW, bad_keys
// for keys under a call-order plan, unsupported_shape for a db under a plan without one.
Status validate_for_plan(const BackwardDataProblem& p, const ReductionPlan& plan);
Status validate_for_plan(const BackwardWeightProblem& p, const ReductionPlan& plan);

// The deliberately plain scalar versions (backward_reference.cpp): one loop per element over gathered
// vectors, their own sort of the keys, the scalar plan interpreter. The fast emulators are checked
// against them. They assume a valid problem.
std::vector<float> reference_backward_data(const BackwardDataProblem& p, const ReductionPlan& plan);
BackwardWeightResult reference_backward_weight(const BackwardWeightProblem& p, const ReductionPlan& plan);

}  // namespace ordo::oracle
