#pragma once
// Length-prefixed frames on the stream socket between ordo and a subject's process
// (subjects/isolated_plugin.h): an 8-byte payload length, then the payload. A length over the reader's
// limit is refused before anything is allocated, and every wait has a deadline, so a process that stops
// answering, dies or writes garbage is seen as such and never waited on forever. Sends never raise
// SIGPIPE (MSG_NOSIGNAL): a peer that went away is an outcome, not a signal.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ordo::isolation {

using Clock = std::chrono::steady_clock;
using Deadline = std::optional<Clock::time_point>;  // none: wait as long as it takes

enum class FrameResult {
  ok,
  closed,     // the peer closed the connection, reset it, or (with a watched process) exited
  timed_out,  // the deadline passed first
  too_large,  // the announced length is over the reader's limit
  failed,     // the socket failed otherwise (the detail has the errno text)
};

struct FrameOutcome {
  FrameResult result = FrameResult::ok;
  std::string detail;
  bool ok() const { return result == FrameResult::ok; }
};

// What a wait watches besides the socket: a pidfd that becomes readable when the peer process exits
// (-1: none). It catches a peer whose connection outlives it (a child it forked holds the socket).
struct Peer {
  int socket = -1;
  int exit_fd = -1;
};

// Sends the whole frame before `deadline`.
FrameOutcome send_frame(const Peer& peer, const std::vector<unsigned char>& payload, Deadline deadline);
// Receives one whole frame of at most `max_bytes` before `deadline` into `payload`.
FrameOutcome receive_frame(const Peer& peer, std::size_t max_bytes, Deadline deadline,
                           std::vector<unsigned char>& payload);

}  // namespace ordo::isolation
