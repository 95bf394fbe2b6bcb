#include "core/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ordo {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string bytes_text(std::size_t n) {
  if (n >= (std::size_t{1} << 30)) return std::to_string(n >> 30) + " GiB";
  if (n >= (std::size_t{1} << 20)) return std::to_string(n >> 20) + " MiB";
  if (n >= (std::size_t{1} << 10)) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

}  // namespace

int open_regular_file(const std::string& path, std::size_t max_bytes, const std::string& what, std::size_t* size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw FileReadError(path + ": cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw FileReadError(path + ": cannot stat: " + errno_text(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileReadError(path + ": " + kind_of(st.st_mode) + ", not a regular file (ordo reads " + what + " only from regular files)");
  }
  const auto bytes = static_cast<std::size_t>(st.st_size);
  if (bytes > max_bytes) {
    ::close(fd);
    throw FileReadError(path + ": the file is " + std::to_string(bytes) + " bytes; ordo reads " + what + " of at most " +
                        bytes_text(max_bytes));
  }
  // Reads of a regular file never block; clear the flag anyway so that the descriptor behaves as usual.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  *size = bytes;
  return fd;
}

std::string read_bounded_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  std::size_t size = 0;
  const int fd = open_regular_file(path, max_bytes, what, &size);
  // Read to the end, at most max_bytes + 1: a file that grows while it is read is refused the same way.
  std::string text;
  text.resize(size);
  std::size_t done = 0;
  for (;;) {
    if (done == text.size()) {
      if (text.size() > max_bytes) break;
      text.resize(std::min(max_bytes + 1, text.size() + 65536));
    }
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw FileReadError(path + ": read error: " + errno_text(e));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done > max_bytes)
    throw FileReadError(path + ": the file grew past " + bytes_text(max_bytes) + " while it was read; ordo reads " + what +
                        " of at most " + bytes_text(max_bytes));
  text.resize(done);
  return text;
}

std::string path_inside(const std::string& folder, const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::path(folder.empty() ? "." : folder), ec);
  if (ec) throw FileReadError(folder + ": cannot resolve: " + ec.message());
  const fs::path joined = fs::path(folder.empty() ? "." : folder) / relative;
  const fs::path real = fs::weakly_canonical(joined, ec);
  if (ec) throw FileReadError(joined.string() + ": cannot resolve: " + ec.message());
  // Inside: the root is a prefix of the resolved path, component by component.
  auto r = root.begin();
  auto p = real.begin();
  for (; r != root.end() && !r->empty(); ++r, ++p)
    if (p == real.end() || *p != *r) throw FileReadError(joined.string() + ": leads outside " + folder + " (to " + real.string() + "); symbolic links out of the folder are not followed");
  return joined.string();
}

}  // namespace ordo
