#pragma once
// Host emulation: see cuda_runtime.h beside this file.
#include "cuda_runtime.h"
