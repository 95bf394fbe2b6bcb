#include "subjects/device_select.h"

#include <cuda_runtime_api.h>

#include <string>

namespace ordo {

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

Status use_cuda_device(int device) {
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
    return Status::error(StatusCode::no_device, "cudaSetDevice(" + std::to_string(device) + "): " + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace ordo
