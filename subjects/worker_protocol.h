#pragma once
// The messages between ordo and a subject's process (subjects/isolated_plugin.h, subjects/subject_worker.h),
// each the payload of one frame (subjects/frame_io.h), its first byte the message type.
//
//   worker -> ordo, once, at start: hello (the library's description, or why it could not be loaded)
//   ordo -> worker: forward, backward_data, backward_weight  ->  worker: result / weight_result
//   ordo -> worker: fail_closed (from scenario i)  ->  worker: scenario_started, scenario_finished, ...,
//                                                      scenarios_done (or a result with the error)
//
// Numbers travel in the machine's byte order: both ends are ordo binaries on one machine, and the hello
// carries kProtocolVersion. Decoding is strict: every field is checked against the bytes left, every
// count against the limit of its field, every enum value against its enumerators, and a message must end
// where its last field ends; any defect is a ProtocolError.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backward_problem.h"
#include "core/problem.h"
#include "core/status.h"
#include "subjects/fail_closed.h"
#include "subjects/plugin_library.h"

namespace ordo::isolation {

inline constexpr std::uint32_t kProtocolVersion = 1;
// The largest request a worker accepts (its inputs are ordo's own cases: far smaller) and the largest
// hello ordo accepts. Answers are bounded by what the request asked for (expected_answer_bytes).
inline constexpr std::size_t kMaxRequestBytes = std::size_t{1} << 36;
inline constexpr std::size_t kMaxHelloBytes = std::size_t{1} << 22;
inline constexpr std::size_t kMaxTextBytes = std::size_t{1} << 20;  // any one string

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class MessageType : std::uint8_t {
  hello = 1,
  forward = 2,
  backward_data = 3,
  backward_weight = 4,
  fail_closed = 5,
  result = 6,
  weight_result = 7,
  scenario_started = 8,
  scenario_finished = 9,
  scenarios_done = 10,
};

const char* message_type_name(MessageType type);

// What a worker says first.
struct Hello {
  std::uint32_t protocol_version = kProtocolVersion;
  std::string load_error;  // non-empty: the library could not be loaded (PluginError's text)
  std::string name, version;
  bool host_buffers = false;
  std::vector<PluginOperation> operations;  // in the library's order: requests name them by index
};

struct Request {
  MessageType type = MessageType::forward;
  std::int32_t device = -1;                         // the CUDA device of the call (-1: the process's default)
  std::uint32_t operation = 0;                      // index into Hello::operations
  ForwardProblem forward;                           // forward
  BackwardDataProblem data;                         // backward_data
  std::vector<BackwardWeightProblem> microbatches;  // backward_weight
  std::uint64_t first_scenario = 0;                 // fail_closed
};

struct Answer {
  MessageType type = MessageType::result;
  Status status;                         // result, weight_result
  std::vector<float> values;             // result: y or dX; weight_result: dW
  std::optional<std::vector<float>> db;  // weight_result
  std::uint64_t scenario_index = 0;      // scenario_started, scenario_finished
  FailClosedOutcome outcome;             // scenario_started: its name and expected code; finished: all
};

std::vector<unsigned char> encode(const Hello& hello);
std::vector<unsigned char> encode(const Request& request);
std::vector<unsigned char> encode(const Answer& answer);

// The traits travel whole (the description and the contract's source included), so a subject's traits
// read the same in ordo as in its process.
Hello decode_hello(const std::vector<unsigned char>& bytes);
Request decode_request(const std::vector<unsigned char>& bytes);
Answer decode_answer(const std::vector<unsigned char>& bytes);

// The most bytes a well-formed answer to `request` can take (its outputs, the message and the framing).
std::size_t expected_answer_bytes(const Request& request);

}  // namespace ordo::isolation
