#include "tools/interrupt.h"

#include <csignal>

#include "tools/exit_codes.h"

namespace ordo::tools {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
struct sigaction g_previous_int {}, g_previous_term {};

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  g_stop.store(true);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_stop.store(false);
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_previous_int);
  sigaction(SIGTERM, &sa, &g_previous_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

const std::atomic<bool>* InterruptGuard::flag() const { return &g_stop; }
bool InterruptGuard::stopped() const { return g_stop.load(); }
int InterruptGuard::signal() const { return g_signal.load(); }

int exit_code_of(const reports::Report& report, int signal) {
  if (report.interrupted) return signal > 0 ? 128 + signal : kExitInterrupted;
  if (report.nothing_ran()) return kExitNothingRan;
  return report.all_passed() ? kExitPass : kExitFail;
}

}  // namespace ordo::tools
