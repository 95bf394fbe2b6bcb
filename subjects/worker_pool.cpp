#include "subjects/worker_pool.h"

#include <cstdio>

namespace ordo::isolation {
namespace {

// How long a process that closed its connection gets to finish exiting before its group is killed.
constexpr std::chrono::milliseconds kExitGrace{2000};

Status fault(std::string what) { return Status::error(StatusCode::subject_fault, std::move(what)); }

}  // namespace

WorkerPool::WorkerPool(std::string library, IsolationOptions options)
    : library_(std::move(library)), options_(std::move(options)) {}

WorkerPool::~WorkerPool() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Idle& idle : idle_) idle.process->hang_up();  // all exit at once; each destructor then reaps one
  idle_.clear();
}

Deadline WorkerPool::call_deadline() const {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.call_timeout_seconds));
}

std::string WorkerPool::timeout_text() const {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", options_.call_timeout_seconds);
  return text;
}

// What became of a worker whose exchange failed (`got` not ok, or `malformed` the decoding error): it is
// killed and reaped either way. `task` is what it was doing ("a forward call", "loading the library"),
// `during` the same as an adverbial ("during a forward call").
Status WorkerPool::ended(WorkerProcess& process, const FrameOutcome& got, const std::string& malformed,
                         const std::string& task, const std::string& during) const {
  if (!malformed.empty() || got.result == FrameResult::too_large) {
    process.kill();
    return fault("the subject's process answered " + task + " with a malformed message (" +
                 (malformed.empty() ? got.detail : malformed) + "); killed");
  }
  switch (got.result) {
    case FrameResult::closed:
      return fault("the subject's process " + process.finish(Clock::now() + kExitGrace) + " " + during);
    case FrameResult::timed_out:
      process.kill();
      return Status::error(StatusCode::subject_timeout, "the subject did not finish " + task + " within " +
                                                            timeout_text() + "; its process was killed");
    case FrameResult::failed:
      process.kill();
      return Status::error(StatusCode::tool_error,
                           "the connection to the subject's process failed " + during + ": " + got.detail);
    case FrameResult::ok:
    case FrameResult::too_large:
      break;
  }
  process.kill();
  return Status::error(StatusCode::tool_error, "the subject's process stopped " + during + " for no known reason");
}

std::unique_ptr<WorkerProcess> WorkerPool::launch(Status& status, Hello& hello, std::vector<unsigned char>& bytes) {
  std::string error;
  std::unique_ptr<WorkerProcess> process = WorkerProcess::start(options_.executable, library_, error);
  if (!process) {
    status = Status::error(StatusCode::tool_error, "cannot start the subject's process: " + error);
    return nullptr;
  }
  const FrameOutcome got = receive_frame(process->peer(), kMaxHelloBytes, call_deadline(), bytes);
  std::string malformed;
  if (got.ok()) {
    try {
      hello = decode_hello(bytes);
      return process;
    } catch (const ProtocolError& e) {
      malformed = e.what();
    }
  }
  status = ended(*process, got, malformed, "loading the library", "while loading the library");
  return nullptr;
}

Hello WorkerPool::start() {
  Status status;
  Hello hello;
  std::unique_ptr<WorkerProcess> process = launch(status, hello, hello_bytes_);
  if (!process) throw PluginError(library_ + ": " + status.message);
  if (!hello.load_error.empty()) throw PluginError(hello.load_error);  // it names the library already
  give_back(-1, std::move(process));
  return hello;
}

std::unique_ptr<WorkerProcess> WorkerPool::take(std::int32_t device, const std::string& what, Status& status) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
      if (it->device == device) {
        std::unique_ptr<WorkerProcess> process = std::move(it->process);
        idle_.erase(it);
        return process;
      }
  }
  Hello hello;
  std::vector<unsigned char> bytes;
  std::unique_ptr<WorkerProcess> process = launch(status, hello, bytes);
  if (!process) {
    status.message += " (a fresh process, before " + what + ")";
    return nullptr;
  }
  if (bytes == hello_bytes_) return process;
  status = fault(hello.load_error.empty()
                     ? "the library described itself differently in a fresh process (before " + what + ")"
                     : "the library failed to load in a fresh process (before " + what + "): " + hello.load_error);
  return nullptr;  // the process is reaped as it goes
}

void WorkerPool::give_back(std::int32_t device, std::unique_ptr<WorkerProcess> process) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back({device, std::move(process)});
}

Status WorkerPool::exchange(const Request& request, const std::string& what,
                            const std::function<bool(Answer&)>& on_answer) {
  Status status;
  std::unique_ptr<WorkerProcess> process = take(request.device, what, status);
  if (!process) return status;
  const std::size_t limit = expected_answer_bytes(request);
  FrameOutcome got = send_frame(process->peer(), encode(request), call_deadline());
  std::vector<unsigned char> frame;
  std::string malformed;
  while (got.ok()) {
    got = receive_frame(process->peer(), limit, call_deadline(), frame);
    if (!got.ok()) break;
    try {
      Answer answer = decode_answer(frame);
      if (on_answer(answer)) {
        give_back(request.device, std::move(process));
        return Status::success();
      }
    } catch (const ProtocolError& e) {
      malformed = e.what();
      break;
    }
  }
  return ended(*process, got, malformed, what, "during " + what);
}

}  // namespace ordo::isolation
