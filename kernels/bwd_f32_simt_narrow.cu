// Narrow-output kernels of the FP32 contracts:
//   "sm80.bwd.dx.f32.fma.simt.narrow.16x32x32": dX = G * W        (bwd.dx.f32.fma-chain/1)
//   "sm80.bwd.dw.f32.fma.simt.narrow.16x32x32": dW = G^T * X, db  (bwd.dw.f32.fma-chain/1)
//   "sm80.fwd.f32.fma.simt.narrow.16x32x32":    Y = X * W^T + b   (fwd.f32.fma-chain/1)
//
// The same tile GEMM as bwd_f32_simt_128x128x16.cu: out[i, j] (row-major [P, Q]) is one chain over
// r = 0..R-1 of A(i, r) * B(j, r), each operand stored one of two ways:
//   reduction-contiguous: (i, r) at base[i * ld + r]
//   output-contiguous:    (i, r) at base[row(r) * ld + i], row(r) = rows[r] (gather) or r (in place)
//   dX: i = m, j = k, r = n:    A = G reduction-contiguous (ld N), B = W output-contiguous (ld K).
//   dW: i = n, j = k, r = step: A = G output-contiguous (ld N), B = X output-contiguous (ld K).
//   Y:  i = m, j = n, r = k:    A = X reduction-contiguous (ld K), B = W reduction-contiguous (ld K),
//       then y = __fadd_rn(acc, b[n]) when there is a bias.
// It is shaped for outputs with few columns (or rows) and a long reduction, where the 128x128 tile
// leaves most SMs idle: dX [M, 32] over n = 5376, dW [5376, 32] and [32, 5376] over T tokens, Y [M, 32]
// over k = 5376.
//
// Structure
//   * Block tile 16 (i) x 32 (j), 32 reduction steps per slab, 128 threads (4 warps), each thread a
//     2 x 2 register micro-tile: four independent chains. 1-D grid of ceil(P/16) * ceil(Q/32) blocks,
//     j tiles fastest. The tile does not depend on the shape.
//   * Shared memory holds both operands as [r][i] and [r][j], double buffered. Per step a thread
//     reads A(i, i+1) and B(j, j+1) with one LDS.64 each and issues four FMAs.
//   * Warp w covers tile rows 8*(w >> 1) .. +7 and columns 16*(w & 1) .. +15. Lane bit 0 is the low
//     bit of the thread's column pair, lane bit 1 the low bit of its row pair: lanes n and n^1 read the
//     same A address and lanes n and n^2 the same B address, the pattern in which the shared-memory
//     return path packs two lanes' registers into one (half the cycles per load).
//   * Register prefetch two slabs deep: while slab s is computed, slabs s+1 and s+2 are in flight
//     in two register sets; slab s+1 goes to shared memory after slab s, then the loads of slab s+3
//     are issued into the freed set (the loop is unrolled by two slabs so the sets keep their
//     names). One __syncthreads per slab. With a row index, the indices of a slab are read one slab
//     before its data.
//   * Loads are coalesced for both layouts: output-contiguous rows are read as float4 along i (a
//     warp covers 4 steps x 128 bytes of B, or 8 steps x 64 bytes of A); reduction-contiguous A is
//     read as float4 along r (a warp covers 16 rows x 32 bytes) and transposed into [r][i] with
//     ld 20, which makes the four scalar stores of a warp hit 32 distinct banks.
//
// Estimate (H200: 132 SMs, ~1.8 GHz under load; per SM per clock 4 warp-instructions, 4 warp-FMAs,
// one 32-lane register returned from shared memory, two when lane pairs share an address as above)
//   Per warp and step: 4 FFMA + 2 LDS.64 + ~0.5 slab overhead (loads, stores, barrier) = ~6.5 issue
//   slots; 2 cycles of shared-memory return (4 if the pair packing does not apply). Four chains per
//   thread need one FMA per chain every 4 cycles, so the chain latency (4 cycles x R steps) is never
//   the limit above one warp per scheduler. Shared-memory return is the bound: 8 cycles per step per
//   resident block.
//   dX, R = 5376, M/16 blocks:
//     M = 1024:  64 blocks, 1 per SM:     8 clk/step -> 43 K clk ~ 24 us (+ fill; chain floor 12 us)
//     M = 4096:  256 blocks, <= 2 per SM: 16 clk/step -> 86 K clk ~ 48 us
//     M = 16384: 1024 blocks, ~7.8 per SM: 62 clk/step -> 333 K clk ~ 185 us
//   dW, [5376, 32] and [32, 5376] both 336 blocks, <= 3 per SM: 24 clk/step:
//     T = 1024 ~ 14 us, T = 4096 ~ 55 us, T = 16384 ~ 218 us
//   Y [M, 32], R = K = 5376: as dX (the same grid of M/16 blocks; W is 688 KB, re-read from L2).
//   Without the pair packing every figure doubles. A 2 x 2 micro-tile is the largest that keeps
//   M = 1024 spread over half the SMs with one warp per scheduler; larger micro-tiles cut the
//   shared-memory cycles per FMA but lengthen each warp's serial instruction stream at small M.
//   Traffic: G is read once from DRAM; W (dX, 688 KB) or the other dW operand is re-read from L2 by
//   every tile: 64 / 256 / 1024 x 688 KB for dX, 336 x T x 128 B for dW (0.7 GB at T = 16384).
//   Prefetch depth: two slabs are ~500 clk of compute at one block per SM, about one DRAM latency.
//   Shared memory 13.3 KB (dX) / 12.3 KB (dW) per block. __launch_bounds__(128, 5) allows 96
//   registers, which no instantiation exceeds (with 64 or 80 some spill; the two prefetch sets
//   alone take 24); five blocks (20 warps) per SM
//   already keep the shared-memory return path saturated, and dX at M = 16384 runs its 1024 blocks
//   in one full and one partial round with the same total of 8 clk per step and block.
//
// Arithmetic (the contracts): every output is one chain acc = __fmaf_rn(A(i, r), B(j, r), acc) over
// r ascending (steps of a slab in order, slabs in order), started at +0.0f or, for dW with
// accumulate, at the output's current value. Nothing is split or reduced across threads, so the bits
// depend on neither the shape nor the tile. Compiled with --fmad=false and without fast-math.
//
// db is computed in the dW kernel: the warps that own dW column 0 (j tile 0, warp column 0) also run
// db[i] = __fadd_rn(db[i], A(i, r)) for their two rows over the same steps, from the same shared A
// values; the lanes of column pair 0 store it. Padded steps are skipped for db (see kPadA).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/backward_internal.h"
#include "kernels/bwd_narrow.h"
#include "kernels/forward_internal.h"
#include "kernels/operand_layout.h"

namespace ordo::kernels::detail {
namespace {

constexpr int kBP = 16;                  // output rows i per block
constexpr int kBQ = 32;                  // output columns j per block
constexpr int kBK = 32;                  // reduction steps r per slab
constexpr int kThreads = kBP * kBQ / 4;  // one 2 x 2 micro-tile per thread: 128
constexpr int kLdB = kBQ;                // shared [r][j]: rows are read and written whole, no conflicts
static_assert(kThreads == 128 && kBP == 16 && kBQ == 32, "the warp and lane mappings are written for 16 x 32");
static_assert(kBK % 4 == 0, "slabs are whole float4 chunks");

// How an operand holds element (i, r): i the output index it feeds, r the reduction index.
using Layout = OperandLayout;

// Padding of the reduction tail. A slab has 32 steps, so past the last step (r >= R) every thread
// still performs acc = __fmaf_rn(a_pad, b_pad, acc). A is padded with +0.0f and B with -0.0f: the
// product is exactly -0 and the step returns -0 + acc rounded once, which is acc bit for bit for
// every acc: +0 (-0 + +0 = +0), -0 (-0 + -0 = -0), finite values, +-Inf, and NaN (a padded step
// follows at least one real step of the same slab, so acc is already a GPU result and a NaN is the
// canonical 0x7fffffff, which the step returns unchanged). So the padded steps leave every chain
// exactly the contract's chain over r = 0..R-1, from +0 or, with accumulate, from the output.
// Padding both with +0 would not be exact: the product +0 turns an accumulator -0 into +0, and acc
// can be -0 (__fmaf_rn(-1e-30f, 1e-30f, +0.0f) = -0.0f, or a -0 an earlier call left in dW).
// db adds A alone, where the +0 pad would turn -0 into +0, so the db chain skips padded steps.
// Rows or columns beyond P or Q only feed outputs that are never stored, so their pad is irrelevant.
constexpr float kPadA = 0.0f;
constexpr float kPadB = -0.0f;

// One tile GEMM as the kernel sees it.
struct NarrowGemm {
  const float* a = nullptr;   // A(i, r)
  const float* b = nullptr;   // B(j, r)
  const int* rows = nullptr;  // row(r) of the output-contiguous operands when kGather
  float* out = nullptr;       // [P, Q], row-major
  float* db = nullptr;        // [P] when kDb
  const float* bias = nullptr;  // [Q], added after the chain (the forward contract), or nullptr
  int lda = 0, ldb = 0;
  int P = 0, Q = 0, R = 0;
  unsigned tiles_q = 1;
  bool accumulate = false;
};

// Per layout of A: the shared leading dimension and the float4 chunks each thread loads per slab.
// Reduction-contiguous A is transposed into [r][i]; ld 20 (4 * 20 = 16 mod 32) puts the scalar
// stores of a warp (16 rows x 2 chunks, see load_a) on 32 distinct banks and keeps rows 8-byte
// aligned for the LDS.64 reads. Output-contiguous A is stored as it comes, whole rows, ld 16.
template <Layout kLA>
constexpr int kLdA = reduction_contiguous(kLA) ? kBP + 4 : kBP;
constexpr int kAChunks = kBP * kBK / 4 / kThreads;  // 1
constexpr int kBChunks = kBQ * kBK / 4 / kThreads;  // 2
static_assert(kAChunks * kThreads * 4 == kBP * kBK && kBChunks * kThreads * 4 == kBQ * kBK, "whole chunks");
template <Layout kLA>
constexpr int kBufferFloats = kBK * kLdA<kLA> + kBK * kLdB;

// The prefetch registers of one slab.
struct Frag {
  float4 a[kAChunks];
  float4 b[kBChunks];
};

// Token rows of the output-contiguous chunks of one slab (-1 past the last step).
struct SlabRows {
  int a[kAChunks];
  int b[kBChunks];
};

__device__ __forceinline__ float4 splat(float v) { return make_float4(v, v, v, v); }

// Output-contiguous chunk c of a thread: step q / (kBX/4) of the slab, elements 4 * (q % (kBX/4)) ..
// +3 of the tile, q = tid + kThreads * c. A warp covers 32 consecutive chunks: whole tile rows.
template <int kBX>
__device__ __forceinline__ int oc_step(int tid, int c) {
  return (tid + kThreads * c) / (kBX / 4);
}
template <int kBX>
__device__ __forceinline__ int oc_col(int tid, int c) {
  return 4 * ((tid + kThreads * c) % (kBX / 4));
}

template <bool kGather>
__device__ __forceinline__ int step_row(const int* __restrict__ rows, int r, int R) {
  if constexpr (kGather)
    return r < R ? __ldg(rows + r) : -1;
  else
    return r < R ? r : -1;
}

template <Layout kLA, Layout kLB, bool kGather>
__device__ __forceinline__ SlabRows slab_rows(const NarrowGemm& p, int s, int tid) {
  SlabRows x;
  const int r0 = s * kBK;
#pragma unroll
  for (int c = 0; c < kAChunks; ++c)
    x.a[c] = !reduction_contiguous(kLA) ? step_row<kGather>(p.rows, r0 + oc_step<kBP>(tid, c), p.R) : -1;
#pragma unroll
  for (int c = 0; c < kBChunks; ++c)
    x.b[c] = !reduction_contiguous(kLB) ? step_row<kGather>(p.rows, r0 + oc_step<kBQ>(tid, c), p.R) : -1;
  return x;
}

// Reduction-contiguous B (the forward's W): thread tid loads tile row tid & 31 at steps
// 4 * rc_b_chunk(tid, c) .. +3 of the slab; a warp covers 32 rows x 16 bytes per chunk.
__device__ __forceinline__ int rc_b_chunk(int tid, int c) { return (tid >> 5) + 4 * c; }
static_assert(kBChunks == 2 && kThreads / 32 * kBChunks * 4 == kBK, "two reduction-contiguous B chunks cover a slab");

// Loads the output-contiguous chunk at tile column x (absolute column x0 + x) of token row `row`.
// kVec is chosen only when ld % 4 == 0, the base is 16-byte aligned and extent == ld, and tile
// origins are multiples of 4, so a chunk is entirely inside [0, extent) or entirely past it.
template <bool kVec>
__device__ __forceinline__ float4 load_oc(const float* __restrict__ base, int ld, int row, int col, int extent,
                                          float pad) {
  if (row < 0) return splat(pad);
  const float* q = base + static_cast<size_t>(row) * static_cast<size_t>(ld) + static_cast<size_t>(col);
  if constexpr (kVec) {
    return col < extent ? *reinterpret_cast<const float4*>(q) : splat(pad);
  } else {
    float4 v;
    v.x = col + 0 < extent ? q[0] : pad;
    v.y = col + 1 < extent ? q[1] : pad;
    v.z = col + 2 < extent ? q[2] : pad;
    v.w = col + 3 < extent ? q[3] : pad;
    return v;
  }
}

template <Layout kLA, Layout kLB, bool kVec>
struct Tile {
  const NarrowGemm& p;
  int tid, i0, j0;
  // Reduction-contiguous A: this thread's tile row (tid & 15) and chunk (tid >> 4) of the slab; a
  // masked row points at row 0 and is never dereferenced. Reduction-contiguous B: tile row tid & 31.
  const float* a_row = nullptr;
  bool a_row_ok = false;
  const float* b_row = nullptr;
  bool b_row_ok = false;

  __device__ __forceinline__ Tile(const NarrowGemm& g, int t, int i, int j) : p(g), tid(t), i0(i), j0(j) {
    if constexpr (reduction_contiguous(kLA)) {
      a_row_ok = i0 + (tid & 15) < p.P;
      a_row = p.a + (a_row_ok ? static_cast<size_t>(i0 + (tid & 15)) * static_cast<size_t>(p.lda) : size_t{0});
    }
    if constexpr (reduction_contiguous(kLB)) {
      b_row_ok = j0 + (tid & 31) < p.Q;
      b_row = p.b + (b_row_ok ? static_cast<size_t>(j0 + (tid & 31)) * static_cast<size_t>(p.ldb) : size_t{0});
    }
  }

  // Four steps r .. r+3 of a reduction-contiguous row (masked: pad).
  __device__ __forceinline__ static float4 load_rc(const float* row, bool ok, int r, int R, float pad) {
    if constexpr (kVec) {
      // R % 4 == 0 on this path: a chunk is entirely inside [0, R) or entirely past it.
      return (ok && r < R) ? *reinterpret_cast<const float4*>(row + r) : splat(pad);
    } else {
      float4 v;
      v.x = (ok && r + 0 < R) ? row[r + 0] : pad;
      v.y = (ok && r + 1 < R) ? row[r + 1] : pad;
      v.z = (ok && r + 2 < R) ? row[r + 2] : pad;
      v.w = (ok && r + 3 < R) ? row[r + 3] : pad;
      return v;
    }
  }

  // The global loads of slab s into f (x: its token rows).
  __device__ __forceinline__ void load(Frag& f, int s, const SlabRows& x) const {
    if constexpr (reduction_contiguous(kLA)) {
      static_assert(kAChunks == 1, "one reduction-contiguous chunk per thread");
      f.a[0] = load_rc(a_row, a_row_ok, s * kBK + 4 * (tid >> 4), p.R, kPadA);
    } else {
#pragma unroll
      for (int c = 0; c < kAChunks; ++c)
        f.a[c] = load_oc<kVec>(p.a, p.lda, x.a[c], i0 + oc_col<kBP>(tid, c), p.P, kPadA);
    }
    if constexpr (reduction_contiguous(kLB)) {
#pragma unroll
      for (int c = 0; c < kBChunks; ++c) f.b[c] = load_rc(b_row, b_row_ok, s * kBK + 4 * rc_b_chunk(tid, c), p.R, kPadB);
    } else {
#pragma unroll
      for (int c = 0; c < kBChunks; ++c)
        f.b[c] = load_oc<kVec>(p.b, p.ldb, x.b[c], j0 + oc_col<kBQ>(tid, c), p.Q, kPadB);
    }
  }

  // f into one shared buffer: A as [r][i], then B as [r][j].
  __device__ __forceinline__ void store(float* buf, const Frag& f) const {
    if constexpr (reduction_contiguous(kLA)) {
      // Steps 4 * (tid >> 4) .. +3 of tile row tid & 15. A warp stores rows 0..15 of two chunks:
      // bank (4 * chunk * 20 + row) mod 32 = 16 * (chunk & 1) + row, all distinct.
      float* q = buf + 4 * (tid >> 4) * kLdA<kLA> + (tid & 15);
      q[0 * kLdA<kLA>] = f.a[0].x;
      q[1 * kLdA<kLA>] = f.a[0].y;
      q[2 * kLdA<kLA>] = f.a[0].z;
      q[3 * kLdA<kLA>] = f.a[0].w;
    } else {
#pragma unroll
      for (int c = 0; c < kAChunks; ++c)
        *reinterpret_cast<float4*>(buf + oc_step<kBP>(tid, c) * kLdA<kLA> + oc_col<kBP>(tid, c)) = f.a[c];
    }
    float* sb = buf + kBK * kLdA<kLA>;
    if constexpr (reduction_contiguous(kLB)) {
      // Steps 4 * chunk .. +3 of tile row tid & 31: the 32 lanes of a warp store 32 consecutive floats.
#pragma unroll
      for (int c = 0; c < kBChunks; ++c) {
        float* q = sb + 4 * rc_b_chunk(tid, c) * kLdB + (tid & 31);
        q[0 * kLdB] = f.b[c].x;
        q[1 * kLdB] = f.b[c].y;
        q[2 * kLdB] = f.b[c].z;
        q[3 * kLdB] = f.b[c].w;
      }
    } else {
#pragma unroll
      for (int c = 0; c < kBChunks; ++c)
        *reinterpret_cast<float4*>(sb + oc_step<kBQ>(tid, c) * kLdB + oc_col<kBQ>(tid, c)) = f.b[c];
    }
  }
};

// The 32 steps of one slab, ascending. sa points at A(ai, step 0) of the buffer, sb at B(bj, step 0).
// With kWithDb the two db chains of the thread's rows take the steps too: all of them, or with kCheck
// only those below `valid` (the real ones).
template <int kLa, bool kWithDb, bool kCheck>
__device__ __forceinline__ void compute_slab(float (&acc)[2][2], float (&dacc)[2], const float* sa, const float* sb,
                                             int valid) {
#pragma unroll
  for (int kk = 0; kk < kBK; ++kk) {
    const float2 a = *reinterpret_cast<const float2*>(sa + kk * kLa);
    const float2 b = *reinterpret_cast<const float2*>(sb + kk * kLdB);
    acc[0][0] = __fmaf_rn(a.x, b.x, acc[0][0]);
    acc[0][1] = __fmaf_rn(a.x, b.y, acc[0][1]);
    acc[1][0] = __fmaf_rn(a.y, b.x, acc[1][0]);
    acc[1][1] = __fmaf_rn(a.y, b.y, acc[1][1]);
    if constexpr (kWithDb) {
      if (!kCheck || kk < valid) {
        dacc[0] = __fadd_rn(dacc[0], a.x);
        dacc[1] = __fadd_rn(dacc[1], a.y);
      }
    }
  }
}

template <Layout kLA, Layout kLB, bool kVec, bool kGather, bool kDb>
__global__ void __launch_bounds__(kThreads, 5) bwd_f32_simt_narrow_kernel(const NarrowGemm p) {
  constexpr int kLa = kLdA<kLA>;
  constexpr int kBuf = kBufferFloats<kLA>;
  __shared__ __align__(16) float smem[2 * kBuf];

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int i0 = static_cast<int>(blockIdx.x / p.tiles_q) * kBP;
  const int j0 = static_cast<int>(blockIdx.x % p.tiles_q) * kBQ;

  // The micro-tile: rows ai, ai+1 and columns bj, bj+1 of the block tile.
  const int ti = (lane >> 1) & 3;               // lane bits 1-2
  const int tj = (lane & 1) | ((lane >> 3) << 1);  // lane bit 0 and bits 3-4
  const int ai = (warp >> 1) * 8 + 2 * ti;
  const int bj = (warp & 1) * 16 + 2 * tj;

  // The start of every chain: +0.0f (the contracts' start value), or the current output with accumulate.
  float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  if (p.accumulate) {
#pragma unroll
    for (int e = 0; e < 2; ++e)
#pragma unroll
      for (int f = 0; f < 2; ++f) {
        const int i = i0 + ai + e, j = j0 + bj + f;
        if (i < p.P && j < p.Q) acc[e][f] = p.out[static_cast<size_t>(i) * static_cast<size_t>(p.Q) + static_cast<size_t>(j)];
      }
  }
  // db: the warps of dW column pair 0 (a warp-uniform condition); every lane of them runs the chains,
  // the lanes with tj == 0 own them.
  const bool db_warp = kDb && j0 == 0 && (warp & 1) == 0;
  float dacc[2] = {0.0f, 0.0f};
  if (db_warp && p.accumulate) {
#pragma unroll
    for (int e = 0; e < 2; ++e)
      if (i0 + ai + e < p.P) dacc[e] = p.db[i0 + ai + e];
  }

  // One slab from buffer buf, `valid` of its steps real. The db warps check the step against valid
  // only in the last slab; a full slab runs without the check.
  const auto compute = [&](const float* buf, int valid) {
    const float* sa = buf + ai;
    const float* sb = buf + kBK * kLa + bj;
    if (!db_warp)
      compute_slab<kLa, false, false>(acc, dacc, sa, sb, valid);
    else if (valid >= kBK)
      compute_slab<kLa, true, false>(acc, dacc, sa, sb, valid);
    else
      compute_slab<kLa, true, true>(acc, dacc, sa, sb, valid);
  };

  const Tile<kLA, kLB, kVec> tile(p, tid, i0, j0);
  const int n_slabs = (p.R + kBK - 1) / kBK;

  // Prologue: slab 0 into buffer 0, slabs 1 and 2 in flight, the rows of slab 3 read.
  Frag f0, f1;
  SlabRows x = slab_rows<kLA, kLB, kGather>(p, 0, tid);
  tile.load(f0, 0, x);
  tile.store(smem, f0);
  x = slab_rows<kLA, kLB, kGather>(p, 1, tid);
  tile.load(f0, 1, x);
  x = slab_rows<kLA, kLB, kGather>(p, 2, tid);
  tile.load(f1, 2, x);
  x = slab_rows<kLA, kLB, kGather>(p, 3, tid);
  __syncthreads();

  // Two slabs per iteration. On entry: buffer 0 holds slab s, f0 slab s+1, f1 slab s+2, x the rows
  // of slab s+3. A buffer is written only after the barrier that ended the slab last read from it.
  for (int s = 0; s < n_slabs; s += 2) {
    {
      const float* buf = smem;
      compute(buf, p.R - s * kBK);
      tile.store(smem + kBuf, f0);  // slab s+1
      tile.load(f0, s + 3, x);
      x = slab_rows<kLA, kLB, kGather>(p, s + 4, tid);
      __syncthreads();
    }
    if (s + 1 >= n_slabs) break;
    {
      const float* buf = smem + kBuf;
      compute(buf, p.R - (s + 1) * kBK);
      tile.store(smem, f1);  // slab s+2
      tile.load(f1, s + 4, x);
      x = slab_rows<kLA, kLB, kGather>(p, s + 5, tid);
      __syncthreads();
    }
  }

  // Epilogue: outputs past P or Q are never stored.
#pragma unroll
  for (int e = 0; e < 2; ++e)
#pragma unroll
    for (int f = 0; f < 2; ++f) {
      const int i = i0 + ai + e, j = j0 + bj + f;
      if (i < p.P && j < p.Q)
        p.out[static_cast<size_t>(i) * static_cast<size_t>(p.Q) + static_cast<size_t>(j)] =
            p.bias ? __fadd_rn(acc[e][f], p.bias[j]) : acc[e][f];
    }
  if (db_warp && tj == 0) {
#pragma unroll
    for (int e = 0; e < 2; ++e)
      if (i0 + ai + e < p.P) p.db[i0 + ai + e] = dacc[e];
  }
}

bool aligned16(const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; }

template <Layout kLA, Layout kLB, bool kVec, bool kGather, bool kDb>
cudaError_t launch_tile(const NarrowGemm& g, cudaStream_t stream) {
  NarrowGemm p = g;
  const auto tiles_p = static_cast<unsigned>(ceil_div(p.P, kBP));
  p.tiles_q = static_cast<unsigned>(ceil_div(p.Q, kBQ));
  void* args[] = {&p};
  return cudaLaunchKernel(&bwd_f32_simt_narrow_kernel<kLA, kLB, kVec, kGather, kDb>, dim3(tiles_p * p.tiles_q),
                          dim3(kThreads), args, 0, stream);
}

template <bool kVec, bool kGather>
cudaError_t launch_dw(const NarrowGemm& g, cudaStream_t stream) {
  constexpr Layout oc = Layout::output_contiguous;
  return g.db != nullptr ? launch_tile<oc, oc, kVec, kGather, true>(g, stream)
                         : launch_tile<oc, oc, kVec, kGather, false>(g, stream);
}

}  // namespace

cudaError_t launch_bwd_dx_f32_simt_narrow(const BackwardDataLaunch& p) {
  NarrowGemm t;
  t.a = p.g;  // A(i = m, r = n) = G[m, n]: reduction-contiguous, ld N
  t.lda = p.N;
  t.b = p.w;  // B(j = k, r = n) = W[n, k]: output-contiguous, ld K
  t.ldb = p.K;
  t.out = p.dx;
  t.P = p.M;
  t.Q = p.K;
  t.R = p.N;
  const bool vec = p.N % 4 == 0 && p.K % 4 == 0 && aligned16(p.g) && aligned16(p.w);
  constexpr Layout rc = Layout::reduction_contiguous, oc = Layout::output_contiguous;
  const cudaError_t e = vec ? launch_tile<rc, oc, true, false, false>(t, p.stream)
                            : launch_tile<rc, oc, false, false, false>(t, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

cudaError_t launch_bwd_dw_f32_simt_narrow(const BackwardWeightLaunch& p) {
  NarrowGemm t;
  t.a = p.g;  // A(i = n, r) = G[row(r), n]: output-contiguous, ld N
  t.lda = p.N;
  t.b = p.x;  // B(j = k, r) = X[row(r), k]: output-contiguous, ld K
  t.ldb = p.K;
  t.rows = p.rows;
  t.out = p.dw;
  t.db = p.db;
  t.P = p.N;
  t.Q = p.K;
  t.R = p.R;
  t.accumulate = p.accumulate;
  const bool vec = p.N % 4 == 0 && p.K % 4 == 0 && aligned16(p.g) && aligned16(p.x);
  const bool gather = p.rows != nullptr;
  cudaError_t e;
  if (vec)
    e = gather ? launch_dw<true, true>(t, p.stream) : launch_dw<true, false>(t, p.stream);
  else
    e = gather ? launch_dw<false, true>(t, p.stream) : launch_dw<false, false>(t, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}

cudaError_t launch_fwd_f32_simt_narrow(const LaunchParams& p) {
  NarrowGemm t;
  t.a = p.x;  // A(i = m, r = k) = X[m, k]: reduction-contiguous, ld K
  t.lda = p.K;
  t.b = p.w;  // B(j = n, r = k) = W[n, k]: reduction-contiguous, ld K
  t.ldb = p.K;
  t.bias = p.bias;
  t.out = p.y;
  t.P = p.M;
  t.Q = p.N;
  t.R = p.K;
  const bool vec = p.K % 4 == 0 && aligned16(p.x) && aligned16(p.w);
  constexpr Layout rc = Layout::reduction_contiguous;
  const cudaError_t e = vec ? launch_tile<rc, rc, true, false, false>(t, p.stream)
                            : launch_tile<rc, rc, false, false, false>(t, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}

}  // namespace ordo::kernels::detail
