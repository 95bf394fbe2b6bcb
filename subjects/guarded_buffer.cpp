#include "subjects/guarded_buffer.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

namespace ordo {
namespace {

Status cuda_error(cudaError_t e, const char* what) {
  return Status::error(StatusCode::launch_failed, std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

GuardedBuffer::~GuardedBuffer() {
  if (!base_) return;
  if (device_) cudaFree(base_);
  else std::free(base_);
}

Status GuardedBuffer::allocate(std::size_t bytes, bool device) {
  bytes_ = bytes == 0 ? 1 : bytes;
  device_ = device;
  const std::size_t total = (bytes_ + 2 * kGuardBytes + kGuardBytes - 1) / kGuardBytes * kGuardBytes;
  if (device) {
    if (cudaError_t e = cudaMalloc(&base_, total); e != cudaSuccess) {
      base_ = nullptr;
      return cuda_error(e, "cudaMalloc");
    }
    if (cudaError_t e = cudaMemset(base_, kGuardByte, total); e != cudaSuccess) return cuda_error(e, "cudaMemset");
  } else {
    base_ = std::aligned_alloc(kGuardBytes, total);
    if (!base_) return Status::error(StatusCode::tool_error, "out of host memory");
    std::memset(base_, kGuardByte, total);
  }
  return Status::success();
}

Status GuardedBuffer::upload(const void* src, std::size_t bytes, bool device) {
  if (Status s = allocate(bytes, device); !s.ok()) return s;
  if (bytes == 0) return Status::success();
  if (device) {
    if (cudaError_t e = cudaMemcpy(data(), src, bytes, cudaMemcpyHostToDevice); e != cudaSuccess)
      return cuda_error(e, "cudaMemcpy to device");
  } else {
    std::memcpy(data(), src, bytes);
  }
  return Status::success();
}

Status GuardedBuffer::fill(unsigned char value) {
  if (device_) {
    if (cudaError_t e = cudaMemset(data(), value, bytes_); e != cudaSuccess) return cuda_error(e, "cudaMemset");
  } else {
    std::memset(data(), value, bytes_);
  }
  return Status::success();
}

Status GuardedBuffer::download(void* dst) const {
  if (device_) {
    if (cudaError_t e = cudaMemcpy(dst, data(), bytes_, cudaMemcpyDeviceToHost); e != cudaSuccess)
      return cuda_error(e, "cudaMemcpy to host");
  } else {
    std::memcpy(dst, data(), bytes_);
  }
  return Status::success();
}

std::string GuardedBuffer::guard_damage() const {
  std::vector<unsigned char> before(kGuardBytes), after(kGuardBytes);
  const auto* base = static_cast<const unsigned char*>(base_);
  const unsigned char* after_start = base + kGuardBytes + bytes_;
  if (device_) {
    if (cudaMemcpy(before.data(), base, kGuardBytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(after.data(), after_start, kGuardBytes, cudaMemcpyDeviceToHost) != cudaSuccess)
      return "the guards could not be read back";
  } else {
    std::memcpy(before.data(), base, kGuardBytes);
    std::memcpy(after.data(), after_start, kGuardBytes);
  }
  auto changed = [](const std::vector<unsigned char>& g) {
    std::size_t n = 0;
    for (unsigned char b : g) n += b != kGuardByte;
    return n;
  };
  const std::size_t lo = changed(before), hi = changed(after);
  if (lo == 0 && hi == 0) return "";
  std::string what;
  if (lo) what += std::to_string(lo) + " byte(s) in the " + std::to_string(kGuardBytes) + " bytes before it";
  if (hi) what += std::string(what.empty() ? "" : " and ") + std::to_string(hi) + " byte(s) in the " +
                  std::to_string(kGuardBytes) + " bytes after it";
  return what;
}

}  // namespace ordo
