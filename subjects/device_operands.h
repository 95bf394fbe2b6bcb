#pragma once
// What the CUDA backends share: a device buffer owned for one call, the status of a failed CUDA call,
// and host operands in the form a variant takes them (f32 values, or bf16 bit patterns).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace ordo::subjects {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  cudaError_t allocate(std::size_t bytes);  // at least one byte, so that the pointer is never null
  // Allocates and copies; a zero-sized upload allocates nothing and leaves the pointer null.
  cudaError_t upload(const void* src, std::size_t bytes);
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

Status cuda_status(cudaError_t e, const char* what);  // launch_failed, with the CUDA error text

// An operand as a variant takes it. bf16 operands travel as their bit patterns: every value must be a
// bfloat16 exactly (low 16 bits zero; a NaN keeps its upper half), else tool_error.
struct HostOperand {
  std::vector<float> f32;
  std::vector<std::uint16_t> bf16;
  bool is_bf16 = false;
  const void* data() const { return is_bf16 ? static_cast<const void*>(bf16.data()) : f32.data(); }
  std::size_t bytes() const { return is_bf16 ? bf16.size() * 2 : f32.size() * 4; }
};
Status to_operand(const std::vector<float>& values, DType dtype, HostOperand* out);

}  // namespace ordo::subjects
