#include "core/problem_checks.h"

#include <string>

#include "core/checked_size.h"
#include "core/float_bits.h"

namespace ordo {
namespace {

// A binary32 whose low 16 bits are zero: exactly a bfloat16 value.
bool is_bf16_bits(float f) { return (bits_of(f) & 0xFFFFu) == 0; }

}  // namespace

Status check_dot_problem(const ReductionPlan& plan, const ForwardProblem& p, bool allow_empty_k) {
  const bool shapes = p.M >= 1 && p.N >= 1 && (p.K >= 1 || (allow_empty_k && p.K == 0)) &&
                      holds_exactly(p.x.size(), p.M, p.K) && holds_exactly(p.w.size(), p.N, p.K) &&
                      checked_product(p.M, p.N).has_value() && (!p.bias || holds_exactly(p.bias->size(), 1, p.N));
  if (!shapes)
    return Status::error(StatusCode::inconsistent_size,
                         "problem shapes: M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" +
                             std::to_string(p.K) + " with " + std::to_string(p.x.size()) + " x and " +
                             std::to_string(p.w.size()) + " w values");
  if (plan.operand_dtype == DType::bf16) {
    for (const std::vector<float>* v : {&p.x, &p.w})
      for (std::size_t i = 0; i < v->size(); ++i)
        if (!is_bf16_bits((*v)[i]))
          return Status::error(StatusCode::wrong_dtype, std::string(v == &p.x ? "x" : "w") + "[" + std::to_string(i) +
                                                            "] = " + describe_float((*v)[i]) +
                                                            " is not a bfloat16 value (the plan's operands are bf16)");
  }
  if (!plan.allows_output(p.bf16_output ? DType::bf16 : DType::f32))
    return Status::error(StatusCode::wrong_dtype,
                         std::string("the plan does not allow a ") + (p.bf16_output ? "bf16" : "f32") + " output");
  if (p.bias && plan.bias == BiasPlacement::none)
    return Status::error(StatusCode::unsupported_shape, "the plan has no bias, but the problem gives one");
  return Status::success();
}

}  // namespace ordo
