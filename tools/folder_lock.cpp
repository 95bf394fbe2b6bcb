#include "tools/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/atomic_file.h"

namespace ordo::tools {

FolderLock::FolderLock(const std::string& folder, const std::string& name) {
  const std::string path = folder + "/" + name;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw FileWriteError(path + ": cannot create the lock file: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    char holder[32] = {};
    const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string pid = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    if (e == EWOULDBLOCK)
      throw FolderBusy(folder + " is in use by another campaign" + (pid.empty() ? "" : " (pid " + pid + ")") +
                       "; wait for it to finish or use another --out");
    throw FileWriteError(path + ": cannot lock: " + std::strerror(e));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
}

}  // namespace ordo::tools
