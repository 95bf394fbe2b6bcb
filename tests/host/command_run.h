#pragma once
// Runs a command line as a user would in a shell, for the tests that hold the `ordo` program to its exit
// codes and messages.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ordo::testing {

struct CommandRun {
  int exit_code = -1;  // -1 when the command could not start or did not exit normally
  std::string output;  // what the command line wrote to stdout (add " 2>&1" to it for stderr too)
};

inline CommandRun run_command(const std::string& command_line) {
  CommandRun r;
  FILE* p = popen(command_line.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `ordo ARGS` with stderr folded into the output.
inline CommandRun run_ordo(const std::string& args) {
  return run_command(std::string(ORDO_BINARY) + " " + args + " 2>&1");
}

}  // namespace ordo::testing
