#pragma once
// SIGINT and SIGTERM stop a long command the same way: the case in progress finishes, the report of what
// ran is written and marked interrupted, a campaign writes its checkpoint, and the exit status is
// 128 + the signal. SIGTERM is what `timeout`, CI cancellation and job schedulers send, so it must not lose
// the work either. One guard per command, for its whole run.
#include <atomic>

namespace ordo::tools {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers for SIGINT and SIGTERM, clears the flag
  ~InterruptGuard();  // restores the previous handlers
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Set by either signal; what the runners poll between cases.
  const std::atomic<bool>* flag() const;
  bool stopped() const;
  int signal() const;  // the first signal received, 0 if none
};

}  // namespace ordo::tools
