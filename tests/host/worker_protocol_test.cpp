// The worker protocol (subjects/worker_protocol.h, subjects/frame_io.h): messages survive the trip
// unchanged, and every malformed one is a ProtocolError before anything is allocated for it: each
// truncation, a count larger than the bytes left, trailing bytes, unknown enum values, another protocol
// version; frames over the reader's limit, a closed peer and a silent one are outcomes, not waits.
#include "subjects/worker_protocol.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <limits>

#include "subjects/frame_io.h"

namespace ordo::isolation {
namespace {

Request weight_request() {
  Request q;
  q.type = MessageType::backward_weight;
  q.device = 1;
  q.operation = 2;
  BackwardWeightProblem p;
  p.T = 2;
  p.N = 1;
  p.K = 3;
  p.x = {1, 2, 3, 4, 5, 6};
  p.g = {0.5f, -0.25f};
  p.keys = LogicalKeys{2, {0, 1, -1, 0}};
  p.with_bias_grad = true;
  q.microbatches = {p, p};
  q.microbatches[1].keys.reset();
  return q;
}

TEST(WorkerProtocol, RequestsAndAnswersSurviveTheTrip) {
  Request f;
  f.type = MessageType::forward;
  f.forward.M = 1;
  f.forward.N = 2;
  f.forward.K = 2;
  f.forward.x = {1.5f, -0.0f};
  f.forward.w = {1, 2, 3, 4};
  f.forward.bias = std::vector<float>{7, 8};
  f.forward.bf16_output = true;
  const Request f2 = decode_request(encode(f));
  EXPECT_EQ(f2.forward.x, f.forward.x);
  EXPECT_EQ(f2.forward.bias, f.forward.bias);
  EXPECT_TRUE(f2.forward.bf16_output);

  const Request q = weight_request(), q2 = decode_request(encode(q));
  EXPECT_EQ(q2.device, 1);
  EXPECT_EQ(q2.operation, 2u);
  ASSERT_EQ(q2.microbatches.size(), 2u);
  EXPECT_EQ(q2.microbatches[0].keys->values, q.microbatches[0].keys->values);
  EXPECT_FALSE(q2.microbatches[1].keys.has_value());
  EXPECT_TRUE(q2.microbatches[1].with_bias_grad);

  Answer a;
  a.type = MessageType::scenario_finished;
  a.scenario_index = 4;
  a.outcome.scenario = "y is x";
  a.outcome.expected = StatusCode::aliasing;
  a.outcome.got = StatusCode::subject_timeout;
  a.outcome.message = "killed";
  a.outcome.output_untouched = false;
  const Answer a2 = decode_answer(encode(a));
  EXPECT_EQ(a2.scenario_index, 4u);
  EXPECT_EQ(a2.outcome.got, StatusCode::subject_timeout);
  EXPECT_FALSE(a2.outcome.output_untouched);
}

TEST(WorkerProtocol, EveryTruncationAndAnyTrailingByteIsMalformed) {
  const std::vector<unsigned char> whole = encode(weight_request());
  for (std::size_t n = 0; n < whole.size(); ++n) {
    const std::vector<unsigned char> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW(decode_request(part), ProtocolError) << n << " of " << whole.size() << " bytes";
  }
  std::vector<unsigned char> longer = whole;
  longer.push_back(0);
  EXPECT_THROW(decode_request(longer), ProtocolError);
}

TEST(WorkerProtocol, ACountBeyondTheBytesLeftIsRefusedBeforeAnyAllocation) {
  Answer a;
  a.type = MessageType::result;
  a.values = {1, 2};
  std::vector<unsigned char> bytes = encode(a);
  // type (1), status code (4), message length (8) and its 0 bytes, then the values' count: within the
  // field's limit (2^40, 4 TiB of floats: allocating them would fail otherwise), and beyond it.
  for (const std::uint64_t count : {std::uint64_t{1} << 40, std::numeric_limits<std::uint64_t>::max() / 4}) {
    std::memcpy(bytes.data() + 13, &count, sizeof count);
    EXPECT_THROW(decode_answer(bytes), ProtocolError) << count;
  }
}

TEST(WorkerProtocol, UnknownEnumValuesAndAnotherVersionAreMalformed) {
  Answer a;
  a.type = MessageType::result;
  std::vector<unsigned char> bytes = encode(a);
  bytes[1] = 200;  // the status code's low byte
  EXPECT_THROW(decode_answer(bytes), ProtocolError);
  bytes[0] = 99;  // the message type
  EXPECT_THROW(decode_answer(bytes), ProtocolError);
  EXPECT_THROW(decode_request(encode(a)), ProtocolError) << "an answer is not a request";

  Hello h;
  h.protocol_version = kProtocolVersion + 1;
  h.load_error = "x";
  try {
    decode_hello(encode(h));
    ADD_FAILURE() << "another protocol version was accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("protocol version"), std::string::npos) << e.what();
  }
}

TEST(FrameIo, LimitsClosedPeersAndDeadlinesAreOutcomes) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  const Peer a{fds[0], -1}, b{fds[1], -1};
  std::vector<unsigned char> got;
  ASSERT_TRUE(send_frame(a, {1, 2, 3}, std::nullopt).ok());
  ASSERT_TRUE(receive_frame(b, 3, std::nullopt, got).ok());
  EXPECT_EQ(got, (std::vector<unsigned char>{1, 2, 3}));

  ASSERT_TRUE(send_frame(a, {1, 2, 3, 4}, std::nullopt).ok());
  EXPECT_EQ(receive_frame(b, 3, std::nullopt, got).result, FrameResult::too_large);

  const auto start = Clock::now();
  EXPECT_EQ(receive_frame(a, 16, Clock::now() + std::chrono::milliseconds(100), got).result, FrameResult::timed_out);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(100));

  close(fds[1]);
  EXPECT_EQ(receive_frame(a, 16, Clock::now() + std::chrono::seconds(5), got).result, FrameResult::closed);
  EXPECT_EQ(send_frame(a, std::vector<unsigned char>(1 << 20), Clock::now() + std::chrono::seconds(5)).result,
            FrameResult::closed)
      << "a send to a closed peer is an outcome, not SIGPIPE";
  close(fds[0]);
}

}  // namespace
}  // namespace ordo::isolation
