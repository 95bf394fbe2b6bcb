#pragma once
#include "core/environment.h"

namespace ordo {

// The host, its CPU, and (with_gpu) CUDA device 0, or the reason there is none.
Environment probe_environment(bool with_gpu);

}  // namespace ordo
