#pragma once
// One process that runs a subject library for ordo (subjects/subject_worker.h), seen from ordo: started
// with fork + exec (CUDA state does not survive a bare fork, and a device-buffer library needs a clean
// process), in a process group of its own so that everything it starts can be killed with it, connected
// by a socketpair. It is always reaped: a worker never outlives its WorkerProcess as a zombie.
#include <sys/types.h>

#include <memory>
#include <string>

#include "subjects/frame_io.h"

namespace ordo::isolation {

class WorkerProcess {
 public:
  // Starts `executable __subject-worker 3 library` with the connection on its descriptor 3, every other
  // descriptor ordo holds closed in it, and stdin, stdout and stderr inherited (the library's own output
  // goes where ordo's goes). nullptr and `error` when the executable cannot be started.
  static std::unique_ptr<WorkerProcess> start(const std::string& executable, const std::string& library,
                                              std::string& error);
  ~WorkerProcess();  // hangs up, gives the process a moment to exit, kills its group, reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  Peer peer() const { return {socket_, exit_fd_}; }
  pid_t pid() const { return pid_; }

  // After its connection failed: waits until `deadline` for the process to end by itself, kills what
  // is left of its group, reaps it and says how it ended: "exited with status 0", "was killed by signal 11
  // (SIGSEGV)", "aborted (signal 6, SIGABRT)", or "closed its connection and did not exit; killed".
  std::string finish(Deadline deadline);
  // Kills its group now and reaps it (a call that ran out of time).
  void kill();
  // Closes the connection: an idle worker's cue to exit (the destructor then finds it gone).
  void hang_up();

 private:
  WorkerProcess() = default;
  bool wait_for_exit(Deadline deadline);  // true once the process has exited (not yet reaped)
  int reap();                             // the wait status
  pid_t pid_ = -1;
  int socket_ = -1;
  int exit_fd_ = -1;  // a pidfd when the kernel has them, else -1 (then exit is polled)
  bool reaped_ = false;
};

// A wait status in words, as above.
std::string describe_wait_status(int status);

}  // namespace ordo::isolation
