#pragma once
// The operand loaders of the backward 128x128x16 tile (bwd_f32_simt_128x128x16.cu): global memory ->
// registers -> shared memory, for the two operand layouts, and the padding of the reduction tail.
// CUDA sources only.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/operand_layout.h"

namespace ordo::kernels::detail::bwd_tile {

constexpr int kBM = 128;  // output rows i per block
constexpr int kBN = 128;  // output columns j per block
constexpr int kBK = 16;   // reduction steps r per slab
constexpr int kThreads = 256;
constexpr int kLd = kBM + 4;  // padded leading dimension of the shared [r][i] and [r][j] tiles
constexpr int kOperandFloats = kBK * kLd;
constexpr int kBufferFloats = 2 * kOperandFloats;
static_assert(kBM == kBN, "both operands share the loader mappings");
static_assert(kThreads == 256 && kBM == 128 && kBK == 16, "the thread mappings are written for 256 x 128 x 16");
static_assert(kLd % 4 == 0, "LDS.128 / STS.128 need 16-byte aligned rows");
static_assert(kLd % 32 == 4, "conflict-free transposed stores need ld == 4 (mod 32)");

// How an operand holds element (i, r): i the output index it feeds, r the reduction index.
using Layout = OperandLayout;

// Padding of the reduction tail, and why it is exact. A slab has 16 steps, so past the last step
// (r >= R) the kernel still performs acc = __fmaf_rn(a_pad, b_pad, acc). A is padded with +0.0f and B
// with -0.0f: the product is exactly -0, and the step returns -0 + acc rounded once. -0 is the exact
// identity of round-to-nearest addition: -0 + acc == acc bit for bit for EVERY acc: +0 (-0 + +0 = +0),
// -0 (-0 + -0 = -0), finite values, +-Inf, and NaN (a padded step follows at least one real step of
// the same slab, so acc is already a GPU result then, and a NaN is the canonical 0x7fffffff, which the
// step returns unchanged). So the padded steps never change a bit: the chain is exactly the
// contract's chain over r = 0..R-1, whether it started from +0 or, with accumulate, from the output.
// Padding both operands with +0 would not be exact: the product +0 turns an accumulator -0 into +0,
// and acc can be -0: an FMA whose exact result is a nonzero value below half the smallest subnormal
// rounds to a zero with that value's sign, e.g. __fmaf_rn(-1e-30f, 1e-30f, +0.0f) = -0.0f; and with
// accumulate a chain may start at a -0 that an earlier call left in the output.
// Rows or columns beyond P or Q only feed outputs that are never stored, so their pad is irrelevant.
constexpr float kPadA = 0.0f;
constexpr float kPadB = -0.0f;

__device__ __forceinline__ float4 splat(float v) { return make_float4(v, v, v, v); }

// Reduction-contiguous operand (dX's G), the forward tile's mapping: thread (warp, lane) loads row
// warp*16 + (lane & 15) of the tile, 4-float chunks 2*c + (lane >> 4) (c = 0, 1) of the slab at r0;
// a warp reads 16 rows x 32 contiguous bytes. `row` is the operand's row i (unused when !row_ok).
template <bool kVec>
__device__ __forceinline__ void load_rc_chunks(float4 (&v)[2], const float* __restrict__ row, bool row_ok, int r0,
                                               int kh, int R, float pad) {
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const int r = r0 + (2 * c + kh) * 4;
    if constexpr (kVec) {
      // R % 4 == 0 on this path, so a chunk is either entirely inside [0, R) or entirely past it.
      v[c] = (row_ok && r < R) ? *reinterpret_cast<const float4*>(row + r) : splat(pad);
    } else {
      v[c].x = (row_ok && r + 0 < R) ? row[r + 0] : pad;
      v[c].y = (row_ok && r + 1 < R) ? row[r + 1] : pad;
      v[c].z = (row_ok && r + 2 < R) ? row[r + 2] : pad;
      v[c].w = (row_ok && r + 3 < R) ? row[r + 3] : pad;
    }
  }
}

// Stores the chunks of load_rc_chunks transposed, s[r][i]: the 4-byte stores of a warp hit 32
// distinct banks (i + 16 * chunk mod 32, since kLd is 4 mod 32).
__device__ __forceinline__ void store_rc_chunks(float* s, const float4 (&v)[2], int i, int kh) {
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    float* q = s + (2 * c + kh) * 4 * kLd + i;
    q[0 * kLd] = v[c].x;
    q[1 * kLd] = v[c].y;
    q[2 * kLd] = v[c].z;
    q[3 * kLd] = v[c].w;
  }
}

// The token rows of steps warp and warp + 8 of slab s: rows[r], or r in place; -1 past the last step.
// A warp reads one index (a broadcast).
template <bool kGather>
__device__ __forceinline__ void slab_rows(int (&trow)[2], const int* __restrict__ rows, int s, int warp, int R) {
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const int r = s * kBK + warp + 8 * c;
    if constexpr (kGather)
      trow[c] = r < R ? __ldg(rows + r) : -1;
    else
      trow[c] = r < R ? r : -1;
  }
}

// Output-contiguous operand: thread (warp, lane) loads, for steps warp and warp + 8 of the slab (token
// rows trow[0], trow[1]; -1 = past the last step), the 4 elements from column i = tile origin + 4 *
// lane; a warp reads 512 contiguous bytes of one row. `extent` is the operand's row length in use (P
// or Q). kVec is chosen only when ld % 4 == 0, the base is 16-byte aligned and extent == ld, so a
// chunk is either entirely inside [0, extent) or entirely past it.
template <bool kVec>
__device__ __forceinline__ void load_oc_chunks(float4 (&v)[2], const float* __restrict__ base, int ld,
                                               const int (&trow)[2], int i, int extent, float pad) {
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    if (trow[c] < 0) {
      v[c] = splat(pad);
      continue;
    }
    const float* q = base + static_cast<size_t>(trow[c]) * static_cast<size_t>(ld) + static_cast<size_t>(i);
    if constexpr (kVec) {
      v[c] = i < extent ? *reinterpret_cast<const float4*>(q) : splat(pad);
    } else {
      v[c].x = i + 0 < extent ? q[0] : pad;
      v[c].y = i + 1 < extent ? q[1] : pad;
      v[c].z = i + 2 < extent ? q[2] : pad;
      v[c].w = i + 3 < extent ? q[3] : pad;
    }
  }
}

// Stores the chunks of load_oc_chunks as they are, s[r][i]: each warp one contiguous 512-byte row.
__device__ __forceinline__ void store_oc_chunks(float* s, const float4 (&v)[2], int tid) {
  const int warp = tid >> 5, lane = tid & 31;
#pragma unroll
  for (int c = 0; c < 2; ++c) *reinterpret_cast<float4*>(s + (warp + 8 * c) * kLd + 4 * lane) = v[c];
}

}  // namespace ordo::kernels::detail::bwd_tile
