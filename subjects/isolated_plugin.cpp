#include "subjects/isolated_plugin.h"

#include <optional>

#include "core/checked_size.h"
#include "subjects/device_select.h"
#include "subjects/worker_pool.h"

namespace ordo {
namespace {

using isolation::Answer;
using isolation::MessageType;
using isolation::ProtocolError;
using isolation::Request;
using isolation::WorkerPool;

// What every proxy shares: the pool, which operation of the library it is, and its traits.
struct Operation {
  std::shared_ptr<WorkerPool> pool;
  std::uint32_t index = 0;
  SubjectTraits traits;

  Request request(MessageType type) const {
    Request q;
    q.type = type;
    q.operation = index;
    // A host-buffer library runs anywhere: one set of workers. A device one runs where the calling
    // thread was bound (ordo fuzz --devices), in workers of that device.
    q.device = traits.device_buffers ? calling_thread_device() : -1;
    return q;
  }
};

// An answer that must be a `result` carrying `count` values when it succeeded.
Status take_result(Answer& a, std::int64_t rows, std::int64_t cols, std::vector<float>& values) {
  if (a.type != MessageType::result)
    throw ProtocolError(std::string("expected a result, got a ") + isolation::message_type_name(a.type));
  if (a.status.ok() && !holds_exactly(a.values.size(), rows, cols))
    throw ProtocolError("a result of " + std::to_string(a.values.size()) + " values for a " + std::to_string(rows) +
                        " x " + std::to_string(cols) + " output");
  values = std::move(a.values);
  return a.status;
}

// A forward or dX call, whose answer is a `result` of rows x cols values: the values when it succeeded, none
// when the call or the library failed. `what` names the call in a worker's failure ("a forward call").
BackendResult exchange_for_result(const Operation& op, const Request& q, const char* what, std::int64_t rows,
                                  std::int64_t cols) {
  BackendResult r;
  Status answered;
  const Status s = op.pool->exchange(q, what, [&](Answer& a) {
    answered = take_result(a, rows, cols, r.y);
    return true;
  });
  r.status = s.ok() ? answered : s;
  if (!r.status.ok()) r.y.clear();
  return r;
}

// The fail-closed scenarios of an operation, forward or backward, run in its worker (defined below).
std::vector<FailClosedOutcome> isolated_fail_closed(Operation& op);

class IsolatedForwardSubject final : public ForwardSubject {
 public:
  explicit IsolatedForwardSubject(Operation op) : op_(std::move(op)) {}
  const SubjectTraits& traits() const override { return op_.traits; }

  BackendResult forward(const ForwardProblem& p) override {
    Request q = op_.request(MessageType::forward);
    q.forward = p;
    return exchange_for_result(op_, q, "a forward call", p.M, p.N);
  }

  std::vector<FailClosedOutcome> fail_closed_scenarios() override { return isolated_fail_closed(op_); }

 private:
  Operation op_;
};

// The scenarios run in a worker, which reports each as it starts and as it finishes. When the worker dies
// or hangs in one, that scenario is a failed outcome carrying the status, and a fresh worker resumes with
// the next: every scenario still runs. (Each round starts at least one scenario further on.)
std::vector<FailClosedOutcome> isolated_fail_closed(Operation& op) {
  std::vector<FailClosedOutcome> outcomes;
  std::uint64_t next = 0;
  for (;;) {
    Request q = op.request(MessageType::fail_closed);
    q.first_scenario = next;
    std::optional<FailClosedOutcome> running;  // started and not finished
    std::uint64_t running_index = 0;
    Status worker_error;  // the worker's own failure, reported as a result
    const Status s = op.pool->exchange(q, "a fail-closed scenario", [&](Answer& a) {
      switch (a.type) {
        case MessageType::scenario_started:
          if (running || a.scenario_index < next) throw ProtocolError("a scenario started out of order");
          running = a.outcome;
          running_index = a.scenario_index;
          return false;
        case MessageType::scenario_finished:
          if (!running || a.scenario_index != running_index)
            throw ProtocolError("a scenario finished that had not started");
          outcomes.push_back(std::move(a.outcome));
          running.reset();
          next = a.scenario_index + 1;
          return false;
        case MessageType::scenarios_done:
          if (running) throw ProtocolError("the scenarios ended in the middle of one");
          return true;
        case MessageType::result:
          if (a.status.ok()) throw ProtocolError("a successful result among the scenarios");
          worker_error = a.status;
          return true;
        case MessageType::hello:
        case MessageType::forward:
        case MessageType::backward_data:
        case MessageType::backward_weight:
        case MessageType::fail_closed:
        case MessageType::weight_result:
          break;
      }
      throw ProtocolError(std::string("a ") + isolation::message_type_name(a.type) + " among the scenarios");
    });
    if (s.ok() && worker_error.ok()) return outcomes;
    const Status& failure = s.ok() ? worker_error : s;
    if (s.ok() || !running) {
      // Nothing was running (or ordo's side failed): the scenarios from `next` on are one failed outcome.
      FailClosedOutcome o;
      o.scenario = "the scenarios from number " + std::to_string(next + 1) + " on";
      o.got = failure.code;
      o.message = failure.message;
      outcomes.push_back(std::move(o));
      return outcomes;
    }
    running->got = failure.code;
    running->message = failure.message;
    outcomes.push_back(std::move(*running));
    next = running_index + 1;
  }
}

class IsolatedBackwardSubject final : public BackwardSubject {
 public:
  explicit IsolatedBackwardSubject(Operation op) : op_(std::move(op)) {}
  const SubjectTraits& traits() const override { return op_.traits; }
  bool has_fail_closed_scenarios() const override { return true; }
  std::vector<FailClosedOutcome> fail_closed_scenarios() override { return isolated_fail_closed(op_); }

  BackendResult data(const BackwardDataProblem& p) override {
    if (op_.traits.contract.kind != ContractKind::backward_data)
      return {Status::error(StatusCode::unsupported_shape, "not a dX subject"), {}};
    Request q = op_.request(MessageType::backward_data);
    q.data = p;
    return exchange_for_result(op_, q, "a dX call", p.M, p.K);
  }

  BackwardWeightRun weight(const std::vector<BackwardWeightProblem>& microbatches) override {
    if (op_.traits.contract.kind != ContractKind::backward_weight)
      return {Status::error(StatusCode::unsupported_shape, "not a dW subject"), {}};
    if (microbatches.empty()) return {Status::error(StatusCode::tool_error, "no microbatch"), {}};
    Request q = op_.request(MessageType::backward_weight);
    q.microbatches = microbatches;
    const std::int64_t N = microbatches[0].N, K = microbatches[0].K;
    const bool with_db = microbatches[0].with_bias_grad;
    BackwardWeightRun r;
    const Status s = op_.pool->exchange(q, "a dW call", [&](Answer& a) {
      if (a.type != MessageType::weight_result)
        throw ProtocolError(std::string("expected a weight_result, got a ") + isolation::message_type_name(a.type));
      if (a.status.ok() && (!holds_exactly(a.values.size(), N, K) || a.db.has_value() != with_db ||
                            (a.db && !holds_exactly(a.db->size(), 1, N))))
        throw ProtocolError("a dW result of the wrong shape");
      r.status = a.status;
      r.result.dw = std::move(a.values);
      r.result.db = std::move(a.db);
      return true;
    });
    if (!s.ok()) r.status = s;
    if (!r.status.ok()) r.result = {};
    return r;
  }

 private:
  Operation op_;
};

}  // namespace

PluginSubjects load_isolated_plugin_subjects(const std::string& path, const IsolationOptions& options) {
  auto pool = std::make_shared<WorkerPool>(path, options);
  isolation::Hello hello = pool->start();
  PluginSubjects out;
  out.library = std::make_shared<PluginLibrary>();
  out.library->path = path;
  out.library->name = hello.name;
  out.library->version = hello.version;
  out.library->host_buffers = hello.host_buffers;
  out.library->operations = hello.operations;
  for (std::size_t i = 0; i < hello.operations.size(); ++i) {
    Operation op{pool, static_cast<std::uint32_t>(i), hello.operations[i].traits};
    if (hello.operations[i].op == ORDO_OP_FORWARD)
      out.forward.push_back(std::make_unique<IsolatedForwardSubject>(op));
    else
      out.backward.push_back(std::make_unique<IsolatedBackwardSubject>(op));
  }
  return out;
}

}  // namespace ordo
