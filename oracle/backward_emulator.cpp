#include "oracle/backward_emulator.h"

#include <stdexcept>

#include "core/problem.h"
#include "oracle/fma_chain_emulator.h"
#include "oracle/tc_chain_emulator.h"
#include "oracle/weight_grad_accumulator.h"

namespace ordo::oracle {
namespace {

Status check_model(bool bf16_operands, AccumulationModel model) {
  const bool tc = tc_params_of(model).has_value();
  if (tc && !bf16_operands)
    return Status::error(StatusCode::wrong_dtype, "the tensor-core backward contracts take bfloat16 operands");
  if (!tc && bf16_operands)
    return Status::error(StatusCode::wrong_dtype, "the FP32 backward contracts take binary32 operands");
  return Status::success();
}

}  // namespace

Status validate_for_model(const BackwardDataProblem& p, AccumulationModel model) {
  if (Status s = validate(p); !s.ok()) return s;
  return check_model(p.bf16_operands, model);
}

Status validate_for_model(const BackwardWeightProblem& p, AccumulationModel model) {
  if (Status s = validate(p); !s.ok()) return s;
  return check_model(p.bf16_operands, model);
}

std::vector<float> emulate_backward_data(const BackwardDataProblem& p, AccumulationModel model, unsigned threads) {
  if (Status s = validate_for_model(p, model); !s.ok()) throw std::invalid_argument("dX: " + s.to_string());
  ForwardProblem f;
  f.M = p.M;
  f.N = p.K;
  f.K = p.N;
  f.x = p.g;
  f.w.resize(static_cast<std::size_t>(p.K * p.N));
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t k = 0; k < p.K; ++k) f.w[static_cast<std::size_t>(k * p.N + n)] = p.w_at(n, k);
  if (const std::optional<TcFdpaParams> tc = tc_params_of(model)) return emulate_forward_tc_chain(f, *tc, threads);
  return emulate_forward_fma_chain(f, threads);
}

BackwardWeightOutcome emulate_backward_weight(const BackwardWeightProblem& p, AccumulationModel model,
                                              unsigned threads) {
  if (Status s = validate_for_model(p, model); !s.ok()) return {std::move(s), {}};
  const CanonicalOrder order = token_order(p);
  std::vector<const float*> x_rows, g_rows;
  x_rows.reserve(order.rows.size());
  g_rows.reserve(order.rows.size());
  for (const std::int64_t t : order.rows) {
    x_rows.push_back(p.x_row(t));
    g_rows.push_back(p.g_row(t));
  }
  WeightGradAccumulator acc(p.N, p.K, p.with_bias_grad, model, threads);
  acc.consume(x_rows, g_rows);
  return {Status::success(), acc.finish()};
}

}  // namespace ordo::oracle
