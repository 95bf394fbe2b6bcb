#pragma once
// Whether a forward problem is one a plan can be asked: shapes that hold together, operands in the plan's
// format (bf16 values for bf16 operands), an output dtype and a bias the plan allows. Plain checks on core
// types, so that a file format's reader, the emulators and the kernels' callers ask the same question.
#include "core/problem.h"
#include "core/reduction_plan.h"
#include "core/status.h"

namespace ordo {

// What the emulator refuses, first failure wins: inconsistent_size (shapes, overflow-safe), wrong_dtype
// (an operand value that is not a bfloat16 under a bf16 plan, or an output dtype the plan does not
// allow), unsupported_shape (a bias under a plan without one).
Status check_dot_problem(const ReductionPlan& plan, const ForwardProblem& p, bool allow_empty_k = false);

}  // namespace ordo
