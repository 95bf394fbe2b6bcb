#pragma once
// Reading files ordo does not trust: a manifest, a contract, a corpus entry, a report, a checkpoint may
// be any path a user names, so each read is bounded before it starts. Special files (a FIFO blocks an
// open forever, /dev/zero never ends, a directory has no text) are refused without reading a byte, and a
// regular file larger than its kind can be is refused by its size. Inside a folder whose files are data
// (a cases folder, a corpus), a symbolic link that leads outside the folder is refused too.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace ordo {

// Every refusal: "PATH: what is wrong".
class FileReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The whole file, if it is a regular file of at most `max_bytes`. `what` names the kind, plural, in
// messages ("manifests": "PATH: the file is 300000000 bytes; ordo reads manifests of at most 256 MiB").
// The file is opened without blocking, so a FIFO is refused instead of waiting for a writer.
std::string read_bounded_file(const std::string& path, std::size_t max_bytes, const std::string& what);

// Opens `path` for reading as read_bounded_file does (non-blocking, then checked to be a regular file of
// at most max_bytes); returns the descriptor (blocking again, close-on-exec) and its size.
int open_regular_file(const std::string& path, std::size_t max_bytes, const std::string& what, std::size_t* size);

// `relative` resolved inside `folder`: FileReadError if the path, after following every symbolic link,
// is not inside the folder (also after following its links). A path that does not exist yet is checked
// by its existing parent.
std::string path_inside(const std::string& folder, const std::string& relative);

}  // namespace ordo
