#include "oracle/backward_session.h"

#include <stdexcept>
#include <string>

namespace ordo::oracle {
namespace {

void check_config(const BackwardSessionConfig& c) {
  if (c.N < 1 || c.K < 1) throw std::invalid_argument("BackwardSession needs N, K >= 1");
  if ((c.plan.operand_dtype == DType::bf16) != c.bf16_operands)
    throw std::invalid_argument("BackwardSession: bf16_operands must match the plan's operand dtype");
  if (c.plan.structure != KStructure::chain)
    throw std::invalid_argument("BackwardSession: a segmented plan cannot be streamed; use one whole-batch call");
  if (!c.expected_keys) return;
  const LogicalKeys& keys = *c.expected_keys;
  if (keys.width != 2 && keys.width != 3)
    throw std::invalid_argument("BackwardSession: expected keys need 2 or 3 columns, got " +
                                std::to_string(keys.width));
  if (keys.values.size() % static_cast<std::size_t>(keys.width) != 0)
    throw std::invalid_argument("BackwardSession: expected keys are not a whole number of rows");
  const LogicalKeysView v = keys.view();
  for (std::int64_t i = 0; i < v.rows; ++i) {
    if (v.is_padding(i))
      throw std::invalid_argument("BackwardSession: expected key " + std::to_string(i) + " " +
                                  describe_key(v.row(i), v.width) + " is a padding key");
    if (i > 0 && compare_keys(v.row(i - 1), v.row(i), v.width) >= 0)
      throw std::invalid_argument("BackwardSession: expected keys must be unique and ascending; key " +
                                  std::to_string(i) + " " + describe_key(v.row(i), v.width) + " is not after " +
                                  describe_key(v.row(i - 1), v.width));
  }
}

BackwardSessionConfig checked(BackwardSessionConfig c) {
  check_config(c);
  return c;
}

}  // namespace

BackwardSession::BackwardSession(BackwardSessionConfig config)
    : config_(checked(std::move(config))),
      acc_(config_.N, config_.K, config_.with_bias_grad, config_.plan, config_.threads) {}

std::int64_t BackwardSession::expected_count() const { return config_.expected_keys->rows(); }

const std::int64_t* BackwardSession::expected_key(std::int64_t i) const {
  return config_.expected_keys->values.data() + i * config_.expected_keys->width;
}

Status BackwardSession::check_compatible(const BackwardWeightProblem& mb) const {
  if (mb.N != config_.N || mb.K != config_.K)
    return Status::error(StatusCode::inconsistent_size,
                         "microbatch has N=" + std::to_string(mb.N) + " K=" + std::to_string(mb.K) +
                             ", the session N=" + std::to_string(config_.N) + " K=" + std::to_string(config_.K));
  if (mb.with_bias_grad != config_.with_bias_grad)
    return Status::error(StatusCode::inconsistent_size, config_.with_bias_grad
                                                            ? "the session computes db, the microbatch does not"
                                                            : "the microbatch asks for db, the session does not");
  if (mb.bf16_operands != config_.bf16_operands)
    return Status::error(StatusCode::wrong_dtype, config_.bf16_operands ? "the session takes bfloat16 operands"
                                                                        : "the session takes binary32 operands");
  return Status::success();
}

Status BackwardSession::submit(const BackwardWeightProblem& mb) {
  if (finished_) return Status::error(StatusCode::tool_error, "the session has finished");
  if (Status s = check_compatible(mb); !s.ok()) return s;
  if (Status s = validate_for_plan(mb, config_.plan); !s.ok()) return s;
  const CanonicalOrder order = token_order(mb);
  return config_.expected_keys ? submit_expected(mb, order) : submit_in_order(mb, order);
}

Status BackwardSession::submit_expected(const BackwardWeightProblem& mb, const CanonicalOrder& order) {
  if (!mb.keys)
    return Status::error(StatusCode::bad_keys, "the session orders rows by their keys; the microbatch has none");
  const std::int64_t width = config_.expected_keys->width;
  if (mb.keys->width != width)
    return Status::error(StatusCode::bad_keys, "the microbatch's keys have " + std::to_string(mb.keys->width) +
                                                   " columns, the session's " + std::to_string(width));
  // Every row's place in the expected order, checked before anything changes.
  std::vector<std::int64_t> positions;
  positions.reserve(order.rows.size());
  for (const std::int64_t t : order.rows) {
    const std::int64_t* key = mb.keys->view().row(t);
    std::int64_t lo = 0, hi = expected_count();
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (compare_keys(expected_key(mid), key, width) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == expected_count() || compare_keys(expected_key(lo), key, width) != 0)
      return Status::error(StatusCode::unexpected_key, "row " + std::to_string(t) + " has the key " +
                                                           describe_key(key, width) +
                                                           ", which the session does not expect");
    if (lo < next_ || buffer_.count(lo) != 0)
      return Status::error(StatusCode::duplicate_key,
                           "row " + std::to_string(t) + ": the key " + describe_key(key, width) + " already arrived");
    positions.push_back(lo);
  }
  // The canonical order is ascending, so are the positions: fold in the run that starts at the gap,
  // taking rows from this microbatch and from the buffer alike.
  std::vector<const float*> xs, gs;
  std::size_t i = 0;
  std::int64_t cursor = next_;
  for (;;) {
    if (i < positions.size() && positions[i] == cursor) {
      xs.push_back(mb.x_row(order.rows[i]));
      gs.push_back(mb.g_row(order.rows[i]));
      ++i;
    } else if (const auto it = buffer_.find(cursor); it != buffer_.end()) {
      xs.push_back(it->second.x.data());
      gs.push_back(it->second.g.data());
    } else {
      break;
    }
    ++cursor;
  }
  acc_.consume(xs, gs);
  buffer_.erase(buffer_.begin(), buffer_.lower_bound(cursor));
  next_ = cursor;
  for (; i < positions.size(); ++i) {
    const std::int64_t t = order.rows[i];
    buffer_.emplace(positions[i], BufferedRow{{mb.x_row(t), mb.x_row(t) + mb.K}, {mb.g_row(t), mb.g_row(t) + mb.N}});
  }
  return Status::success();
}

Status BackwardSession::submit_in_order(const BackwardWeightProblem& mb, const CanonicalOrder& order) {
  const bool has_keys = mb.keys.has_value();
  if (keyed_ && *keyed_ != has_keys)
    return Status::error(StatusCode::bad_keys, has_keys ? "the session's earlier microbatches had no keys"
                                                        : "the session's earlier microbatches had keys");
  if (has_keys && !last_key_.empty() && static_cast<std::size_t>(mb.keys->width) != last_key_.size())
    return Status::error(StatusCode::bad_keys, "the microbatch's keys have " + std::to_string(mb.keys->width) +
                                                   " columns, the session's " + std::to_string(last_key_.size()));
  if (has_keys && !order.rows.empty() && !last_key_.empty()) {
    const std::int64_t* first = mb.keys->view().row(order.rows.front());
    const int c = compare_keys(first, last_key_.data(), mb.keys->width);
    const std::string what = "row " + std::to_string(order.rows.front()) + " has the key " +
                             describe_key(first, mb.keys->width) + ", the session last consumed " +
                             describe_key(last_key_.data(), mb.keys->width);
    if (c == 0) return Status::error(StatusCode::duplicate_key, what);
    if (c < 0)
      return Status::error(StatusCode::key_out_of_order,
                           what +
                               ": an in-order session cannot reorder; give the session its expected keys to "
                               "accept microbatches in any order");
  }
  keyed_ = has_keys;
  std::vector<const float*> xs, gs;
  for (const std::int64_t t : order.rows) {
    xs.push_back(mb.x_row(t));
    gs.push_back(mb.g_row(t));
  }
  acc_.consume(xs, gs);
  if (has_keys && !order.rows.empty()) {
    const std::int64_t* last = mb.keys->view().row(order.rows.back());
    last_key_.assign(last, last + mb.keys->width);
  }
  return Status::success();
}

BackwardWeightOutcome BackwardSession::finish() {
  if (finished_) return {Status::error(StatusCode::tool_error, "the session has finished"), {}};
  if (config_.expected_keys && next_ < expected_count())
    return {Status::error(StatusCode::missing_keys,
                          std::to_string(expected_count() - next_ - buffered_tokens()) + " of " +
                              std::to_string(expected_count()) + " expected keys have not arrived (" +
                              std::to_string(buffered_tokens()) + " rows wait behind the gap); the first missing is " +
                              describe_key(expected_key(next_), config_.expected_keys->width)),
            {}};
  finished_ = true;
  return {Status::success(), acc_.finish()};
}

}  // namespace ordo::oracle
