#pragma once
// Large buffers served from the heap and kept mapped between uses. ordo allocates the same big buffers
// case after case (operands, packed panels, a 36 MB output of a large-grid case); with glibc's default
// thresholds each one is a fresh mmap whose pages fault in on first touch, which cost about a tenth of
// the FP32 emulator's time at M = N = K = 1024 on 2 cores (7.5e10 products/s, 8.3-8.9e10 with this).
// Called first thing in main() of the ordo binary and the benchmarks; a no-op off glibc.
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ordo {

inline void keep_large_allocations_mapped() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // blocks up to 1 GiB from the heap (the largest cases are below)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // and freed memory at the heap's top kept, up to 1 GiB
#endif
}

}  // namespace ordo
