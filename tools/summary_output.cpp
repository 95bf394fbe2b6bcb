#include "tools/summary_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/atomic_file.h"
#include "reports/summary_json.h"

namespace ordo::tools {

SummaryOutput::SummaryOutput(std::string target) : target_(std::move(target)) {
  if (target_.empty()) return;
  if (target_ == "-") {
    std::fflush(stdout);
    real_stdout_ = ::dup(STDOUT_FILENO);
    if (real_stdout_ < 0) throw FileWriteError("--json -: cannot keep stdout: " + std::string(std::strerror(errno)));
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    return;
  }
  const std::string parent = std::filesystem::path(target_).parent_path().string();
  require_writable_folder(parent.empty() ? "." : parent);
}

SummaryOutput::~SummaryOutput() {
  if (real_stdout_ < 0) return;
  std::fflush(stdout);
  ::dup2(real_stdout_, STDOUT_FILENO);
  ::close(real_stdout_);
}

void SummaryOutput::write(const reports::Report& report) const {
  if (target_.empty()) return;
  const std::string text = reports::summary_json(report).dump(2) + "\n";
  if (real_stdout_ < 0) {
    write_file_atomically(target_, text);
    return;
  }
  std::fflush(stdout);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(real_stdout_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw FileWriteError("--json -: stdout: " + std::string(std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace ordo::tools
