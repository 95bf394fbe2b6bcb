#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace ordo {
namespace {

std::atomic<unsigned> counter{0};

std::string temp_name(const std::string& path) {
  return path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw FileWriteError(path + ": " + what + ": " + std::strerror(err));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = temp_name(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) fail(path, "cannot create a file beside it", errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(path, "write failed", e);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, "write failed", e);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(path, "write failed", e);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot replace", e);
  }
}

void require_writable_folder(const std::string& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw FileWriteError(folder + ": cannot create the output folder: " + ec.message());
  const std::string probe = temp_name(folder + "/.ordo-write-probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) fail(folder, "the output folder is not writable", errno);
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace ordo
