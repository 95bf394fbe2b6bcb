#include "subjects/device_select.h"

#include <cuda_runtime_api.h>

#include <string>

namespace ordo {
namespace {

thread_local int t_calling_thread_device = -1;

}  // namespace

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

Status use_cuda_device(int device) {
  set_calling_thread_device(device);
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
    return Status::error(StatusCode::no_device, "cudaSetDevice(" + std::to_string(device) + "): " + cudaGetErrorString(e));
  return Status::success();
}

void set_calling_thread_device(int device) { t_calling_thread_device = device; }

int calling_thread_device() { return t_calling_thread_device; }

}  // namespace ordo
