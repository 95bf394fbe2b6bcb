#pragma once
// Which GPU a worker thread drives: plain ints, so that the campaign engine never sees a CUDA type.
#include "core/status.h"

namespace ordo {

int cuda_device_count();             // 0 without a usable driver
Status use_cuda_device(int device);  // cudaSetDevice for the calling thread

}  // namespace ordo
