#include "subjects/frame_io.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>

namespace ordo::isolation {
namespace {

FrameOutcome failed(const char* what, int error) {
  return {FrameResult::failed, std::string(what) + ": " + std::strerror(error)};
}

bool connection_lost(int error) { return error == EPIPE || error == ECONNRESET || error == ENOTCONN; }

// Waits until the socket is ready for `events` (or reports a hang-up or an error, which the next send or
// recv turns into an outcome), the watched process exits, or the deadline passes. The socket comes first:
// whatever a process wrote before it exited is still read.
FrameOutcome wait_for(const Peer& peer, short events, Deadline deadline) {
  for (;;) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return {FrameResult::timed_out, ""};
      timeout_ms = static_cast<int>(std::min<long long>(left, INT_MAX));
    }
    pollfd fds[2] = {{peer.socket, events, 0}, {peer.exit_fd, POLLIN, 0}};
    const nfds_t count = peer.exit_fd >= 0 ? 2 : 1;
    const int ready = poll(fds, count, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return failed("poll", errno);
    }
    if (ready == 0) continue;  // the deadline is checked at the top
    if (fds[0].revents != 0) return {};
    if (count == 2 && fds[1].revents != 0) return {FrameResult::closed, "the process exited"};
  }
}

FrameOutcome send_all(const Peer& peer, const unsigned char* data, std::size_t size, Deadline deadline) {
  while (size > 0) {
    const ssize_t sent = send(peer.socket, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent > 0) {
      data += sent;
      size -= static_cast<std::size_t>(sent);
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && connection_lost(errno)) return {FrameResult::closed, std::strerror(errno)};
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return failed("send", errno);
    if (FrameOutcome w = wait_for(peer, POLLOUT, deadline); !w.ok()) return w;
  }
  return {};
}

FrameOutcome receive_all(const Peer& peer, unsigned char* data, std::size_t size, Deadline deadline) {
  while (size > 0) {
    const ssize_t got = recv(peer.socket, data, size, MSG_DONTWAIT);
    if (got > 0) {
      data += got;
      size -= static_cast<std::size_t>(got);
      continue;
    }
    if (got == 0) return {FrameResult::closed, "end of the connection"};
    if (errno == EINTR) continue;
    if (connection_lost(errno)) return {FrameResult::closed, std::strerror(errno)};
    if (errno != EAGAIN && errno != EWOULDBLOCK) return failed("recv", errno);
    if (FrameOutcome w = wait_for(peer, POLLIN, deadline); !w.ok()) return w;
  }
  return {};
}

}  // namespace

FrameOutcome send_frame(const Peer& peer, const std::vector<unsigned char>& payload, Deadline deadline) {
  const std::uint64_t length = payload.size();
  unsigned char header[sizeof length];
  std::memcpy(header, &length, sizeof length);
  if (FrameOutcome o = send_all(peer, header, sizeof header, deadline); !o.ok()) return o;
  return send_all(peer, payload.data(), payload.size(), deadline);
}

FrameOutcome receive_frame(const Peer& peer, std::size_t max_bytes, Deadline deadline,
                           std::vector<unsigned char>& payload) {
  std::uint64_t length = 0;
  unsigned char header[sizeof length];
  if (FrameOutcome o = receive_all(peer, header, sizeof header, deadline); !o.ok()) return o;
  std::memcpy(&length, header, sizeof length);
  if (length > max_bytes)
    return {FrameResult::too_large,
            "a frame of " + std::to_string(length) + " bytes (at most " + std::to_string(max_bytes) + " expected)"};
  payload.resize(static_cast<std::size_t>(length));
  return receive_all(peer, payload.data(), payload.size(), deadline);
}

}  // namespace ordo::isolation
