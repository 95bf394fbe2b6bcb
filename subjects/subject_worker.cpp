#include "subjects/subject_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "subjects/device_select.h"
#include "subjects/frame_io.h"
#include "subjects/plugin_subject.h"
#include "subjects/worker_protocol.h"

namespace ordo {
namespace {

using isolation::Answer;
using isolation::MessageType;
using isolation::Peer;
using isolation::Request;

// The connection broke while answering: nobody is left to answer.
struct ConnectionLost {};

// The library's subjects by operation index, as the hello listed them.
struct Served {
  PluginSubjects subjects;
  std::vector<ForwardSubject*> forward;    // per operation: its subject, or null
  std::vector<BackwardSubject*> backward;  // per operation: its subject, or null
  int current_device = -1;
};

// An orphaned worker must not outlive ordo, even while the library hangs in a call: when ordo's end of
// the connection closes (ordo exited or was killed), this thread ends the process. An idle worker reads
// the same hang-up as the end of its requests and exits by itself first.
void exit_when_ordo_hangs_up(int fd) {
  std::thread([fd] {
    pollfd p{fd, 0, 0};  // no events asked: poll reports only the hang-up (or an error)
    while (poll(&p, 1, -1) < 0 || (p.revents & (POLLHUP | POLLERR | POLLNVAL)) == 0) {
    }
    _exit(0);
  }).detach();
}

void send(int fd, const Answer& answer) {
  if (!isolation::send_frame(Peer{fd, -1}, isolation::encode(answer), std::nullopt).ok()) throw ConnectionLost{};
}

void send_result(int fd, Status status, std::vector<float> values) {
  Answer a;
  a.type = MessageType::result;
  a.status = std::move(status);
  a.values = std::move(values);
  send(fd, a);
}

Status select_device(Served& served, bool host_buffers, int device) {
  // A host-buffer library needs no CUDA context at all; a device one runs where the caller's thread runs.
  if (host_buffers || device < 0 || device == served.current_device) return Status::success();
  if (Status s = use_cuda_device(device); !s.ok()) return s;
  served.current_device = device;
  return Status::success();
}

// The scenarios of the operation asked for, forward or backward, each streamed to ordo as it starts and ends.
void run_fail_closed(int fd, Served& served, const Request& q) {
  FailClosedProgress progress;
  progress.first = static_cast<std::size_t>(q.first_scenario);
  progress.started = [fd](std::size_t index, const std::string& scenario, StatusCode expected) {
    Answer a;
    a.type = MessageType::scenario_started;
    a.scenario_index = index;
    a.outcome.scenario = scenario;
    a.outcome.expected = expected;
    send(fd, a);
  };
  progress.finished = [fd](std::size_t index, const FailClosedOutcome& outcome) {
    Answer a;
    a.type = MessageType::scenario_finished;
    a.scenario_index = index;
    a.outcome = outcome;
    send(fd, a);
  };
  if (q.operation < served.forward.size() && served.forward[q.operation] != nullptr) {
    FailClosedTarget target = plugin_fail_closed_target(served.subjects.library, served.forward[q.operation]->traits());
    target.progress = std::move(progress);
    run_forward_fail_closed(target);
  } else {
    BackwardFailClosedTarget target =
        plugin_backward_fail_closed_target(served.subjects.library, served.backward[q.operation]->traits());
    target.progress = std::move(progress);
    run_backward_fail_closed(target);
  }
  Answer done;
  done.type = MessageType::scenarios_done;
  send(fd, done);
}

void serve(int fd, Served& served, bool host_buffers, const Request& q) {
  const bool is_forward = q.operation < served.forward.size() && served.forward[q.operation] != nullptr;
  const bool is_backward = q.operation < served.backward.size() && served.backward[q.operation] != nullptr;
  const bool fits = q.type == MessageType::fail_closed ? is_forward || is_backward
                    : q.type == MessageType::forward  ? is_forward
                                                      : is_backward;
  if (!fits) {
    send_result(fd,
                Status::error(StatusCode::tool_error, std::string("operation ") + std::to_string(q.operation) +
                                                          " does not answer " + isolation::message_type_name(q.type)),
                {});
    return;
  }
  if (Status s = select_device(served, host_buffers, q.device); !s.ok()) {
    send_result(fd, s, {});
    return;
  }
  switch (q.type) {
    case MessageType::forward: {
      BackendResult r = served.forward[q.operation]->forward(q.forward);
      send_result(fd, r.status, std::move(r.y));
      return;
    }
    case MessageType::backward_data: {
      BackendResult r = served.backward[q.operation]->data(q.data);
      send_result(fd, r.status, std::move(r.y));
      return;
    }
    case MessageType::backward_weight: {
      BackwardWeightRun r = served.backward[q.operation]->weight(q.microbatches);
      Answer a;
      a.type = MessageType::weight_result;
      a.status = r.status;
      a.values = std::move(r.result.dw);
      a.db = std::move(r.result.db);
      send(fd, a);
      return;
    }
    case MessageType::fail_closed:
      run_fail_closed(fd, served, q);
      return;
    case MessageType::hello:
    case MessageType::result:
    case MessageType::weight_result:
    case MessageType::scenario_started:
    case MessageType::scenario_finished:
    case MessageType::scenarios_done:
      break;  // decode_request admits requests only
  }
  send_result(fd, Status::error(StatusCode::tool_error, "not a request"), {});
}

// The descriptor number of argv[2]: digits only, and an open socket (so that a hand-run worker never
// writes frames to a terminal or a file).
int connection_fd(const char* text) {
  const std::string s(text);
  if (s.empty() || s.size() > 4 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  const int fd = std::stoi(s);
  struct stat st {};
  return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) ? fd : -1;
}

}  // namespace

int run_subject_worker(int argc, char** argv) {
  const int fd = argc == 4 ? connection_fd(argv[2]) : -1;
  if (fd < 0) {
    std::fprintf(stderr, "ordo %s: ordo starts this itself (usage: ordo %s FD LIBRARY, FD an open socket)\n",
                 kSubjectWorkerCommand, kSubjectWorkerCommand);
    return 2;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);  // nothing the library starts inherits the connection
  exit_when_ordo_hangs_up(fd);

  Served served;
  isolation::Hello hello;
  try {
    served.subjects = load_plugin_subjects(argv[3]);
    const PluginLibrary& lib = *served.subjects.library;
    hello.name = lib.name;
    hello.version = lib.version;
    hello.host_buffers = lib.host_buffers;
    hello.operations = lib.operations;
    std::size_t next_forward = 0, next_backward = 0;  // load_plugin_subjects keeps the library's order
    for (const PluginOperation& op : lib.operations) {
      const bool forward = op.op == ORDO_OP_FORWARD;
      served.forward.push_back(forward ? served.subjects.forward.at(next_forward++).get() : nullptr);
      served.backward.push_back(forward ? nullptr : served.subjects.backward.at(next_backward++).get());
    }
  } catch (const std::exception& e) {
    hello.load_error = e.what()[0] ? e.what() : "the library could not be loaded";
  }
  if (!isolation::send_frame(Peer{fd, -1}, isolation::encode(hello), std::nullopt).ok()) return 3;
  if (!hello.load_error.empty()) return 0;

  std::vector<unsigned char> frame;
  for (;;) {
    const isolation::FrameOutcome got =
        isolation::receive_frame(Peer{fd, -1}, isolation::kMaxRequestBytes, std::nullopt, frame);
    if (got.result == isolation::FrameResult::closed) return 0;  // ordo hung up: done
    if (!got.ok()) {
      std::fprintf(stderr, "ordo %s: %s\n", kSubjectWorkerCommand, got.detail.c_str());
      return 3;
    }
    Request request;
    try {
      request = isolation::decode_request(frame);
    } catch (const isolation::ProtocolError& e) {
      std::fprintf(stderr, "ordo %s: a malformed request: %s\n", kSubjectWorkerCommand, e.what());
      return 3;
    }
    frame.clear();
    frame.shrink_to_fit();  // a large request's bytes are not kept while the library runs
    try {
      serve(fd, served, hello.host_buffers, request);
    } catch (const ConnectionLost&) {
      return 3;
    } catch (const std::exception& e) {
      // Ordo's side of the call failed here (an allocation, a CUDA call around the library's): a tool error.
      try {
        send_result(fd, Status::error(StatusCode::tool_error, std::string("in the subject's process: ") + e.what()),
                    {});
      } catch (const ConnectionLost&) {
        return 3;
      }
    }
  }
}

}  // namespace ordo
