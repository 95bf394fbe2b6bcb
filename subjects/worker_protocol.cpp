#include "subjects/worker_protocol.h"

#include "core/checked_size.h"
#include "subjects/protocol_values.h"
#include "subjects/wire_fields.h"

namespace ordo::isolation {
namespace {

constexpr std::size_t kMaxFloats = static_cast<std::size_t>(kMaxElements);
constexpr std::size_t kMaxMicrobatches = std::size_t{1} << 20;
constexpr std::size_t kMaxOperations = 8;  // include/ordo/subject.h: operation_count is 1..8

// An enum value read off the wire is one of its enumerators, or the message is malformed. Each switch
// lists every enumerator, so a new one fails to compile here until the protocol knows it.
MessageType message_type(std::uint8_t raw) {
  const auto t = static_cast<MessageType>(raw);
  switch (t) {
    case MessageType::hello:
    case MessageType::forward:
    case MessageType::backward_data:
    case MessageType::backward_weight:
    case MessageType::fail_closed:
    case MessageType::result:
    case MessageType::weight_result:
    case MessageType::scenario_started:
    case MessageType::scenario_finished:
    case MessageType::scenarios_done:
      return t;
  }
  throw ProtocolError("unknown message type " + std::to_string(raw));
}

void put_dims(Writer& w, std::int64_t a, std::int64_t b, std::int64_t c) {
  for (const std::int64_t v : {a, b, c}) w.scalar<std::int64_t>(v);
}

// a * b * element bytes, or `cap` when that does not fit.
std::size_t bytes_of(std::int64_t a, std::int64_t b, std::size_t element, std::size_t cap) {
  const std::optional<std::int64_t> n = checked_product(a, b);
  if (!n || static_cast<std::uint64_t>(*n) > cap / element) return cap;
  return static_cast<std::size_t>(*n) * element;
}

}  // namespace

const char* message_type_name(MessageType type) {
  switch (type) {
    case MessageType::hello:
      return "hello";
    case MessageType::forward:
      return "forward";
    case MessageType::backward_data:
      return "backward_data";
    case MessageType::backward_weight:
      return "backward_weight";
    case MessageType::fail_closed:
      return "fail_closed";
    case MessageType::result:
      return "result";
    case MessageType::weight_result:
      return "weight_result";
    case MessageType::scenario_started:
      return "scenario_started";
    case MessageType::scenario_finished:
      return "scenario_finished";
    case MessageType::scenarios_done:
      return "scenarios_done";
  }
  return "?";
}

std::vector<unsigned char> encode(const Hello& hello) {
  Writer w;
  w.scalar(MessageType::hello);
  w.scalar<std::uint32_t>(hello.protocol_version);
  w.text(hello.load_error);
  if (!hello.load_error.empty()) return w.take();
  w.text(hello.name);
  w.text(hello.version);
  w.boolean(hello.host_buffers);
  w.scalar<std::uint64_t>(hello.operations.size());
  for (const PluginOperation& op : hello.operations) {
    w.scalar<std::int32_t>(op.op);
    put_traits(w, op.traits);
  }
  return w.take();
}

Hello decode_hello(const std::vector<unsigned char>& bytes) {
  Reader r(bytes);
  if (message_type(r.scalar<std::uint8_t>("message type")) != MessageType::hello)
    throw ProtocolError("expected a hello first");
  Hello h;
  h.protocol_version = r.scalar<std::uint32_t>("protocol version");
  if (h.protocol_version != kProtocolVersion)
    throw ProtocolError("protocol version " + std::to_string(h.protocol_version) + ", but this ordo speaks " +
                        std::to_string(kProtocolVersion) + " (the worker is another ordo build)");
  h.load_error = r.text("load error", kMaxTextBytes);
  if (h.load_error.empty()) {
    h.name = r.text("name", kMaxTextBytes);
    h.version = r.text("version", kMaxTextBytes);
    h.host_buffers = r.boolean("host_buffers");
    const auto count = r.scalar<std::uint64_t>("operation count");
    if (count < 1 || count > kMaxOperations) throw ProtocolError("operation count " + std::to_string(count));
    for (std::uint64_t i = 0; i < count; ++i) {
      PluginOperation op;
      op.op = r.scalar<std::int32_t>("operation");
      if (op.op != ORDO_OP_FORWARD && op.op != ORDO_OP_BACKWARD_DATA && op.op != ORDO_OP_BACKWARD_WEIGHT)
        throw ProtocolError("unknown operation " + std::to_string(op.op));
      op.traits = get_traits(r);
      h.operations.push_back(std::move(op));
    }
  }
  r.expect_end("hello");
  return h;
}

std::vector<unsigned char> encode(const Request& q) {
  Writer w;
  w.scalar(q.type);
  w.scalar<std::int32_t>(q.device);
  w.scalar<std::uint32_t>(q.operation);
  switch (q.type) {
    case MessageType::forward:
      put_dims(w, q.forward.M, q.forward.N, q.forward.K);
      w.floats(q.forward.x);
      w.floats(q.forward.w);
      w.boolean(q.forward.bias.has_value());
      w.floats(q.forward.bias.value_or(std::vector<float>{}));
      w.boolean(q.forward.bf16_output);
      break;
    case MessageType::backward_data:
      put_dims(w, q.data.M, q.data.N, q.data.K);
      w.floats(q.data.g);
      w.floats(q.data.w);
      w.boolean(q.data.bf16_operands);
      break;
    case MessageType::backward_weight:
      w.scalar<std::uint64_t>(q.microbatches.size());
      for (const BackwardWeightProblem& p : q.microbatches) {
        put_dims(w, p.T, p.N, p.K);
        w.floats(p.x);
        w.floats(p.g);
        w.boolean(p.keys.has_value());
        w.scalar<std::int64_t>(p.keys ? p.keys->width : 0);
        w.int64s(p.keys ? p.keys->values : std::vector<std::int64_t>{});
        w.boolean(p.with_bias_grad);
        w.boolean(p.bf16_operands);
      }
      break;
    case MessageType::fail_closed:
      w.scalar<std::uint64_t>(q.first_scenario);
      break;
    case MessageType::hello:
    case MessageType::result:
    case MessageType::weight_result:
    case MessageType::scenario_started:
    case MessageType::scenario_finished:
    case MessageType::scenarios_done:
      throw ProtocolError(std::string("a ") + message_type_name(q.type) + " is not a request");
  }
  return w.take();
}

Request decode_request(const std::vector<unsigned char>& bytes) {
  Reader r(bytes);
  Request q;
  q.type = message_type(r.scalar<std::uint8_t>("message type"));
  q.device = r.scalar<std::int32_t>("device");
  q.operation = r.scalar<std::uint32_t>("operation");
  switch (q.type) {
    case MessageType::forward: {
      ForwardProblem& p = q.forward;
      p.M = r.scalar<std::int64_t>("M");
      p.N = r.scalar<std::int64_t>("N");
      p.K = r.scalar<std::int64_t>("K");
      p.x = r.floats("x", kMaxFloats);
      p.w = r.floats("w", kMaxFloats);
      const bool has_bias = r.boolean("has bias");
      std::vector<float> bias = r.floats("bias", kMaxFloats);
      if (has_bias) p.bias = std::move(bias);
      p.bf16_output = r.boolean("bf16_output");
      break;
    }
    case MessageType::backward_data:
      q.data.M = r.scalar<std::int64_t>("M");
      q.data.N = r.scalar<std::int64_t>("N");
      q.data.K = r.scalar<std::int64_t>("K");
      q.data.g = r.floats("g", kMaxFloats);
      q.data.w = r.floats("w", kMaxFloats);
      q.data.bf16_operands = r.boolean("bf16_operands");
      break;
    case MessageType::backward_weight: {
      const auto count = r.scalar<std::uint64_t>("microbatch count");
      if (count > kMaxMicrobatches) throw ProtocolError("microbatch count " + std::to_string(count));
      for (std::uint64_t i = 0; i < count; ++i) {
        BackwardWeightProblem p;
        p.T = r.scalar<std::int64_t>("T");
        p.N = r.scalar<std::int64_t>("N");
        p.K = r.scalar<std::int64_t>("K");
        p.x = r.floats("x", kMaxFloats);
        p.g = r.floats("g", kMaxFloats);
        const bool has_keys = r.boolean("has keys");
        LogicalKeys keys;
        keys.width = r.scalar<std::int64_t>("key width");
        keys.values = r.int64s("keys", kMaxFloats);
        if (has_keys) p.keys = std::move(keys);
        p.with_bias_grad = r.boolean("with_bias_grad");
        p.bf16_operands = r.boolean("bf16_operands");
        q.microbatches.push_back(std::move(p));
      }
      break;
    }
    case MessageType::fail_closed:
      q.first_scenario = r.scalar<std::uint64_t>("first scenario");
      break;
    case MessageType::hello:
    case MessageType::result:
    case MessageType::weight_result:
    case MessageType::scenario_started:
    case MessageType::scenario_finished:
    case MessageType::scenarios_done:
      throw ProtocolError(std::string("a ") + message_type_name(q.type) + " is not a request");
  }
  r.expect_end(message_type_name(q.type));
  return q;
}

std::vector<unsigned char> encode(const Answer& a) {
  Writer w;
  w.scalar(a.type);
  switch (a.type) {
    case MessageType::result:
      put_status(w, a.status);
      w.floats(a.values);
      break;
    case MessageType::weight_result:
      put_status(w, a.status);
      w.floats(a.values);
      w.boolean(a.db.has_value());
      w.floats(a.db.value_or(std::vector<float>{}));
      break;
    case MessageType::scenario_started:
      w.scalar<std::uint64_t>(a.scenario_index);
      w.text(a.outcome.scenario);
      w.scalar<std::uint32_t>(static_cast<std::uint32_t>(a.outcome.expected));
      break;
    case MessageType::scenario_finished:
      w.scalar<std::uint64_t>(a.scenario_index);
      put_outcome(w, a.outcome);
      break;
    case MessageType::scenarios_done:
      break;
    case MessageType::hello:
    case MessageType::forward:
    case MessageType::backward_data:
    case MessageType::backward_weight:
    case MessageType::fail_closed:
      throw ProtocolError(std::string("a ") + message_type_name(a.type) + " is not an answer");
  }
  return w.take();
}

Answer decode_answer(const std::vector<unsigned char>& bytes) {
  Reader r(bytes);
  Answer a;
  a.type = message_type(r.scalar<std::uint8_t>("message type"));
  switch (a.type) {
    case MessageType::result:
      a.status = get_status(r);
      a.values = r.floats("values", kMaxFloats);
      break;
    case MessageType::weight_result: {
      a.status = get_status(r);
      a.values = r.floats("dw", kMaxFloats);
      const bool has_db = r.boolean("has db");
      std::vector<float> db = r.floats("db", kMaxFloats);
      if (has_db) a.db = std::move(db);
      break;
    }
    case MessageType::scenario_started:
      a.scenario_index = r.scalar<std::uint64_t>("scenario index");
      a.outcome.scenario = r.text("scenario", kMaxTextBytes);
      a.outcome.expected = status_code(r.scalar<std::uint32_t>("scenario expected code"));
      break;
    case MessageType::scenario_finished:
      a.scenario_index = r.scalar<std::uint64_t>("scenario index");
      a.outcome = get_outcome(r);
      break;
    case MessageType::scenarios_done:
      break;
    case MessageType::hello:
    case MessageType::forward:
    case MessageType::backward_data:
    case MessageType::backward_weight:
    case MessageType::fail_closed:
      throw ProtocolError(std::string("a ") + message_type_name(a.type) + " is not an answer");
  }
  r.expect_end(message_type_name(a.type));
  return a;
}

std::size_t expected_answer_bytes(const Request& q) {
  // The framing and a status; scenarios carry up to four strings.
  constexpr std::size_t kFixed = 4 * kMaxTextBytes + 256;
  constexpr std::size_t kCap = kMaxRequestBytes;
  switch (q.type) {
    case MessageType::forward:
      return kFixed + bytes_of(q.forward.M, q.forward.N, sizeof(float), kCap);
    case MessageType::backward_data:
      return kFixed + bytes_of(q.data.M, q.data.K, sizeof(float), kCap);
    case MessageType::backward_weight:
      if (q.microbatches.empty()) return kFixed;
      return kFixed + bytes_of(q.microbatches[0].N, q.microbatches[0].K + 1, sizeof(float), kCap);
    case MessageType::fail_closed:
      return kFixed;
    case MessageType::hello:
    case MessageType::result:
    case MessageType::weight_result:
    case MessageType::scenario_started:
    case MessageType::scenario_finished:
    case MessageType::scenarios_done:
      return kFixed;
  }
  return kFixed;
}

}  // namespace ordo::isolation
