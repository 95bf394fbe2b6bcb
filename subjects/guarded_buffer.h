#pragma once
// Buffers handed to a subject that ordo does not trust: each sits between two guard zones filled with a
// known pattern, in device or host memory. After a call ordo checks the guards (a write outside the
// buffer), compares inputs with what it uploaded (a write into an input) and looks for poison left in
// outputs (an element never written), so a faulty subject is reported, never read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace ordo {

class GuardedBuffer {
 public:
  static constexpr std::size_t kGuardBytes = 4096;  // a multiple of every alignment a subject may ask
  static constexpr unsigned char kGuardByte = 0xC3;

  GuardedBuffer() = default;
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  // Allocates `bytes` (at least one) with guards, the guards filled; device or host memory.
  Status allocate(std::size_t bytes, bool device);
  Status upload(const void* src, std::size_t bytes, bool device);  // allocate + copy in
  Status fill(unsigned char value);                                 // the payload only
  Status download(void* dst) const;                                 // the payload
  // "" when both guards are intact, else which guard changed and how many bytes of it.
  std::string guard_damage() const;
  void* data() const { return base_ ? static_cast<unsigned char*>(base_) + kGuardBytes : nullptr; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  bool device_ = false;
};

}  // namespace ordo
