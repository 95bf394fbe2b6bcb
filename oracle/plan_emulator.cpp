#include "oracle/plan_emulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on their own _mm512_undefined placeholders when
// inlined (GCC bug 105593, fixed in 13); the warnings are about the headers, not this code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include "core/float_bits.h"
#include "oracle/parallel_for.h"
#include "oracle/plan_emulator_tc.h"
#include "oracle/tc_fdpa_lanes.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {
namespace {

constexpr int kLanes = 16;  // output columns per panel: one AVX-512 register, two AVX2 registers
constexpr int kRows = 4;    // rows of A per T-FDPA tile (kTcRows): reuses each decomposed B vector 4 times
// Rows of A per FMA micro-kernel call: 8 independent chains per panel, twice the FMA latency x throughput
// of a core with one 512-bit FMA per cycle (4 x 1 on AMD Zen 4), each loaded B vector used 8 times. With
// 4 rows the kernel reached 55% of the measured FMA peak on a Zen 4 core (bench/emulator_throughput.cpp).
constexpr int kFmaRows = 8;
constexpr std::int64_t kFmaBlocksPerTask = 8;  // row blocks per task of the FMA path (64 rows)
// Terms per pass of a task's chains: a two-panel slice of 256 x 128 B (32 KB, about L1D) read by each of
// the task's row blocks, against 16 accumulators saved and restored once per pass. Measured on a Zen 4
// core at M = N = K = 1024: 128 terms 4.4-4.85e10 products/s, 256 terms 4.8-4.97e10, 512 terms 4.1-4.9e10.
constexpr std::int64_t kFmaKBlock = 256;
static_assert(kLanes <= kFinishLanesMax, "a panel's row goes through finish_lanes in one call");

TcFdpaParams params_of(const TcFdpaStep& s) { return {s.L, s.F, s.e_zero}; }

std::int64_t segment_count(const ReductionPlan& plan, std::int64_t padded) {
  if (plan.structure == KStructure::chain || padded == 0) return 1;
  return (padded + plan.segment_length - 1) / plan.segment_length;
}

// Sixteen rows of 16 floats from column k, rows[i][k + j] (a null row reads as zeros), transposed into
// cols[j * col_stride + i] for i < rows_kept (16, or 8 for a block of X) in registers (three
// stages of unpacks and 128-bit shuffles: 64 shuffles for 256 values). The packing of both operands goes
// through it; element by element, packing took 11% of the FP32 path's time at M = N = K = 1024.
__attribute__((target("avx512f"))) void transpose16x16(const float* const* rows, std::int64_t k, float* cols,
                                                       std::int64_t col_stride, int rows_kept) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = rows[i] ? _mm512_loadu_ps(rows[i] + k) : _mm512_setzero_ps();
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);  // per 128-bit lane: a0 b0 a1 b1
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);  // a2 b2 a3 b3
  }
  for (int i = 0; i < 16; i += 4) {
    const __m512d t0 = _mm512_castps_pd(t[i]), t1 = _mm512_castps_pd(t[i + 1]);
    const __m512d t2 = _mm512_castps_pd(t[i + 2]), t3 = _mm512_castps_pd(t[i + 3]);
    r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));      // a0 b0 c0 d0 per lane: columns 0, 4, 8, 12
    r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));  // columns 1, 5, 9, 13
    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));  // columns 2, 6, 10, 14
    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));  // columns 3, 7, 11, 15
  }
  // r[4g + c] holds rows 4g..4g+3 of columns c, c + 4, c + 8, c + 12 (one per 128-bit lane).
  for (int c = 0; c < 4; ++c) {
    t[2 * c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88);      // rows 0-7 of columns c, c + 8
    t[2 * c + 1] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xDD);  // rows 0-7 of columns c + 4, c + 12
    t[8 + 2 * c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);  // rows 8-15 of columns c, c + 8
    t[8 + 2 * c + 1] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xDD);
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm512_shuffle_f32x4(t[2 * c], t[8 + 2 * c], 0x88);            // column c
    r[c + 8] = _mm512_shuffle_f32x4(t[2 * c], t[8 + 2 * c], 0xDD);        // column c + 8
    r[c + 4] = _mm512_shuffle_f32x4(t[2 * c + 1], t[8 + 2 * c + 1], 0x88);  // column c + 4
    r[c + 12] = _mm512_shuffle_f32x4(t[2 * c + 1], t[8 + 2 * c + 1], 0xDD);  // column c + 12
  }
  if (rows_kept == 16) {
    for (int j = 0; j < 16; ++j) _mm512_storeu_ps(cols + j * col_stride, r[j]);
  } else {  // the first 8 rows only (a row block of X)
    for (int j = 0; j < 16; ++j) _mm256_storeu_ps(cols + j * col_stride, _mm512_castps512_ps256(r[j]));
  }
}

bool has_avx512() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512;
}

// B [C,K] repacked k-major in panels of kLanes columns: panel[p][k][j] = B[p*kLanes + j, k]. Columns past
// C are zero; their lanes are computed and thrown away. Threaded over panels, each written in order
// from kLanes rows read in order: one serial column-at-a-time pass took a third of the FP32 forward
// emulator's time at M = N = K = 1024 on 2 cores. `side_job` runs as one more task of the same phase
// (the first handed out), so that work independent of the packing overlaps it.
template <class SideJob>
void pack_panels(const ForwardProblem& p, std::int64_t panels, unsigned threads, std::vector<float>& packed,
                 SideJob&& side_job) {
  packed.resize(static_cast<std::size_t>(panels * p.K * kLanes));
  parallel_for(
      panels + 1,
      [&](std::int64_t task) {
        if (task == 0) return side_job();
        const std::int64_t panel = task - 1;
        float* dst = packed.data() + panel * p.K * kLanes;
        const float* src[kLanes];
        int live = 0;
        for (int j = 0; j < kLanes; ++j) {
          const std::int64_t n = panel * kLanes + j;
          src[j] = n < p.N ? p.w.data() + n * p.K : nullptr;
          live += n < p.N ? 1 : 0;
        }
        std::int64_t k = 0;
        if (has_avx512())
          for (; k + 16 <= p.K; k += 16) transpose16x16(src, k, dst + k * kLanes, kLanes, 16);
        for (; k < p.K; ++k) {
          for (int j = 0; j < live; ++j) dst[k * kLanes + j] = src[j][k];
          for (int j = live; j < kLanes; ++j) dst[k * kLanes + j] = 0.0f;
        }
      },
      threads);
}

// The packed operands of the FMA path, one pair per calling thread, kept between calls: a campaign's
// repeated calls then reuse pages instead of faulting fresh ones in, which cost about a quarter of the
// time at M = N = K = 1024 on 2 cores (5.7e10 products/s, 7.4e10 with glibc's mmap and trim thresholds
// raised). Every element is rewritten by each call; more than 256 MB is released after the call.
struct PackScratch {
  std::vector<float> panels, zeros;
  void release_if_large() {
    constexpr std::size_t kKeep = std::size_t{64} << 20;  // floats
    if (panels.capacity() > kKeep) std::vector<float>().swap(panels);
    if (zeros.capacity() > kKeep) std::vector<float>().swap(zeros);
  }
};
PackScratch& pack_scratch() {
  thread_local PackScratch scratch;
  return scratch;
}

// The rows of one block of kFmaRows rows of A, read in place: x[m] for m < M, a row of zeros past M.
// The micro-kernels broadcast from the eight rows directly. A k-major copy of A (one stream for the
// caches instead of eight) was no faster on a Zen 4 core and cost a pass over A before the FMAs.
struct RowBlock {
  const float* rows[kFmaRows];
};
RowBlock row_block(const ForwardProblem& p, std::int64_t block, const float* zeros) {
  RowBlock rb;
  for (int r = 0; r < kFmaRows; ++r) {
    const std::int64_t m = block * kFmaRows + r;
    rb.rows[r] = m < p.M ? p.x.data() + m * p.K : zeros;
  }
  return rb;
}

// kFmaRows x kLanes independent FMA chains over the real terms [k0, k1) (k1 <= K) of one row block,
// continuing from acc.
// target_clones compiles it for AVX-512, AVX2+FMA and a generic x86-64 (where std::fma is the correctly
// rounded library call): the same bits on every path, only the speed differs.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void fma_chain_micro_kernel(const RowBlock& rb, const float* panel, std::int64_t k0, std::int64_t k1,
                            float (*acc)[kLanes]) {
  static_assert(kFmaRows == 8, "the body names its eight rows");
  float a[kFmaRows][kLanes];
  std::memcpy(a, acc, sizeof a);
  for (std::int64_t k = k0; k < k1; ++k) {
    const float* wk = panel + k * kLanes;
    const float a0 = rb.rows[0][k], a1 = rb.rows[1][k], a2 = rb.rows[2][k], a3 = rb.rows[3][k];
    const float a4 = rb.rows[4][k], a5 = rb.rows[5][k], a6 = rb.rows[6][k], a7 = rb.rows[7][k];
    for (int j = 0; j < kLanes; ++j) a[0][j] = std::fma(a0, wk[j], a[0][j]);
    for (int j = 0; j < kLanes; ++j) a[1][j] = std::fma(a1, wk[j], a[1][j]);
    for (int j = 0; j < kLanes; ++j) a[2][j] = std::fma(a2, wk[j], a[2][j]);
    for (int j = 0; j < kLanes; ++j) a[3][j] = std::fma(a3, wk[j], a[3][j]);
    for (int j = 0; j < kLanes; ++j) a[4][j] = std::fma(a4, wk[j], a[4][j]);
    for (int j = 0; j < kLanes; ++j) a[5][j] = std::fma(a5, wk[j], a[5][j]);
    for (int j = 0; j < kLanes; ++j) a[6][j] = std::fma(a6, wk[j], a[6][j]);
    for (int j = 0; j < kLanes; ++j) a[7][j] = std::fma(a7, wk[j], a[7][j]);
  }
  std::memcpy(acc, a, sizeof a);
}

// Two panels at once, kFmaRows x 2 kLanes chains in 16 of AVX-512's 32 registers: each broadcast X value
// feeds two FMAs and each k step issues 2 vector loads + 8 broadcasts for 16 FMAs (the one-panel kernel:
// 1 + 8 for 8). The one-panel kernel held a Zen 4 core at 60% of its measured FMA peak; written with
// intrinsics, since the AVX2 and generic clones of a 16-accumulator body would spill (16 ymm registers).
__attribute__((target("avx512f")))
void fma_chain_two_panels_avx512(const RowBlock& rb, const float* panel0, const float* panel1, std::int64_t k0,
                                 std::int64_t k1, float (*acc)[kLanes]) {
  static_assert(kFmaRows == 8 && kLanes == 16, "one zmm register per row and panel");
  __m512 a[2 * kFmaRows];
  const float* x[kFmaRows];
#pragma GCC unroll 8
  for (int r = 0; r < kFmaRows; ++r) x[r] = rb.rows[r];
#pragma GCC unroll 16
  for (int i = 0; i < 2 * kFmaRows; ++i) a[i] = _mm512_loadu_ps(acc[i]);
  for (std::int64_t k = k0; k < k1; ++k) {
    const __m512 w0 = _mm512_loadu_ps(panel0 + k * kLanes), w1 = _mm512_loadu_ps(panel1 + k * kLanes);
#pragma GCC unroll 8
    for (int r = 0; r < kFmaRows; ++r) {
      const __m512 b = _mm512_set1_ps(x[r][k]);
      a[r] = _mm512_fmadd_ps(b, w0, a[r]);
      a[kFmaRows + r] = _mm512_fmadd_ps(b, w1, a[kFmaRows + r]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < 2 * kFmaRows; ++i) _mm512_storeu_ps(acc[i], a[i]);
}

// acc[0..kFmaRows) continue the chains of panel0, acc[kFmaRows..2 kFmaRows) those of panel1. Without
// AVX-512 (checked once: CPUID and the OS's saved register state), the one-panel kernel twice: the
// same bits, every output is its own chain.
void fma_chain_two_panels(const RowBlock& rb, const float* panel0, const float* panel1, std::int64_t k0,
                          std::int64_t k1, float (*acc)[kLanes]) {
  if (has_avx512()) return fma_chain_two_panels_avx512(rb, panel0, panel1, k0, k1, acc);
  fma_chain_micro_kernel(rb, panel0, k0, k1, acc);
  fma_chain_micro_kernel(rb, panel1, k0, k1, acc + kFmaRows);
}

// The partial sums of one tile, combined as the plan says. Ascending: folded in as each segment ends.
// Pairwise: kept until the last segment, then reduced level by level.
template <int Rows>
class Combiner {
 public:
  Combiner(const ReductionPlan& plan, std::int64_t segments)
      : pairwise_(plan.structure == KStructure::segments && plan.combine == SegmentCombine::pairwise_tree) {
    if (pairwise_) partials_.resize(static_cast<std::size_t>(segments) * Rows * kLanes);
  }
  void add(std::int64_t segment, const float (*acc)[kLanes]) {
    if (pairwise_) {
      std::memcpy(&partials_[static_cast<std::size_t>(segment) * Rows * kLanes], acc, sizeof total_);
    } else if (segment == 0) {
      std::memcpy(total_, acc, sizeof total_);
    } else {
      for (int r = 0; r < Rows; ++r)
        for (int j = 0; j < kLanes; ++j) total_[r][j] = total_[r][j] + acc[r][j];  // one add_rn each
    }
  }
  const float (*result())[kLanes] {
    if (!pairwise_) return total_;
    std::size_t count = partials_.size() / (Rows * kLanes);
    while (count > 1) {
      const std::size_t next = (count + 1) / 2;
      for (std::size_t i = 0; i < next; ++i) {
        float* dst = &partials_[i * Rows * kLanes];
        const float* lo = &partials_[2 * i * Rows * kLanes];
        if (2 * i + 1 < count) {
          const float* hi = &partials_[(2 * i + 1) * Rows * kLanes];
          for (int e = 0; e < Rows * kLanes; ++e) dst[e] = lo[e] + hi[e];
        } else if (dst != lo) {
          std::memcpy(dst, lo, sizeof total_);
        }
      }
      count = next;
    }
    std::memcpy(total_, partials_.data(), sizeof total_);
    return total_;
  }

 private:
  bool pairwise_;
  float total_[Rows][kLanes] = {};
  std::vector<float> partials_;
};

// One task: row blocks [rb0, rb1) of A against Panels panels of kLanes columns of B from
// column n0, every segment, combined; out[b][i * kFmaRows + r] is row r of panel i for block rb0 + b.
// Each segment's chains advance kFmaKBlock terms at a time over all the task's blocks (the accumulators
// wait in memory between passes: the same steps in the same order, so the same bits), so that the
// panels' slice of those terms is read from L1 by every block instead of from L2 (a whole K = 1024 pair
// is 128 KB).
template <int Panels>
void fma_task(const ReductionPlan& plan, const ForwardProblem& p, const float* zeros, std::int64_t rb0,
              std::int64_t rb1, const float* const* panels, std::int64_t n0,
              float (*out)[Panels * kFmaRows][kLanes]) {
  static_assert(Panels == 1 || Panels == 2, "one or two panels per task");
  constexpr int kTileRows = Panels * kFmaRows;
  const int blocks = static_cast<int>(rb1 - rb0);
  const std::int64_t padded = plan.padded_terms(p.K);
  const std::int64_t segments = segment_count(plan, padded);
  const std::int64_t length = plan.structure == KStructure::chain ? padded : plan.segment_length;
  // The chains run in `out` itself; with several segments, each segment's sums are copied into its
  // block's combiner as it ends, and the combined sums written back at the end.
  std::vector<Combiner<kTileRows>> combine;
  float (*acc)[kTileRows][kLanes] = out;
  if (segments > 1) {
    combine.reserve(static_cast<std::size_t>(blocks));
    for (int b = 0; b < blocks; ++b) combine.emplace_back(plan, segments);
  }
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::int64_t s0 = s * length, s1 = std::min(padded, s0 + length);
    float start[Panels][kLanes];
    for (int i = 0; i < Panels; ++i)
      for (int j = 0; j < kLanes; ++j) {
        const std::int64_t n = std::min(n0 + i * kLanes + j, p.N - 1);
        start[i][j] = s == 0 && plan.bias == BiasPlacement::initial_accumulator && p.bias
                          ? (*p.bias)[static_cast<std::size_t>(n)]
                          : plan.start_value();
      }
    for (int b = 0; b < blocks; ++b)  // whole rows of lanes at a time
      for (int i = 0; i < Panels; ++i)
        for (int r = 0; r < kFmaRows; ++r) std::memcpy(acc[b][i * kFmaRows + r], start[i], sizeof start[i]);
    const std::int64_t real_end = std::min(s1, p.K);
    for (std::int64_t k0 = s0; k0 < real_end; k0 += kFmaKBlock) {
      const std::int64_t k1 = std::min(real_end, k0 + kFmaKBlock);
      for (int b = 0; b < blocks; ++b) {
        const RowBlock rb = row_block(p, rb0 + b, zeros);
        if constexpr (Panels == 2)
          fma_chain_two_panels(rb, panels[0], panels[1], k0, k1, acc[b]);
        else
          fma_chain_micro_kernel(rb, panels[0], k0, k1, acc[b]);
      }
    }
    // Zero products after the real terms: fma_rn(+0, +0, acc) = add_rn(acc, +0), which changes only a
    // -0 (to +0), so one add stands for any number of them.
    if (s1 > std::max(real_end, s0))
      for (int b = 0; b < blocks; ++b)
        for (int r = 0; r < kTileRows; ++r)
          for (int j = 0; j < kLanes; ++j) acc[b][r][j] = acc[b][r][j] + 0.0f;
    if (segments > 1)
      for (int b = 0; b < blocks; ++b) combine[static_cast<std::size_t>(b)].add(s, acc[b]);
  }
  if (segments > 1)
    for (int b = 0; b < blocks; ++b)
      std::memcpy(out[b], combine[static_cast<std::size_t>(b)].result(), sizeof(float) * kTileRows * kLanes);
}

// One element of a tensor-core plan with the scalar model: T-FDPA steps over the real terms of each
// segment (a short last step is the zero-padded step: zero products never change E), then any all-zero
// steps. The lanes the lane kernel leaves out (special values, overflow) come here, and so does the
// per-element path it replaced (emulate_dot_tc_per_element).
float tc_element(const ReductionPlan& plan, const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  const TcFdpaParams params = params_of(plan.step.tc);
  const std::int64_t padded = plan.padded_terms(p.K);
  const std::int64_t segments = segment_count(plan, padded);
  const std::int64_t length = plan.structure == KStructure::chain ? padded : plan.segment_length;
  const float* a = p.x_row(m);
  const float* b = p.w_row(n);
  std::vector<float> partials;
  partials.reserve(static_cast<std::size_t>(segments));
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::int64_t s0 = s * length, s1 = std::min(padded, s0 + length);
    float acc = s == 0 && plan.bias == BiasPlacement::initial_accumulator && p.bias
                    ? (*p.bias)[static_cast<std::size_t>(n)]
                    : plan.start_value();
    const std::int64_t real_end = std::min(s1, p.K);
    std::int64_t k = s0;
    for (; k < real_end; k += params.L)
      acc = tc_fdpa_step(params, a + k, b + k, static_cast<int>(std::min<std::int64_t>(params.L, real_end - k)), acc);
    // An all-zero step returns C exactly, except that an exact zero sum is +0: a -0 becomes +0.
    if (s1 > k) acc = acc + 0.0f;
    partials.push_back(acc);
  }
  float r = partials[0];
  if (plan.structure == KStructure::segments && plan.combine == SegmentCombine::pairwise_tree) {
    while (partials.size() > 1) {
      std::vector<float> next;
      for (std::size_t i = 0; i < partials.size(); i += 2)
        next.push_back(i + 1 < partials.size() ? partials[i] + partials[i + 1] : partials[i]);
      partials.swap(next);
    }
    r = partials[0];
  } else {
    for (std::size_t i = 1; i < partials.size(); ++i) r = r + partials[i];
  }
  if (plan.bias == BiasPlacement::after_chain_add_rn && p.bias) r = r + (*p.bias)[static_cast<std::size_t>(n)];
  return r;
}

static_assert(kTcRows == kRows && kTcLanes == kLanes, "the T-FDPA tiles are kRows x kLanes");
constexpr std::int64_t kTcBlocksPerTask = 16;  // row blocks per task: one panel stays in L2 for 64 rows

// One tile of a tensor-core plan through the lane kernel: every segment's chain from its start value
// (the first from the bias when it is the initial accumulator), the padding steps, the combination.
// Mirrors tc_element stage by stage; `overflow` marks the lanes the scalar model must redo.
void tc_tile(const ReductionPlan& plan, const ForwardProblem& p, TcLaneKernel kernel, const TcFdpaParams& params,
             std::int32_t e_zero, const TcTileOperands& ops, std::int64_t k_len, std::int64_t n0, float (*out)[kLanes],
             std::int32_t (*overflow)[kLanes]) {
  const std::int64_t padded = plan.padded_terms(p.K);
  const std::int64_t segments = segment_count(plan, padded);
  const std::int64_t length = plan.structure == KStructure::chain ? padded : plan.segment_length;
  Combiner<kRows> combine(plan, segments);
  TcLaneState st;
  std::memset(st.overflow, 0, sizeof st.overflow);
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::int64_t s0 = s * length, s1 = std::min(padded, s0 + length);
    for (int j = 0; j < kLanes; ++j) {
      const std::int64_t n = std::min(n0 + j, p.N - 1);
      float start = s == 0 && plan.bias == BiasPlacement::initial_accumulator && p.bias
                        ? (*p.bias)[static_cast<std::size_t>(n)]
                        : plan.start_value();
      if (!std::isfinite(start)) start = 0.0f;  // a special lane: the scalar model redoes it
      for (int r = 0; r < kRows; ++r) st.c[r][j] = start;
    }
    // The real terms in steps of L (k_len: K rounded up to L, the short last step zero padded, which
    // changes nothing: zero products never set E), then all-zero steps, which return C except that
    // an exact zero is +0: only a C that no step has touched can be -0.
    const std::int64_t k_end = std::min(s1, k_len);
    if (k_end > s0) kernel(params, e_zero, ops, s0, k_end, st);
    if (s1 > std::max(k_end, s0))
      for (int r = 0; r < kRows; ++r)
        for (int j = 0; j < kLanes; ++j) st.c[r][j] = st.c[r][j] + 0.0f;
    combine.add(s, st.c);
  }
  std::memcpy(out, combine.result(), sizeof(float) * kRows * kLanes);
  std::memcpy(overflow, st.overflow, sizeof st.overflow);
}

// The tensor-core path: operands decomposed once, tiles of kRows x kLanes lanes through the lane
// kernel, threaded over (panel, group of row blocks). A lane with a NaN or Inf operand or initial
// accumulator, or one that overflowed to Inf, is recomputed by tc_element: the scalar model's bits.
void emulate_tc(const ReductionPlan& plan, const ForwardProblem& p, TcLaneIsa isa, unsigned threads,
                std::vector<float>& y) {
  const TcFdpaParams params = params_of(plan.step.tc);
  validate_tc_fdpa_params(params);
  const TcLaneKernel kernel = tc_lane_kernel(isa, params);
  const std::int32_t e_zero = tc_effective_e_zero(params.e_zero);
  const std::int64_t k_len = (p.K + params.L - 1) / params.L * params.L;
  const TcPanels panels = pack_tc_panels(p, k_len, threads);
  const TcRowsPacked rows = pack_tc_rows(p, k_len, threads);
  std::vector<char> row_special(static_cast<std::size_t>(p.M)), col_special(static_cast<std::size_t>(p.N));
  for (std::int64_t m = 0; m < p.M; ++m) row_special[static_cast<std::size_t>(m)] = any_non_finite(p.x_row(m), p.K);
  const bool bias_initial = plan.bias == BiasPlacement::initial_accumulator && p.bias;
  for (std::int64_t n = 0; n < p.N; ++n)
    col_special[static_cast<std::size_t>(n)] =
        any_non_finite(p.w_row(n), p.K) || (bias_initial && !std::isfinite((*p.bias)[static_cast<std::size_t>(n)]));
  const float* bias_after = plan.bias == BiasPlacement::after_chain_add_rn && p.bias ? p.bias->data() : nullptr;
  const std::uint32_t nan_bits = plan.nan_bits.value_or(kCanonicalNaNBits);
  const std::int64_t row_blocks = (p.M + kRows - 1) / kRows;
  const std::int64_t groups = (row_blocks + kTcBlocksPerTask - 1) / kTcBlocksPerTask;
  parallel_for(
      panels.panels * groups,
      [&](std::int64_t task) {
        const std::int64_t panel = task / groups, group = task % groups;
        const std::int64_t n0 = panel * kLanes;
        const int count = static_cast<int>(std::min<std::int64_t>(kLanes, p.N - n0));
        bool panel_special = false;
        for (int j = 0; j < count; ++j) panel_special = panel_special || col_special[static_cast<std::size_t>(n0 + j)];
        TcTileOperands ops;
        ops.panel_sig = panels.panel_sig(panel);
        ops.panel_exp = panels.panel_exp(panel);
        const std::int64_t rb_end = std::min(row_blocks, (group + 1) * kTcBlocksPerTask);
        for (std::int64_t rb = group * kTcBlocksPerTask; rb < rb_end; ++rb) {
          for (int r = 0; r < kRows; ++r) {
            const std::int64_t m = rb * kRows + r;
            ops.row_sig[r] = m < p.M ? rows.row_sig(m) : rows.zero_sig();
            ops.row_exp[r] = m < p.M ? rows.row_exp(m) : rows.zero_exp();
          }
          float out[kRows][kLanes];
          std::int32_t overflow[kRows][kLanes];
          tc_tile(plan, p, kernel, params, e_zero, ops, k_len, n0, out, overflow);
          for (int r = 0; r < kRows; ++r) {
            const std::int64_t m = rb * kRows + r;
            if (m >= p.M) break;
            float* dst = y.data() + m * p.N + n0;
            finish_lanes(out[r], bias_after ? bias_after + n0 : nullptr, nan_bits, p.bf16_output, count, dst);
            bool redo = panel_special || row_special[static_cast<std::size_t>(m)];
            for (int j = 0; j < count; ++j) redo = redo || overflow[r][j] != 0;
            if (!redo) continue;
            for (int j = 0; j < count; ++j) {
              const std::int64_t n = n0 + j;
              if (overflow[r][j] || row_special[static_cast<std::size_t>(m)] || col_special[static_cast<std::size_t>(n)])
                dst[j] = finish_output(plan, tc_element(plan, p, m, n), p.bf16_output);
            }
          }
        }
      },
      threads);
}

}  // namespace

std::vector<float> emulate_dot_tc_lanes(const ReductionPlan& plan, const ForwardProblem& p, TcLaneIsa isa,
                                        unsigned threads) {
  if (Status s = check_dot_problem(plan, p, true); !s.ok()) throw std::invalid_argument("emulate_dot_tc_lanes: " + s.to_string());
  if (plan.step.kind != StepKind::tc_fdpa) throw std::invalid_argument("emulate_dot_tc_lanes: not a tc_fdpa plan");
  std::vector<float> y(static_cast<std::size_t>(p.M * p.N));
  emulate_tc(plan, p, isa, threads, y);
  return y;
}

std::vector<float> emulate_dot_tc_per_element(const ReductionPlan& plan, const ForwardProblem& p, unsigned threads) {
  if (Status s = check_dot_problem(plan, p, true); !s.ok())
    throw std::invalid_argument("emulate_dot_tc_per_element: " + s.to_string());
  if (plan.step.kind != StepKind::tc_fdpa) throw std::invalid_argument("emulate_dot_tc_per_element: not a tc_fdpa plan");
  std::vector<float> y(static_cast<std::size_t>(p.M * p.N));
  parallel_for(
      p.M,
      [&](std::int64_t m) {
        for (std::int64_t n = 0; n < p.N; ++n)
          y[static_cast<std::size_t>(m * p.N + n)] = finish_output(plan, tc_element(plan, p, m, n), p.bf16_output);
      },
      threads);
  return y;
}

namespace {

// The epilogue below in AVX-512 under a mask of `count` lanes: the same integer formulas, one masked load
// and store per operand. GCC's AVX-512 clone of the loops copies the result out 8 bytes at a time; at
// M = N = K = 1024 on 2 cores the epilogue was 6.6% of the FP32 forward's samples (perf).
__attribute__((target("avx512f"))) void finish_lanes_avx512(const float* v, const float* bias, std::uint32_t nan_bits,
                                                           bool bf16_output, int count, float* dst) {
  static_assert(kFinishLanesMax == 16, "one zmm register of lanes");
  const auto in = static_cast<__mmask16>(count == 16 ? 0xFFFFu : (1u << count) - 1u);
  __m512 s = _mm512_maskz_loadu_ps(in, v);
  if (bias) s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(in, bias));  // add_rn, lane by lane
  __m512i u = _mm512_castps_si512(s);
  const __mmask16 nan =
      _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x7F800000));
  if (bf16_output) {
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    u = _mm512_and_si512(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), odd),
                         _mm512_set1_epi32(static_cast<int>(0xFFFF0000u)));
    u = _mm512_mask_mov_epi32(u, nan, _mm512_set1_epi32(0x7FFF0000));
  } else {
    u = _mm512_mask_mov_epi32(u, nan, _mm512_set1_epi32(static_cast<int>(nan_bits)));
  }
  _mm512_mask_storeu_ps(dst, in, _mm512_castsi512_ps(u));
}

// Element by element, the epilogue took 44% of a short-K case (M x N = 9e6, K = 40) on the FMA path.
__attribute__((target_clones("arch=x86-64-v3", "default")))
void finish_lanes_portable(const float* v, const float* bias, std::uint32_t nan_bits, bool bf16_output, int count,
                           float* dst) {
  std::uint32_t u[kFinishLanesMax];
  if (bias) {
    for (int j = 0; j < count; ++j) {
      const float s = v[j] + bias[j];
      std::memcpy(&u[j], &s, sizeof s);
    }
  } else {
    std::memcpy(u, v, sizeof(float) * static_cast<std::size_t>(count));
  }
  if (bf16_output) {
    // round_to_bf16: every NaN to 0x7FFF, otherwise to nearest even (a carry is the next binade or Inf).
    for (int j = 0; j < count; ++j)
      u[j] = (u[j] & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FFF0000u : (u[j] + 0x7FFFu + ((u[j] >> 16) & 1u)) & 0xFFFF0000u;
  } else {
    for (int j = 0; j < count; ++j) u[j] = (u[j] & 0x7FFFFFFFu) > 0x7F800000u ? nan_bits : u[j];
  }
  std::memcpy(dst, u, sizeof(float) * static_cast<std::size_t>(count));
}

}  // namespace

void finish_lanes(const float* v, const float* bias, std::uint32_t nan_bits, bool bf16_output, int count, float* dst) {
  if (count < 0 || count > kFinishLanesMax) throw std::invalid_argument("finish_lanes: count out of range");
  if (has_avx512()) return finish_lanes_avx512(v, bias, nan_bits, bf16_output, count, dst);
  finish_lanes_portable(v, bias, nan_bits, bf16_output, count, dst);
}

float finish_output(const ReductionPlan& plan, float v, bool bf16_output) {
  if (std::isnan(v)) v = float_of(plan.nan_bits.value_or(kCanonicalNaNBits));
  // cvt.rn.bf16.f32: round to nearest even; every NaN becomes the bfloat16 NaN 0x7fff.
  return bf16_output ? round_to_bf16(v) : v;
}

std::vector<float> emulate_dot(const ReductionPlan& plan, const ForwardProblem& p, unsigned threads) {
  if (Status s = check_dot_problem(plan, p, true); !s.ok()) throw std::invalid_argument("emulate_dot: " + s.to_string());
  std::vector<float> y;
  if (plan.step.kind == StepKind::tc_fdpa) {
    y.resize(static_cast<std::size_t>(p.M * p.N));
    emulate_tc(plan, p, tc_lane_isa_best(), threads, y);
    return y;
  }
  const std::int64_t panels = (p.N + kLanes - 1) / kLanes;
  const std::int64_t row_blocks = (p.M + kFmaRows - 1) / kFmaRows;
  PackScratch& scratch = pack_scratch();
  // The output's zero fill (4 MB at M = N = 1024: 3-4% of the call on one thread) on one core while the
  // others pack B.
  pack_panels(p, panels, threads, scratch.panels, [&] { y.resize(static_cast<std::size_t>(p.M * p.N)); });
  scratch.zeros.assign(static_cast<std::size_t>(p.K), 0.0f);
  const std::vector<float>& packed = scratch.panels;
  const float* zeros = scratch.zeros.data();
  const float* bias_after = plan.bias == BiasPlacement::after_chain_add_rn && p.bias ? p.bias->data() : nullptr;
  const std::uint32_t nan_bits = plan.nan_bits.value_or(kCanonicalNaNBits);
  // A task is a pair of panels against kFmaBlocksPerTask row blocks: the pair (K x 32 floats) is read
  // from L1/L2 by every block of the task instead of the whole of B streaming through the cache once per
  // row block, which held a 16-core Xeon at 28% of its FMA peak at M = N = K = 1024. An odd last panel
  // goes alone.
  const std::int64_t pairs = (panels + 1) / 2;
  const std::int64_t groups = (row_blocks + kFmaBlocksPerTask - 1) / kFmaBlocksPerTask;
  parallel_for(
      groups * pairs,
      [&](std::int64_t task) {
        const std::int64_t group = task / pairs, first_panel = 2 * (task % pairs);
        const bool two = first_panel + 1 < panels;
        const std::int64_t n0 = first_panel * kLanes;
        const float* tile_panels[2] = {packed.data() + first_panel * p.K * kLanes,
                                       two ? packed.data() + (first_panel + 1) * p.K * kLanes : nullptr};
        const std::int64_t rb0 = group * kFmaBlocksPerTask, rb1 = std::min(row_blocks, rb0 + kFmaBlocksPerTask);
        // The task's outputs are written once, at its end; fetched now, the lines are in the core's cache
        // (owned, as nothing else holds them) by then, instead of each store missing to memory.
        for (std::int64_t m = rb0 * kFmaRows; m < std::min(p.M, rb1 * kFmaRows); ++m) {
          const float* first = y.data() + m * p.N + n0;
          const float* last = y.data() + m * p.N + std::min(p.N, n0 + (two ? 2 : 1) * kLanes) - 1;
          for (const float* line = first; line <= last; line += 16)
            _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T1);
          _mm_prefetch(reinterpret_cast<const char*>(last), _MM_HINT_T1);
        }
        float out[kFmaBlocksPerTask][2 * kFmaRows][kLanes];
        if (two)
          fma_task<2>(plan, p, zeros, rb0, rb1, tile_panels, n0, out);
        else
          fma_task<1>(plan, p, zeros, rb0, rb1, tile_panels, n0,
                      reinterpret_cast<float (*)[kFmaRows][kLanes]>(out));
        for (std::int64_t rb = rb0; rb < rb1; ++rb) {
          const int b = static_cast<int>(rb - rb0);
          for (int i = 0; i < (two ? 2 : 1); ++i) {
            const std::int64_t c0 = n0 + i * kLanes;
            const int count = static_cast<int>(std::min<std::int64_t>(kLanes, p.N - c0));
            for (int r = 0; r < kFmaRows; ++r) {
              const std::int64_t m = rb * kFmaRows + r;
              if (m >= p.M) break;
              const float* row = two ? out[b][i * kFmaRows + r]
                                     : reinterpret_cast<float (*)[kFmaRows][kLanes]>(out)[b][r];
              finish_lanes(row, bias_after ? bias_after + c0 : nullptr, nan_bits, p.bf16_output, count,
                           y.data() + m * p.N + c0);
            }
          }
        }
      },
      threads);
  scratch.release_if_large();
  return y;
}

}  // namespace ordo::oracle
