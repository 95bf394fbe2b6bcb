#include "oracle/backward_emulator.h"

#include <stdexcept>

#include "core/problem.h"
#include "oracle/plan_emulator.h"

namespace ordo::oracle {
namespace {

Status check_dtype(bool bf16_operands, const ReductionPlan& plan) {
  if (bf16_operands != (plan.operand_dtype == DType::bf16))
    return Status::error(StatusCode::wrong_dtype, std::string("the contract takes ") +
                                                      std::string(dtype_name(plan.operand_dtype)) + " operands");
  return Status::success();
}

}  // namespace

Status validate_for_plan(const BackwardDataProblem& p, const ReductionPlan& plan) {
  if (Status s = validate(p); !s.ok()) return s;
  return check_dtype(p.bf16_operands, plan);
}

Status validate_for_plan(const BackwardWeightProblem& p, const ReductionPlan& plan) {
  if (Status s = validate(p); !s.ok()) return s;
  if (Status s = check_dtype(p.bf16_operands, plan); !s.ok()) return s;
  if (p.keys && plan.row_order == RowOrder::call_order)
    return Status::error(StatusCode::bad_keys, "the contract reduces the tokens in call order: it takes no logical keys");
  if (p.with_bias_grad && plan.bias_gradient == BiasGradient::none)
    return Status::error(StatusCode::unsupported_shape, "the contract has no bias gradient (db)");
  return Status::success();
}

std::vector<float> emulate_backward_data(const BackwardDataProblem& p, const ReductionPlan& plan, unsigned threads) {
  if (Status s = validate_for_plan(p, plan); !s.ok()) throw std::invalid_argument("dX: " + s.to_string());
  ForwardProblem f;
  f.M = p.M;
  f.N = p.K;
  f.K = p.N;
  f.x = p.g;
  f.w.resize(static_cast<std::size_t>(p.K * p.N));
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t k = 0; k < p.K; ++k) f.w[static_cast<std::size_t>(k * p.N + n)] = p.w_at(n, k);
  return emulate_dot(plan, f, threads);
}

BackwardWeightOutcome emulate_backward_weight(const BackwardWeightProblem& p, const ReductionPlan& plan,
                                              unsigned threads) {
  if (Status s = validate_for_plan(p, plan); !s.ok()) return {std::move(s), {}};
  const CanonicalOrder order = token_order(p);
  const auto T = static_cast<std::int64_t>(order.rows.size());
  ForwardProblem f;
  f.M = p.N;
  f.N = p.K;
  f.K = T;
  f.x.resize(static_cast<std::size_t>(p.N * T));
  f.w.resize(static_cast<std::size_t>(p.K * T));
  for (std::int64_t i = 0; i < T; ++i) {
    const float* g = p.g_row(order.rows[static_cast<std::size_t>(i)]);
    const float* x = p.x_row(order.rows[static_cast<std::size_t>(i)]);
    for (std::int64_t n = 0; n < p.N; ++n) f.x[static_cast<std::size_t>(n * T + i)] = g[n];
    for (std::int64_t k = 0; k < p.K; ++k) f.w[static_cast<std::size_t>(k * T + i)] = x[k];
  }
  BackwardWeightOutcome out{Status::success(), {}};
  out.result.dw = emulate_dot(plan, f, threads);
  if (p.with_bias_grad) {
    std::vector<float> db(static_cast<std::size_t>(p.N), 0.0f);  // +0, then one add_rn per token
    for (const std::int64_t t : order.rows)
      for (std::int64_t n = 0; n < p.N; ++n) db[static_cast<std::size_t>(n)] = db[static_cast<std::size_t>(n)] + p.g_row(t)[n];
    for (float& v : db) v = finish_output(plan, v, false);
    out.result.db = std::move(db);
  }
  return out;
}

}  // namespace ordo::oracle
