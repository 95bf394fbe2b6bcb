#include "subjects/device_operands.h"

#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "core/float_bits.h"

namespace ordo::subjects {

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

cudaError_t DeviceBuffer::allocate(std::size_t bytes) { return cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes); }

cudaError_t DeviceBuffer::upload(const void* src, std::size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  const cudaError_t e = cudaMalloc(&ptr_, bytes);
  return e != cudaSuccess ? e : cudaMemcpy(ptr_, src, bytes, cudaMemcpyHostToDevice);
}

Status cuda_status(cudaError_t e, const char* what) {
  return Status::error(StatusCode::launch_failed, std::string(what) + ": " + cudaGetErrorString(e));
}

Status to_operand(const std::vector<float>& values, DType dtype, HostOperand* out) {
  out->is_bf16 = dtype == DType::bf16;
  if (!out->is_bf16) {
    out->f32 = values;
    return Status::success();
  }
  out->bf16.clear();
  out->bf16.reserve(values.size());
  for (float f : values) {
    const std::uint32_t u = bits_of(f);
    if ((u & 0xFFFFu) != 0 && !std::isnan(f))
      return Status::error(StatusCode::tool_error, "operand value " + describe_float(f) + " is not a bfloat16");
    out->bf16.push_back(static_cast<std::uint16_t>(u >> 16));
  }
  return Status::success();
}

}  // namespace ordo::subjects
