#pragma once
// A shared-memory barrier that hands slabs of operands from a producer warp to consumer warps (PTX ISA,
// "mbarrier"; sm_80 and newer). A barrier counts arrivals; when the expected number have arrived, its
// phase completes and the next begins. A thread waits for the phase of a given parity to complete.
// `slab_barrier_arrive_on_copies` is an arrival that the hardware makes once every cp.async the thread
// issued before it has landed (cp.async.mbarrier.arrive.noinc), so the producer never waits for its copies.
//
// Under the host emulation (kernels/host_emulation/cuda_runtime.h, one std::thread per CUDA thread) the
// barrier is a mutex and a condition variable, and copies are done at once (kernels/cp_async.cuh), so the
// arrival on copies is a plain arrival.
#if defined(ORDO_HOST_EMULATION)
#include <condition_variable>
#include <mutex>
#else
#include <cstdint>
#endif

namespace ordo::kernels::detail {

#if defined(ORDO_HOST_EMULATION)

struct SlabBarrier {
  std::mutex m;
  std::condition_variable cv;
  unsigned expected = 0, pending = 0, completed = 0;  // completed: the number of phases that have completed
};
inline void slab_barrier_init(SlabBarrier* b, unsigned arrivals) {
  const std::lock_guard<std::mutex> lock(b->m);
  b->expected = b->pending = arrivals;
  b->completed = 0;
}
inline void slab_barrier_init_fence() {}
inline void slab_barrier_arrive(SlabBarrier* b) {
  const std::lock_guard<std::mutex> lock(b->m);
  if (--b->pending == 0) {
    b->pending = b->expected;
    ++b->completed;
    b->cv.notify_all();
  }
}
inline void slab_barrier_arrive_on_copies(SlabBarrier* b) { slab_barrier_arrive(b); }
inline void slab_barrier_wait(SlabBarrier* b, unsigned parity) {
  std::unique_lock<std::mutex> lock(b->m);
  b->cv.wait(lock, [&] { return (b->completed & 1u) != parity; });
}

#else

using SlabBarrier = std::uint64_t;

__device__ __forceinline__ unsigned slab_barrier_address(const SlabBarrier* b) {
  return static_cast<unsigned>(__cvta_generic_to_shared(b));
}
__device__ __forceinline__ void slab_barrier_init(SlabBarrier* b, unsigned arrivals) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(slab_barrier_address(b)), "r"(arrivals) : "memory");
}
// Orders the initialisations before the other threads' use of the barriers (with the __syncthreads after it).
__device__ __forceinline__ void slab_barrier_init_fence() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void slab_barrier_arrive(SlabBarrier* b) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(slab_barrier_address(b))
               : "memory");
}
// .noinc: the barrier's expected count already includes this arrival.
__device__ __forceinline__ void slab_barrier_arrive_on_copies(SlabBarrier* b) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(slab_barrier_address(b)) : "memory");
}
// Waits until the phase of this parity has completed: try_wait (sm_90) may suspend the thread for a while
// instead of spinning; test_wait (sm_80) polls.
__device__ __forceinline__ void slab_barrier_wait(SlabBarrier* b, unsigned parity) {
  unsigned done = 0;
  do {
#if __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(slab_barrier_address(b)), "r"(parity)
                 : "memory");
#else
    asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(slab_barrier_address(b)), "r"(parity)
                 : "memory");
#endif
  } while (done == 0);
}

#endif

}  // namespace ordo::kernels::detail
