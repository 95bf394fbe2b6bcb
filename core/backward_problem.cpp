#include "core/backward_problem.h"

#include <cmath>
#include <optional>
#include <string>

#include "core/checked_size.h"
#include "core/float_bits.h"

namespace ordo {
namespace {

// A bfloat16 held in a float has its low 16 bits zero; that includes the bfloat16 NaNs and infinities.
Status check_bf16(const std::vector<float>& v, const char* name) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if ((bits_of(v[i]) & 0xFFFFu) != 0)
      return Status::error(StatusCode::wrong_dtype, std::string(name) + "[" + std::to_string(i) +
                                                        "] = " + describe_float(v[i]) + " is not a bfloat16");
  return Status::success();
}

// Sizes through checked_product (core/checked_size.h): M * N of a hostile or corrupt problem can
// overflow int64, and a wrapped product could match a small vector.
Status check_holds(const char* name, std::size_t got, std::int64_t rows, std::int64_t cols, const char* formula) {
  if (holds_exactly(got, rows, cols)) return Status::success();
  const std::optional<std::int64_t> want = checked_product(rows, cols);
  return Status::error(StatusCode::inconsistent_size,
                       std::string(name) + " has " + std::to_string(got) + " values, expected " + formula + " = " +
                           (want ? std::to_string(*want) : std::to_string(rows) + " * " + std::to_string(cols) +
                                                               ", more than 2^40"));
}

// The output is allocated from its shape: rows * cols must be countable too. `what` names it ("dX"),
// `formula` its shape ("M*K").
Status check_output_countable(const char* what, const char* formula, std::int64_t rows, std::int64_t cols) {
  if (checked_product(rows, cols)) return Status::success();
  return Status::error(StatusCode::bad_size, std::string(what) + " would have " + formula + " = " +
                                                 std::to_string(rows) + " * " + std::to_string(cols) +
                                                 " elements, more than 2^40");
}

}  // namespace

Status validate(const BackwardDataProblem& p) {
  if (p.M < 1 || p.N < 1 || p.K < 1)
    return Status::error(StatusCode::bad_size, "dX needs M, N, K >= 1, got M=" + std::to_string(p.M) +
                                                   " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K));
  if (Status s = check_holds("G", p.g.size(), p.M, p.N, "M*N"); !s.ok()) return s;
  if (Status s = check_holds("W", p.w.size(), p.N, p.K, "N*K"); !s.ok()) return s;
  if (Status s = check_output_countable("dX", "M*K", p.M, p.K); !s.ok()) return s;
  if (p.bf16_operands) {
    if (Status s = check_bf16(p.g, "G"); !s.ok()) return s;
    if (Status s = check_bf16(p.w, "W"); !s.ok()) return s;
  }
  return Status::success();
}

Status validate(const BackwardWeightProblem& p) {
  if (p.T < 0 || p.N < 1 || p.K < 1)
    return Status::error(StatusCode::bad_size, "dW needs T >= 0 and N, K >= 1, got T=" + std::to_string(p.T) +
                                                   " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K));
  if (Status s = check_holds("X", p.x.size(), p.T, p.K, "T*K"); !s.ok()) return s;
  if (Status s = check_holds("G", p.g.size(), p.T, p.N, "T*N"); !s.ok()) return s;
  if (Status s = check_output_countable("dW", "N*K", p.N, p.K); !s.ok()) return s;
  if (p.bf16_operands) {
    if (Status s = check_bf16(p.x, "X"); !s.ok()) return s;
    if (Status s = check_bf16(p.g, "G"); !s.ok()) return s;
  }
  if (p.keys) {
    if (p.keys->width > 0 && p.keys->values.size() % static_cast<std::size_t>(p.keys->width) != 0)
      return Status::error(StatusCode::bad_keys, "logical keys hold " + std::to_string(p.keys->values.size()) +
                                                     " values, not a multiple of their width " +
                                                     std::to_string(p.keys->width));
    return validate_logical_keys(p.keys->view(), p.T, p.g.data(), p.N);
  }
  return Status::success();
}

CanonicalOrder token_order(const BackwardWeightProblem& p) {
  return p.keys ? canonical_order(p.keys->view()) : call_order(p.T);
}

BackwardWeightProblem select_rows(const BackwardWeightProblem& p, const std::vector<std::int64_t>& rows) {
  BackwardWeightProblem r;
  r.T = static_cast<std::int64_t>(rows.size());
  r.N = p.N;
  r.K = p.K;
  r.with_bias_grad = p.with_bias_grad;
  r.bf16_operands = p.bf16_operands;
  if (p.keys) r.keys = LogicalKeys{p.keys->width, {}};
  for (const std::int64_t t : rows) {
    r.x.insert(r.x.end(), p.x_row(t), p.x_row(t) + p.K);
    r.g.insert(r.g.end(), p.g_row(t), p.g_row(t) + p.N);
    if (p.keys) {
      const std::int64_t* key = p.keys->values.data() + t * p.keys->width;
      r.keys->values.insert(r.keys->values.end(), key, key + p.keys->width);
    }
  }
  return r;
}

}  // namespace ordo
