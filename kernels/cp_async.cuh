#pragma once
// Asynchronous global -> shared copies (cp.async, sm_80 and newer), the few forms the pipelined tiles use.
// A copy whose `valid` is false reads nothing and fills its shared-memory bytes with zeros (the
// src-size operand is 0). Under the host emulation (kernels/host_emulation/cuda_runtime.h defines
// ORDO_HOST_EMULATION) each copy is done at once with memcpy and the group operations do nothing: the
// data is there before the wait, which is what the wait guarantees on the GPU.
#include <cstring>

namespace ordo::kernels::detail {

#if defined(ORDO_HOST_EMULATION)

inline void cp_async16(float* dst, const float* src, bool valid) {
  if (valid)
    std::memcpy(dst, src, 16);
  else
    std::memset(dst, 0, 16);
}
inline void cp_async4(float* dst, const float* src, bool valid) { *dst = valid ? *src : 0.0f; }
inline void cp_async_commit() {}
template <int kPending>
inline void cp_async_wait() {}

#else

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// 16 bytes, cached in L2 only (.cg): each operand tile is read once per block from global memory.
__device__ __forceinline__ void cp_async16(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src),
               "r"(valid ? 16 : 0)
               : "memory");
}
// 4 bytes (.ca: the only cache operator for sizes below 16).
__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)), "l"(src),
               "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

#endif

}  // namespace ordo::kernels::detail
