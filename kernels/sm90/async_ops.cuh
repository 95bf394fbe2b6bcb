#pragma once
// PTX wrappers for the sm_90a kernels: mbarriers, TMA tile loads, the wgmma fences and the shared
// memory matrix descriptor. Names follow the PTX ISA (sections "mbarrier", "cp.async.bulk.tensor",
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"). Only compiled for sm_90a.
#include <cuda.h>  // CUtensorMap (a plain 128-byte struct; no driver library is linked for it)

#include <cstdint>

namespace ordo::kernels::detail::sm90 {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals) : "memory");
}

// Makes the initialised barriers visible to the async proxy (TMA) before any thread uses them.
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

// One arrival that also announces `bytes` of TMA transactions the phase must wait for.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

__device__ __forceinline__ bool mbarrier_try_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits until the barrier's phase with the given parity has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  while (!mbarrier_try_wait(bar, parity)) {
  }
}

// TMA: copies the box at element coordinates (c0 = innermost, c1) of the tensor map into shared
// memory; elements outside the tensor are written as zeros (the map's OOB fill is NONE). Completion
// is counted on `bar` in bytes.
__device__ __forceinline__ void tma_load_2d(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int c0,
                                            int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_u32(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}

// The same with an L2 cache policy (PTX ISA, ".L2::cache_hint": a 64-bit policy from createpolicy).
__device__ __forceinline__ void tma_load_2d_hint(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int c0,
                                                 int c1, std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "l"(policy)
      : "memory");
}

// L2 policies for the hints above (PTX ISA, createpolicy): evict_first for data read once (a streamed
// operand), evict_last for data every block reads again.
__device__ __forceinline__ std::uint64_t l2_policy_evict_first() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ __forceinline__ std::uint64_t l2_policy_evict_last() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// --- thread block clusters (PTX ISA: "Cluster of CTAs", mapa, barrier.cluster) ---------------------

__device__ __forceinline__ std::uint32_t cluster_ctarank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Every thread of every CTA of the cluster arrives and waits; release/acquire order shared memory
// and barrier operations across the cluster.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// One arrival on the barrier at the same shared-memory offset in CTA `cta` of the cluster, with the
// default semantics (release at CTA scope, as CUTLASS's ClusterBarrier::arrive): the arrival only says
// that this warp's wgmma reads of the stage are complete, and no data is published through it.
__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint64_t* bar, std::uint32_t cta) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(smem_u32(bar)),
      "r"(cta)
      : "memory");
}

// TMA multicast: the box is written to the same shared-memory offset in every CTA of `cta_mask`, and
// each of those CTAs' barrier at `bar`'s offset is credited with the bytes it received.
__device__ __forceinline__ void tma_load_2d_multicast(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar,
                                                      int c0, int c1, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

// TMA multicast with an L2 cache policy.
__device__ __forceinline__ void tma_load_2d_multicast_hint(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar,
                                                           int c0, int c1, std::uint16_t cta_mask,
                                                           std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5, %6;" ::"r"(smem_u32(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(cta_mask), "l"(policy)
      : "memory");
}

// 16 bytes global -> shared without registers; bytes = 0 writes 16 zero bytes and reads nothing (the
// address must still be a valid one). The gathered dW operands are staged this way.
__device__ __forceinline__ void cp_async_16_zfill(void* smem_dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(smem_dst)), "l"(src), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}
// An arrival on `bar` that the hardware makes once every cp.async this thread issued before it has
// completed (PTX ISA, cp.async.mbarrier.arrive); .noinc: the barrier's expected count already includes it.
// The thread does not wait: its copies land and are counted while it goes on issuing the next ones.
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// Orders this thread's generic-proxy writes to shared memory (st.shared, cp.async) before later
// async-proxy reads of it (wgmma operands), once published through an mbarrier arrival.
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// TMA store (PTX ISA, "cp.async.bulk.tensor", shared::cta -> global, bulk_group completion): the box at
// element coordinates (c0 = innermost, c1) of the tensor map is written from shared memory; elements
// outside the tensor are not written. The copy reads shared memory asynchronously: the issuing thread
// tracks it with bulk async-groups (commit, then wait for its reads or its completion).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* smem_src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Waits until every bulk group this thread committed has finished reading its shared memory (the
// buffers may be written again); the global writes may still be in flight.
__device__ __forceinline__ void bulk_wait_group_read_all() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
// Waits until every bulk group this thread committed has completed, global writes included.
__device__ __forceinline__ void bulk_wait_group_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
// A named barrier (ids 1-15; 0 is __syncthreads) for `threads` threads, a multiple of 32.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
// Tells the compiler a register may have changed here, so that no read of an accumulator is moved
// above the wgmma wait that makes it valid (the asynchronous instruction writes it behind the
// compiler's back).
__device__ __forceinline__ void fence_register(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// Waits until at most kPending committed groups (the latest ones) are still pending.
template <int kPending>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// Waits until at most one committed group (the latest) is still pending.
__device__ __forceinline__ void wgmma_wait_all_but_one() {
  asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
}

// Matrix descriptor of a K-major tile written by TMA with 128-byte swizzle: rows of 64 bf16 (128
// bytes), 8-row groups 1024 bytes apart (the stride byte offset), the tile base 1024-byte aligned so
// the base-offset field is 0. The leading byte offset is not used by swizzled K-major layouts (set
// to 1 as is conventional). Advancing along K by 16 elements inside the 64-wide row adds 32 bytes to
// the start address (the hardware applies the swizzle to the computed addresses).
__device__ __forceinline__ std::uint64_t smem_desc_k_major_sw128(const void* tile) {
  std::uint64_t desc = (static_cast<std::uint64_t>(smem_u32(tile)) & 0x3FFFF) >> 4;  // start address, 16 B units
  desc |= std::uint64_t{1} << 16;                                                     // leading byte offset
  desc |= std::uint64_t{1024 >> 4} << 32;                                             // stride byte offset
  desc |= std::uint64_t{1} << 62;                                                     // swizzle: 128 B
  return desc;
}

// An N-major (transposed) bf16 B operand, 128-byte swizzled, as TMA writes boxes of 64 columns x R
// rows of a row-major [reduction, N] matrix: each reduction row is 128 contiguous bytes (64 columns),
// 8-row groups 1024 bytes apart, and the next 64 columns `column_block_bytes` further on. PTX ISA,
// "Shared Memory Matrix Layout", MN-major 128B swizzle, canonical layout ((T,8,m),(8,k)):((1,T,LBO),
// (8T,SBO)) with T = 8 bf16: the leading byte offset is the stride between 64-column blocks (m), the
// stride byte offset the stride between 8-row groups along the reduction (k). One 16-row k step is
// two groups, 2048 bytes, so the start address of step kk is the tile base + 2048 kk (1024-aligned:
// the base-offset field stays 0).
__device__ __forceinline__ std::uint64_t smem_desc_n_major_sw128(const void* tile, std::uint32_t column_block_bytes) {
  std::uint64_t desc = (static_cast<std::uint64_t>(smem_u32(tile)) & 0x3FFFF) >> 4;  // start address, 16 B units
  desc |= std::uint64_t{(column_block_bytes & 0x3FFFF) >> 4} << 16;                   // leading byte offset
  desc |= std::uint64_t{1024 >> 4} << 32;                                             // stride byte offset
  desc |= std::uint64_t{1} << 62;                                                     // swizzle: 128 B
  return desc;
}

#endif

}  // namespace ordo::kernels::detail::sm90
