#pragma once
// One campaign per output folder: two `ordo fuzz` runs writing one checkpoint would each resume from the
// other's counts and overwrite them. The lock is an advisory flock on a file in the folder, held for the
// life of the process (the kernel drops it when the process ends, however it ends), with the holder's pid
// written into it for the message of the one refused.
#include <stdexcept>
#include <string>

namespace ordo::tools {

class FolderBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class FolderLock {
 public:
  // Takes `folder`/`name` or throws FolderBusy naming the holder's pid (FileWriteError if it cannot be
  // created). Never waits.
  FolderLock(const std::string& folder, const std::string& name);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace ordo::tools
