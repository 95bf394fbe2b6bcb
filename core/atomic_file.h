#pragma once
// Files ordo writes are written whole or not at all: to a temporary name in the same folder, flushed,
// then renamed over the target, so an interrupted or failed run never leaves a half-written file or a
// stale one that looks current. Every error names the path and the reason.
#include <stdexcept>
#include <string>

namespace ordo {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` atomically; throws FileWriteError("PATH: what failed: strerror").
void write_file_atomically(const std::string& path, const std::string& text);

// Creates `folder` if needed and checks that a file can be created in it (a probe file, then removed):
// throws FileWriteError before any work is done on an unusable output folder.
void require_writable_folder(const std::string& folder);

}  // namespace ordo
