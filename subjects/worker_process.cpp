#include "subjects/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <thread>
#include <vector>

#include "subjects/subject_worker.h"

namespace ordo::isolation {
namespace {

constexpr std::chrono::milliseconds kExitGrace{2000};

void close_quietly(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGSYS:
      return "SIGSYS";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGHUP:
      return "SIGHUP";
    default:
      return nullptr;  // a plain int, not an enum: the rest are named by number
  }
}

// In the child between fork and exec: only async-signal-safe calls. Puts the connection on descriptor 3
// (without close-on-exec) and marks every descriptor above it close-on-exec, so the worker inherits
// nothing of ordo's but stdin, stdout, stderr and its connection, whatever other threads opened.
[[noreturn]] void exec_worker(int connection, int exec_report, long max_fd, char* const argv[]) {
  setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (exec_report == kWorkerConnectionFd) exec_report = fcntl(exec_report, F_DUPFD_CLOEXEC, kWorkerConnectionFd + 1);
  if (connection == kWorkerConnectionFd)
    fcntl(connection, F_SETFD, 0);
  else
    dup2(connection, kWorkerConnectionFd);  // the copy has no close-on-exec
  if (syscall(SYS_close_range, kWorkerConnectionFd + 1, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0)
    for (long fd = kWorkerConnectionFd + 1; fd < max_fd; ++fd) fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  execv(argv[0], argv);
  const int error = errno;
  [[maybe_unused]] const ssize_t written = write(exec_report, &error, sizeof error);
  _exit(127);
}

}  // namespace

std::string describe_wait_status(int status) {
  if (status < 0) return "ended (its exit status could not be read)";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const char* name = signal_name(signal);
    const std::string which = std::to_string(signal) + (name ? std::string(", ") + name : std::string());
    if (signal == SIGABRT) return "aborted (signal " + which + ")";
    return "was killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : std::string());
  }
  return "ended with wait status " + std::to_string(status);
}

std::unique_ptr<WorkerProcess> WorkerProcess::start(const std::string& executable, const std::string& library,
                                                    std::string& error) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return nullptr;
  }
  int report[2];  // the child writes errno here when exec fails; exec closes it otherwise
  if (pipe2(report, O_CLOEXEC) != 0) {
    error = std::string("pipe2: ") + std::strerror(errno);
    close(pair[0]);
    close(pair[1]);
    return nullptr;
  }
  // Everything the child needs is made before fork: after it, the child only makes async-signal-safe calls.
  std::string fd_text = std::to_string(kWorkerConnectionFd), command = kSubjectWorkerCommand;
  std::string exe = executable, lib = library;
  char* const argv[] = {exe.data(), command.data(), fd_text.data(), lib.data(), nullptr};
  rlimit files{};
  const long max_fd = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                          ? static_cast<long>(std::min<rlim_t>(files.rlim_cur, INT_MAX))
                          : 65536;
  const pid_t pid = fork();
  if (pid == 0) exec_worker(pair[1], report[1], max_fd, argv);
  const int fork_error = errno;
  close(pair[1]);
  close(report[1]);
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(fork_error);
    close(pair[0]);
    close(report[0]);
    return nullptr;
  }
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  w->pid_ = pid;
  w->socket_ = pair[0];
  setpgid(pid, pid);  // also here, so the group exists whichever of the two runs first (an error is harmless)
  int exec_error = 0;
  ssize_t got;
  do got = read(report[0], &exec_error, sizeof exec_error);
  while (got < 0 && errno == EINTR);
  close(report[0]);
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    error = "cannot run " + executable + ": " + std::strerror(exec_error);
    w->reap();
    return nullptr;
  }
  fcntl(w->socket_, F_SETFL, fcntl(w->socket_, F_GETFL) | O_NONBLOCK);
  const long pidfd = syscall(SYS_pidfd_open, pid, 0);  // close-on-exec by definition
  w->exit_fd_ = pidfd >= 0 ? static_cast<int>(pidfd) : -1;
  return w;
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) {
    hang_up();
    wait_for_exit(Clock::now() + kExitGrace);
    kill();
  }
  close_quietly(socket_);
  close_quietly(exit_fd_);
}

void WorkerProcess::hang_up() { close_quietly(socket_); }

bool WorkerProcess::wait_for_exit(Deadline deadline) {
  if (reaped_) return true;
  for (;;) {
    siginfo_t info{};
    // WNOWAIT: the process stays a zombie, so its pid (and group id) cannot be reused before the group
    // is killed below.
    if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_)
      return true;
    const auto left = deadline ? std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count() : 1000;
    if (left <= 0) return false;
    if (exit_fd_ >= 0) {
      pollfd p{exit_fd_, POLLIN, 0};
      poll(&p, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long long>(left, 5)));
    }
  }
}

int WorkerProcess::reap() {
  int status = -1;
  pid_t r;
  do r = waitpid(pid_, &status, 0);
  while (r < 0 && errno == EINTR);
  reaped_ = true;
  return r == pid_ ? status : -1;
}

void WorkerProcess::kill() {
  if (reaped_) return;
  // The group first, while the leader is unreaped and its id cannot name another group; then the leader
  // itself, in case it left its group.
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  reap();
}

std::string WorkerProcess::finish(Deadline deadline) {
  if (reaped_) return "ended";
  const bool exited = wait_for_exit(deadline);
  ::kill(-pid_, SIGKILL);  // whatever it started
  if (!exited) ::kill(pid_, SIGKILL);
  const int status = reap();
  if (!exited) return "closed its connection and did not exit; killed";
  return describe_wait_status(status);
}

}  // namespace ordo::isolation
