// Production kernels of contract bwd.dw.f32.fma-chain/1: variant "sm80.bwd.dw.f32.fma.simt.by-shape".
//
// dW [N, K] = G^T X and db [N] over the R active tokens, in canonical order: token step r reads row
// row(r) of G [T, N] and X [T, K], row(r) = rows[r] (a gather through the device index of the canonical
// order) or r (the rows in place). Both operands are token-major ("output-contiguous"): G(i, r) at
// g[row(r) * N + i], X(j, r) at x[row(r) * K + j].
//
// A table of block tiles and a rule that picks one from the shape (choose_dw_by_shape_tile). The table holds
// the production 128x128 dW tile (kernels/bwd_f32_simt_128x128x16.cu) for outputs with many tiles, the narrow
// 16x32 tile (kernels/bwd_f32_simt_narrow.cu), and the tiles of this file's template, whose threads own
// 4 x 4 chains read with one 16-byte shared-memory load per operand and step. Under the contract every output
// is one whole chain, so the tile decides which thread runs which chains, never a bit of the result.
//
// Why 4 x 4 chains per thread (docs/fp32-kernels.md, "What a tile costs"): a streaming multiprocessor returns
// at most 32 registers per clock from shared memory, and a thread owning TM x TN chains reads TM + TN operands
// per step. The seed's dW [32, 5376] and [5376, 32] have 1,303 chains per SM on 132 SMs: 2 x 2 chains per
// thread (the narrow tile) need 41 clocks per token of shared-memory returns. With 4 x 4 chains the returns
// drop to 20-32 clocks, and issue (about half an instruction per clock and scheduler, measured) becomes the
// limit at about 38: the 32x64 and 64x32 tiles measured 10-12% faster than the narrow tile at 16384 tokens
// (evidence/h200-91d06eb-dw-tiles/). Measured alone (ordo_bench_issue), a lone 4 x 4 warp issues 0.73
// instructions per clock and four per SM are bound by the shared-memory returns (30 clocks per step); blocks
// of three such warps on more SMs measured no faster in this kernel (evidence/h200-5e475d0-dw-loader/).
//
// Structure of a tile <BM, BN, TM, TN, BK, STAGES>
//   * A block computes BM (n) x BN (k) outputs with (BM/TM) x (BN/TN) threads, tx = tid % (BN/TN) fastest;
//     thread (ty, tx) owns rows ty*TM .. +TM-1 and columns tx*TN .. +TN-1 of the block tile, contiguous, so
//     its operands of one step are one float4 (or float2) of each staged row.
//   * Slabs of BK tokens are staged as Gs[r][BM] and Xs[r][BN] in a ring of STAGES, filled by cp.async: a
//     thread's copies of one operand share one column chunk and step through the slab's rows (16-byte copies
//     when N, K are multiples of 4 and G, X 16-byte aligned; 4-byte copies otherwise). One barrier per slab.
//   * Gathered rows: the row index of each of a thread's copies is read one slab before its copy is issued.
//   * db: in blocks of the first column tile, thread (ty, tx) with tx < TM also runs db[n] for n = ty*TM + tx,
//     one __fadd_rn per step of the G value it already holds: every db chain has exactly one owner.
//
// Arithmetic (the contract): acc = +0, or dW's current value with accumulate; for r ascending:
// acc = __fmaf_rn(G(i, r), X(j, r), acc); db likewise with __fadd_rn(db, G(i, r)). The last slab runs only
// its r < R steps (no padded steps: no pad value can touch a signed zero); rows and columns past N or K are
// zero-filled and their outputs never stored. Compiled with --fmad=false, without fast-math.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/backward_internal.h"
#include "kernels/by_shape_cost.h"
#include "kernels/bwd_narrow.h"
#include "kernels/cp_async.cuh"
#include "kernels/outer_product_step.cuh"

namespace ordo::kernels::detail {
namespace {

struct DwArgs {
  const float* g;     // [T, N]
  const float* x;     // [T, K]
  const int* rows;    // [R] when gathered
  float* dw;          // [N, K]
  float* db;          // [N] or null
  int N, K, R;
  unsigned tiles_k;   // column tiles of the grid
  bool accumulate;
};

template <int BM, int BN, int TM, int TN, int BK, int STAGES>
struct DwTile {
  static constexpr int kThreadsN = BN / TN;
  static constexpr int kThreads = (BM / TM) * kThreadsN;
  static constexpr int kGFloats = BK * BM;
  static constexpr int kStageFloats = BK * (BM + BN);
  static constexpr int kSharedBytes = STAGES * kStageFloats * 4;
  // 16-byte copies: a thread's copies of G share column chunk tid % (BM/4) and start at slab row
  // tid / (BM/4), kGRowStep rows apart; likewise for X.
  static constexpr int kGChunks = BM / 4, kXChunks = BN / 4;
  static constexpr int kGRowStep = kThreads / kGChunks, kXRowStep = kThreads / kXChunks;
  static constexpr int kGCopies = BK / kGRowStep, kXCopies = BK / kXRowStep;
  static_assert(BM % TM == 0 && BN % TN == 0, "the micro-tile divides the block tile");
  static_assert((TM == 1 || TM == 2 || TM == 4) && (TN == 1 || TN == 2 || TN == 4), "one vector load per operand");
  static_assert(kThreads % 32 == 0 && kThreads >= 32 && kThreads <= 256, "one to eight warps");
  static_assert(kThreadsN >= TM, "every db chain of the block's rows has an owner (tx < TM)");
  static_assert(BM % 4 == 0 && BN % 4 == 0 && kThreads % kGChunks == 0 && kThreads % kXChunks == 0,
                "a thread's copies of an operand share one column chunk");
  static_assert(BK % kGRowStep == 0 && BK % kXRowStep == 0 && kGCopies >= 1 && kXCopies >= 1, "whole copies");
  static_assert(kSharedBytes <= 48 * 1024, "static shared memory");
  static_assert(STAGES >= 3, "slab s + 1 is resident while slab s is computed");
};

// The 16-byte copies of one thread, set up once. A thread's copies of one operand share one column chunk and
// step through the slab's rows kGRowStep (kXRowStep) apart. Slabs are issued in order, once each; a copy past
// the last token, or of a chunk outside N (K), zero-fills its bytes (they are never read as terms: the last
// slab runs only its real steps).
//   * Whether a copy exists is one compare: `left` counts the rows from the thread's first row of the next
//     slab to the last token (0 for a chunk outside the operand), against the copy's row offset, an immediate.
//   * In place, each copy's source is a pointer advanced by one slab of rows per slab. Gathered, the token rows
//     of the next slab's copies are read (through the canonical order's index) while this slab's are issued.
// Per copy that leaves a compare, an add and the copy. Computing each copy's row, bound and offset per slab had
// the 64x32 tile's loader at about 90 instructions per 32-step slab (SASS), 3 per step more than its FMA loop's
// 18, and a lone warp per scheduler issuing 21.4 instructions per step (ncu); this took the skinny dW rows 3-8%
// faster, in place and gathered (evidence/h200-5e475d0-dw-loader/).
template <class T, int BM, int BN, int BK, bool kGather>
struct DwVecLoader {
  const float* g_col;
  const float* x_col;
  int ldg, ldx;
  int g_dst, x_dst;    // the place of this thread's first copies in a stage
  int g_left, x_left;  // rows from this thread's first row of the next slab to the last token
  // In place: each copy's source in the next slab.
  const float* g_src[kGather ? 1 : T::kGCopies];
  const float* x_src[kGather ? 1 : T::kXCopies];
  // Gathered: the index at this thread's first row of the next slab, and the token rows of its copies.
  const int* g_index = nullptr;
  const int* x_index = nullptr;
  int g_row[kGather ? T::kGCopies : 1];
  int x_row[kGather ? T::kXCopies : 1];

  __device__ __forceinline__ DwVecLoader(const DwArgs& a, int m0, int n0, int tid) {
    const int g_chunk = tid % T::kGChunks, x_chunk = tid % T::kXChunks;
    const int g_r0 = tid / T::kGChunks, x_r0 = tid / T::kXChunks;
    const bool g_live = m0 + 4 * g_chunk < a.N;  // N % 4 == 0 on this path: four columns in or out together
    const bool x_live = n0 + 4 * x_chunk < a.K;
    g_col = a.g + (g_live ? m0 + 4 * g_chunk : 0);
    x_col = a.x + (x_live ? n0 + 4 * x_chunk : 0);
    g_dst = g_r0 * BM + 4 * g_chunk;
    x_dst = T::kGFloats + x_r0 * BN + 4 * x_chunk;
    ldg = a.N;
    ldx = a.K;
    g_left = g_live ? a.R - g_r0 : 0;
    x_left = x_live ? a.R - x_r0 : 0;
    if constexpr (kGather) {
      g_index = a.rows + g_r0;
      x_index = a.rows + x_r0;
      read_rows();
    } else {
#pragma unroll
      for (int c = 0; c < T::kGCopies; ++c)
        g_src[c] = g_col + static_cast<std::size_t>(g_r0 + c * T::kGRowStep) * static_cast<std::size_t>(ldg);
#pragma unroll
      for (int c = 0; c < T::kXCopies; ++c)
        x_src[c] = x_col + static_cast<std::size_t>(x_r0 + c * T::kXRowStep) * static_cast<std::size_t>(ldx);
    }
  }
  __device__ __forceinline__ void read_rows() {
#pragma unroll
    for (int c = 0; c < T::kGCopies; ++c) g_row[c] = c * T::kGRowStep < g_left ? __ldg(g_index + c * T::kGRowStep) : 0;
#pragma unroll
    for (int c = 0; c < T::kXCopies; ++c) x_row[c] = c * T::kXRowStep < x_left ? __ldg(x_index + c * T::kXRowStep) : 0;
  }
  __device__ __forceinline__ void issue(float* ring, int stage) {
    float* base = ring + stage * T::kStageFloats;
    // A copy that does not exist reads nothing: its source (row 0, or past the operand in place) is never
    // dereferenced.
#pragma unroll
    for (int c = 0; c < T::kGCopies; ++c) {
      const float* src = kGather ? g_col + static_cast<std::size_t>(g_row[c]) * ldg : g_src[kGather ? 0 : c];
      cp_async16(base + g_dst + c * T::kGRowStep * BM, src, c * T::kGRowStep < g_left);
    }
#pragma unroll
    for (int c = 0; c < T::kXCopies; ++c) {
      const float* src = kGather ? x_col + static_cast<std::size_t>(x_row[c]) * ldx : x_src[kGather ? 0 : c];
      cp_async16(base + x_dst + c * T::kXRowStep * BN, src, c * T::kXRowStep < x_left);
    }
    g_left -= BK;
    x_left -= BK;
    if constexpr (kGather) {
      g_index += BK;
      x_index += BK;
      read_rows();
    } else {
      const std::size_t g_slab = static_cast<std::size_t>(BK) * static_cast<std::size_t>(ldg);
      const std::size_t x_slab = static_cast<std::size_t>(BK) * static_cast<std::size_t>(ldx);
#pragma unroll
      for (int c = 0; c < T::kGCopies; ++c) g_src[c] += g_slab;
#pragma unroll
      for (int c = 0; c < T::kXCopies; ++c) x_src[c] += x_slab;
    }
  }
};

// The scalar path (any N, K, 4-byte alignment): one 4-byte copy per element, token rows read per slab.
template <class T, int BM, int BN, int BK, bool kGather>
__device__ __forceinline__ void dw_load_scalar(const DwArgs& a, float* ring, int stage, int slab, int m0, int n0,
                                               int tid) {
  float* base = ring + stage * T::kStageFloats;
  constexpr int kGElems = BK * BM, kElems = BK * (BM + BN);
#pragma unroll 4
  for (int c0 = 0; c0 < kElems; c0 += T::kThreads) {
    const int c = c0 + tid;
    if (kElems % T::kThreads != 0 && c >= kElems) break;
    const bool is_g = c < kGElems;
    const int e = is_g ? c : c - kGElems;
    const int width = is_g ? BM : BN;
    const int r = e / width, col = e % width;
    const int step = slab * BK + r;
    const bool ok = step < a.R && (is_g ? m0 + col < a.N : n0 + col < a.K);
    const int row = !ok ? 0 : kGather ? __ldg(a.rows + step) : step;
    const float* src = is_g ? a.g + static_cast<std::size_t>(row) * a.N + (ok ? m0 + col : 0)
                            : a.x + static_cast<std::size_t>(row) * a.K + (ok ? n0 + col : 0);
    cp_async4(base + (is_g ? 0 : T::kGFloats) + e, src, ok);
  }
}

// Steps [0, steps) of one staged slab, ascending, for every chain of this thread (and its db chain, kDb).
template <int BM, int BN, int TM, int TN, int BK, bool kFull, bool kDb>
__device__ __forceinline__ void dw_compute_slab(float (&acc)[TM][TN], float& dacc, bool db_lane, int db_e,
                                                const float* gs, const float* xs, int steps) {
#pragma unroll
  for (int r = 0; r < BK; ++r) {
    if (!kFull && r >= steps) break;
    float gv[TM];
    outer_product_step<TM, TN>(acc, gv, gs + r * BM, xs + r * BN);
    if constexpr (kDb) {
      float v = gv[0];
#pragma unroll
      for (int e = 1; e < TM; ++e) v = db_e == e ? gv[e] : v;
      if (db_lane) dacc = __fadd_rn(dacc, v);
    }
  }
}

// The last slab when it is partial (steps < BK), without unrolling the whole slab twice more.
template <int BM, int BN, int TM, int TN, bool kDb>
__device__ __forceinline__ void dw_compute_partial(float (&acc)[TM][TN], float& dacc, bool db_lane, int db_e,
                                                   const float* gs, const float* xs, int steps) {
#pragma unroll 1
  for (int r = 0; r < steps; ++r) dw_compute_slab<BM, BN, TM, TN, 1, true, kDb>(acc, dacc, db_lane, db_e, gs + r * BM, xs + r * BN, 1);
}

template <int BM, int BN, int TM, int TN, int BK, int STAGES, bool kVec, bool kGather>
__global__ void __launch_bounds__(DwTile<BM, BN, TM, TN, BK, STAGES>::kThreads)
    f32_dw_by_shape_kernel(const DwArgs a) {
  using T = DwTile<BM, BN, TM, TN, BK, STAGES>;
  __shared__ __align__(16) float ring[STAGES * T::kStageFloats];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % T::kThreadsN, ty = tid / T::kThreadsN;
  const int m0 = static_cast<int>(blockIdx.x / a.tiles_k) * BM;
  const int n0 = static_cast<int>(blockIdx.x % a.tiles_k) * BN;
  const int slabs = (a.R + BK - 1) / BK;

  // The start of every chain: +0 (the contract's start value), or dW's current value with accumulate.
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int m = m0 + ty * TM + i, n = n0 + tx * TN + j;
      acc[i][j] = a.accumulate && m < a.N && n < a.K ? a.dw[static_cast<std::size_t>(m) * a.K + n] : 0.0f;
    }
  // db: the blocks of the first column tile; thread (ty, tx < TM) owns db[m0 + ty*TM + tx].
  const bool db_block = a.db != nullptr && n0 == 0;  // block-uniform
  const int db_m = m0 + ty * TM + tx;
  const bool db_lane = db_block && tx < TM && db_m < a.N;
  float dacc = db_lane && a.accumulate ? a.db[db_m] : 0.0f;

  // The 16-byte loader (its gathered rows only when it is used: the scalar path reads its own).
  [[maybe_unused]] DwVecLoader<T, BM, BN, BK, kGather && kVec> loader(a, m0, n0, tid);
  const auto load = [&](int stage, int slab) {
    if constexpr (kVec)
      (void)slab, loader.issue(ring, stage);  // slabs are issued in order: the loader keeps its place
    else
      dw_load_scalar<T, BM, BN, BK, kGather>(a, ring, stage, slab, m0, n0, tid);
  };
  // Prologue: the first STAGES - 1 slabs in flight, one commit group each (a group past the last slab fills a
  // buffer no slab reads, so that the wait below counts the same groups for every slab).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    load(s, s);
    cp_async_commit();
  }
  for (int s = 0; s < slabs; ++s) {
    cp_async_wait<STAGES - 2>();  // slab s has landed (for this thread's copies) ...
    __syncthreads();              // ... and for everyone's; every thread is done with slab s - 1
    const int next = s + STAGES - 1;
    load(next % STAGES, next);    // into slab s - 1's buffer
    cp_async_commit();
    const float* gs = ring + (s % STAGES) * T::kStageFloats + ty * TM;
    const float* xs = ring + (s % STAGES) * T::kStageFloats + T::kGFloats + tx * TN;
    const int steps = a.R - s * BK;
    if (steps >= BK) {
      if (db_block)
        dw_compute_slab<BM, BN, TM, TN, BK, true, true>(acc, dacc, db_lane, tx, gs, xs, BK);
      else
        dw_compute_slab<BM, BN, TM, TN, BK, true, false>(acc, dacc, db_lane, tx, gs, xs, BK);
    } else if (db_block) {
      dw_compute_partial<BM, BN, TM, TN, true>(acc, dacc, db_lane, tx, gs, xs, steps);
    } else {
      dw_compute_partial<BM, BN, TM, TN, false>(acc, dacc, db_lane, tx, gs, xs, steps);
    }
  }
  cp_async_wait<0>();  // nothing may be in flight into shared memory when the block exits

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty * TM + i;
    if (m >= a.N) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tx * TN + j;
      if (n < a.K) a.dw[static_cast<std::size_t>(m) * a.K + n] = acc[i][j];
    }
  }
  if (db_lane) a.db[db_m] = dacc;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The typed form of cudaLaunchKernel (CUDA's template), which the host emulation's shim also takes.
template <int BM, int BN, int TM, int TN, int BK, int STAGES, bool kVec, bool kGather>
cudaError_t launch_dw_kernel(DwArgs a, unsigned blocks, cudaStream_t stream) {
  void* args[] = {&a};
  return cudaLaunchKernel(&f32_dw_by_shape_kernel<BM, BN, TM, TN, BK, STAGES, kVec, kGather>, dim3(blocks),
                          dim3(DwTile<BM, BN, TM, TN, BK, STAGES>::kThreads), args, 0, stream);
}

template <int BM, int BN, int TM, int TN, int BK, int STAGES>
cudaError_t launch_dw_tile(const BackwardWeightLaunch& p) {
  DwArgs a{p.g, p.x, p.rows, p.dw, p.db, p.N, p.K, p.R, 0, p.accumulate};
  a.tiles_k = static_cast<unsigned>(ceil_div(p.K, BN));
  const auto blocks = static_cast<unsigned>(ceil_div(p.N, BM) * a.tiles_k);
  const bool vec = p.N % 4 == 0 && p.K % 4 == 0 && aligned16(p.g) && aligned16(p.x);
  const bool gather = p.rows != nullptr;
  const cudaError_t e =
      vec ? (gather ? launch_dw_kernel<BM, BN, TM, TN, BK, STAGES, true, true>(a, blocks, p.stream)
                    : launch_dw_kernel<BM, BN, TM, TN, BK, STAGES, true, false>(a, blocks, p.stream))
          : (gather ? launch_dw_kernel<BM, BN, TM, TN, BK, STAGES, false, true>(a, blocks, p.stream)
                    : launch_dw_kernel<BM, BN, TM, TN, BK, STAGES, false, false>(a, blocks, p.stream));
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

struct DwTileEntry {
  ByShapeTile tile;
  BackwardWeightLaunchFn launch;
};

#define ORDO_DW_TILE(BM, BN, TM, TN, BK, ST)                                                                 \
  DwTileEntry {                                                                                              \
    ByShapeTile{#BM "x" #BN "x" #BK ".t" #TM "x" #TN ".s" #ST, BM, BN, TM, TN, BK, ST, (BM / TM) * (BN / TN)}, \
        &launch_dw_tile<BM, BN, TM, TN, BK, ST>                                                              \
  }
// The 4-warp 128x128 tile first (kernels/f32_simt_outer_128x128.cu: the reference of the tile sweep; the rule runs
// it on grids of kOuterWavesBackward waves or more, else the cost model picks among the others), the production
// 128x128 tile, then the narrow 16x32 tile, then this
// file's tiles: 4 x 4 chains per thread in blocks of one warp (32 x 16 for dW [32, K], 16 x 32 for dW [N, 32])
// and of two and four warps.
const DwTileEntry kDwTiles[] = {
    DwTileEntry{ByShapeTile{"128x128x8.t8x16.s3.outer", 128, 128, 8, 16, 8, 3, 128, 2}, &launch_bwd_dw_f32_outer<8, 3, 0, true>},
    DwTileEntry{ByShapeTile{"128x128x16 (production)", 128, 128, 8, 8, 16, 2, 256, 2}, &launch_bwd_dw_f32_simt_128x128x16},
    DwTileEntry{ByShapeTile{"16x32x32 (narrow)", 16, 32, 2, 2, 32, 2, 128}, &launch_bwd_dw_f32_simt_narrow},
    ORDO_DW_TILE(32, 16, 4, 4, 32, 4),
    ORDO_DW_TILE(16, 32, 4, 4, 32, 4),
    ORDO_DW_TILE(32, 32, 4, 4, 32, 4),
    ORDO_DW_TILE(64, 32, 4, 4, 32, 4),
    ORDO_DW_TILE(32, 64, 4, 4, 32, 4),
    ORDO_DW_TILE(16, 32, 2, 4, 32, 4),
    ORDO_DW_TILE(32, 16, 4, 2, 32, 4),
    ORDO_DW_TILE(64, 64, 4, 4, 16, 4),
};
#undef ORDO_DW_TILE
constexpr int kDwTileCount = static_cast<int>(sizeof kDwTiles / sizeof kDwTiles[0]);

}  // namespace

const std::vector<ByShapeTile>& dw_by_shape_tiles() {
  static const std::vector<ByShapeTile> tiles = [] {
    std::vector<ByShapeTile> v;
    for (const DwTileEntry& e : kDwTiles) v.push_back(e.tile);
    return v;
  }();
  return tiles;
}

int choose_dw_by_shape_tile(std::int64_t N, std::int64_t K, std::int64_t R, int sm_count) {
  (void)R;  // every tile's time grows with R alike: the reduction length moves no choice
  const std::vector<ByShapeTile>& tiles = dw_by_shape_tiles();
  const std::int64_t sms = std::max(1, sm_count);
  if (ceil_div(N, tiles[0].bm) * ceil_div(K, tiles[0].bn) >= kOuterWavesBackward * tiles[0].resident * sms) return 0;
  static const std::vector<ByShapeTile> rest(tiles.begin() + 1, tiles.end());
  return 1 + cheapest_by_shape_tile(rest, N, K, sm_count);
}

cudaError_t launch_bwd_dw_f32_by_shape_tile(const BackwardWeightLaunch& p, int tile) {
  if (tile < 0 || tile >= kDwTileCount) return cudaErrorInvalidValue;
  return kDwTiles[tile].launch(p);
}

cudaError_t launch_bwd_dw_f32_simt_by_shape(const BackwardWeightLaunch& p) {
  const int forced = forced_fp32_tile(dw_by_shape_tiles(), p.options->fp32);
  if (forced == -2) return cudaErrorInvalidValue;
  if (forced >= 0) return launch_bwd_dw_f32_by_shape_tile(p, forced);
  int device = 0, sm_count = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return e;
  }
  return launch_bwd_dw_f32_by_shape_tile(p, choose_dw_by_shape_tile(p.N, p.K, p.R, sm_count));
}

}  // namespace ordo::kernels::detail
