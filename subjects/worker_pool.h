#pragma once
// The worker processes that run one plugin library for ordo (subjects/isolated_plugin.h), shared by its
// subjects. A call takes an idle worker of its device or starts one, and gives it back after a complete
// answer; a worker that died, ran out of time or answered nonsense is killed and reaped instead, and the
// call's Status says what happened. So there are as many workers as calls ever ran at once.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "subjects/isolated_plugin.h"
#include "subjects/worker_process.h"
#include "subjects/worker_protocol.h"

namespace ordo::isolation {

class WorkerPool {
 public:
  WorkerPool(std::string library, IsolationOptions options);
  ~WorkerPool();  // hangs up on every idle worker at once, then reaps each

  // Starts the first worker and returns the library's description; PluginError when it cannot be had.
  // Every later worker must describe the library byte for byte the same.
  Hello start();

  // One call: sends `request` to a worker for request.device, then hands each answer to `on_answer` until
  // it returns true. `on_answer` throws ProtocolError for an answer that does not fit the request. Each
  // answer must come within the call timeout. `what` names the call in messages ("a forward call").
  // Returns success, or: subject_fault (the process exited or was killed by a signal, or answered a
  // malformed message), subject_timeout (no answer in time: killed), tool_error (ordo's side failed,
  // e.g. the worker could not be started).
  Status exchange(const Request& request, const std::string& what, const std::function<bool(Answer&)>& on_answer);

 private:
  struct Idle {
    std::int32_t device;
    std::unique_ptr<WorkerProcess> process;
  };
  Deadline call_deadline() const;
  std::string timeout_text() const;  // "600 s"
  // A started worker whose hello has been read (decoded into `hello`, its bytes in `bytes`), or null and
  // `status`.
  std::unique_ptr<WorkerProcess> launch(Status& status, Hello& hello, std::vector<unsigned char>& bytes);
  Status ended(WorkerProcess& process, const FrameOutcome& got, const std::string& malformed, const std::string& task,
               const std::string& during) const;
  std::unique_ptr<WorkerProcess> take(std::int32_t device, const std::string& what, Status& status);
  void give_back(std::int32_t device, std::unique_ptr<WorkerProcess> process);

  const std::string library_;
  const IsolationOptions options_;
  std::vector<unsigned char> hello_bytes_;  // the first worker's hello; set by start(), then read only
  std::mutex mutex_;
  std::vector<Idle> idle_;
};

}  // namespace ordo::isolation
