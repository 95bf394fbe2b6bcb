#pragma once
// Which GPU a worker thread drives: plain ints, so that the campaign engine never sees a CUDA type.
#include "core/status.h"

namespace ordo {

int cuda_device_count();             // 0 without a usable driver
Status use_cuda_device(int device);  // cudaSetDevice for the calling thread (and set_calling_thread_device)

// The device the calling thread's subject calls run on, for subjects that run in their own processes
// (subjects/isolated_plugin.h): each call carries it and the subject's process selects it. Set alone by a
// caller that needs no CUDA context of its own; -1 (the default): none chosen, the process's default device.
void set_calling_thread_device(int device);
int calling_thread_device();

}  // namespace ordo
