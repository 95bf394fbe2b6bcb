#pragma once
// The defects of the FP32 forward mutants of contract fwd.f32.fma-chain/1, one struct each: how one
// output element is computed, wrongly. `compute` is compiled by nvcc into the one-thread-per-output GPU
// mutants (fwd_f32_zoo.cu, fwd_f32_mutants.cu) and by the host compiler into their host twins
// (subjects/mutants/host_fwd_f32_mutants.cpp), so both run the same defect. Each is a way kernel
// engineers break the fixed order, most of them for speed, and most show only on some shapes or values:
// the self-test (`ordo selftest`) must kill every one with the properties `ordo verify` runs.
//
// The contract, for reference: acc = +0; for k = 0..K-1: acc = fma_rn(x[m,k], w[n,k], acc); then
// y = add_rn(acc, b[n]) with a bias; IEEE binary32 throughout; every NaN result 0x7fffffff.
#include <cstddef>

#include "kernels/mutants/mutant_arith.h"

namespace ordo::mutants {

// One output element and everything a defect may look at: the whole operands (an edge defect reads past
// its row), the shape and the element's position (a schedule that depends on the grid).
struct ForwardElement {
  const float* x = nullptr;     // X [M, K]
  const float* w = nullptr;     // W [N, K]
  const float* bias = nullptr;  // &b[n], or null without a bias
  int M = 0, N = 0, K = 0;
  int m = 0, n = 0;
  ORDO_MUTANT_HD const float* x_row() const { return x + static_cast<std::size_t>(m) * static_cast<std::size_t>(K); }
  ORDO_MUTANT_HD const float* w_row() const { return w + static_cast<std::size_t>(n) * static_cast<std::size_t>(K); }
};

// The tile of the schedules below: BLOCK_K of the k loop and the 16x16 output tile of the one-thread-
// per-output kernels.
constexpr int kMutantTile = 16;
// The wave of the stream-K schedule: the H200's 132 SMs, one resident tile each. Fixed, so that the host
// twin and the GPU mutant split the same tiles on any machine.
constexpr int kMutantWave = 132;

ORDO_MUTANT_HD float chain(const float* xr, const float* wr, int k0, int k1, float acc) {
  for (int k = k0; k < k1; ++k) acc = fma_rn(xr[k], wr[k], acc);
  return acc;
}
ORDO_MUTANT_HD float with_bias(const ForwardElement& e, float acc) { return e.bias ? add_rn(acc, *e.bias) : acc; }

// The contract itself: the twins' base path, and what the tests compare each defect against where it
// cannot show.
struct ContractChain {
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    return with_bias(e, chain(e.x_row(), e.w_row(), 0, e.K, 0.0f));
  }
};

// ---- order ------------------------------------------------------------------------------------------

struct KReversed {
  static constexpr const char* kId = "mutant.fwd.f32.k-reversed";
  static constexpr const char* kDefect = "the chain runs over k descending (K-1 .. 0) instead of ascending";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const float* xr = e.x_row();
    const float* wr = e.w_row();
    float acc = 0.0f;
    for (int k = e.K - 1; k >= 0; --k) acc = fma_rn(xr[k], wr[k], acc);
    return with_bias(e, acc);
  }
};

struct KSplitHalves {
  static constexpr const char* kId = "mutant.fwd.f32.k-split-halves";
  static constexpr const char* kDefect = "split-K: two chains from +0 over k in [0,K/2) and [K/2,K), added at the end";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const int half = e.K / 2;
    const float lo = chain(e.x_row(), e.w_row(), 0, half, 0.0f);
    const float hi = chain(e.x_row(), e.w_row(), half, e.K, 0.0f);
    return with_bias(e, add_rn(lo, hi));
  }
};

// Stream-K: the tiles of the last, partial wave are split along K so that the idle SMs share them; the
// full waves run the contract. Small grids are all last wave.
struct StreamKLastWave {
  static constexpr const char* kId = "mutant.fwd.f32.stream-k-last-wave";
  static constexpr const char* kDefect =
      "stream-K: the 16x16 tiles of the last partial wave (of 132) with K >= 32 are split in two K halves at a "
      "multiple of 16, each from +0, added at the end; full waves keep the chain";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const int tiles_n = (e.N + kMutantTile - 1) / kMutantTile;
    const long long tiles = static_cast<long long>((e.M + kMutantTile - 1) / kMutantTile) * tiles_n;
    const long long tile = static_cast<long long>(e.m / kMutantTile) * tiles_n + e.n / kMutantTile;
    const long long full = tiles / kMutantWave * kMutantWave;
    if (tiles % kMutantWave == 0 || tile < full || e.K < 2 * kMutantTile) return ContractChain::compute(e);
    const int half = e.K / (2 * kMutantTile) * kMutantTile;
    const float lo = chain(e.x_row(), e.w_row(), 0, half, 0.0f);
    const float hi = chain(e.x_row(), e.w_row(), half, e.K, 0.0f);
    return with_bias(e, add_rn(lo, hi));
  }
};

struct BlockKPartials {
  static constexpr const char* kId = "mutant.fwd.f32.block-k-partials";
  static constexpr const char* kDefect =
      "each BLOCK_K = 16 slab is its own chain from +0, and the slab's partial sum is added into the accumulator";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    float acc = 0.0f;
    for (int k0 = 0; k0 < e.K; k0 += kMutantTile) {
      const int k1 = k0 + kMutantTile < e.K ? k0 + kMutantTile : e.K;
      acc = add_rn(acc, chain(e.x_row(), e.w_row(), k0, k1, 0.0f));
    }
    return with_bias(e, acc);
  }
};

struct TwoAccumulators {
  static constexpr const char* kId = "mutant.fwd.f32.two-accumulators";
  static constexpr const char* kDefect =
      "two interleaved accumulators for even and odd k (to hide FMA latency), added at the end";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const float* xr = e.x_row();
    const float* wr = e.w_row();
    float even = 0.0f, odd = 0.0f;
    for (int k = 0; k < e.K; ++k) {
      if (k % 2 == 0)
        even = fma_rn(xr[k], wr[k], even);
      else
        odd = fma_rn(xr[k], wr[k], odd);
    }
    return with_bias(e, add_rn(even, odd));
  }
};

// A tile configuration picked by M: small batches (decode) get split-K for parallelism.
struct SplitKSmallM {
  static constexpr const char* kId = "mutant.fwd.f32.split-k-small-m";
  static constexpr const char* kDefect =
      "the configuration changes with M: for M <= 16 and K >= 64, K is split in 4 slices (multiples of 16) "
      "from +0, added in order; larger batches keep the chain";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    if (e.M > kMutantTile || e.K < 4 * kMutantTile) return ContractChain::compute(e);
    const int slice = (e.K / 4 + kMutantTile - 1) / kMutantTile * kMutantTile;
    float acc = 0.0f;
    for (int s = 0; s < 4; ++s) {
      const int k0 = s * slice, k1 = s == 3 ? e.K : (s + 1) * slice;
      acc = s == 0 ? chain(e.x_row(), e.w_row(), k0, k1, 0.0f) : add_rn(acc, chain(e.x_row(), e.w_row(), k0, k1, 0.0f));
    }
    return with_bias(e, acc);
  }
};

// ---- arithmetic -------------------------------------------------------------------------------------

struct Tf32Inputs {
  static constexpr const char* kId = "mutant.fwd.f32.tf32-inputs";
  static constexpr const char* kDefect =
      "X and W rounded to TF32 (10 fraction bits, round to nearest, ties away) before the FMA chain";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const float* xr = e.x_row();
    const float* wr = e.w_row();
    float acc = 0.0f;
    for (int k = 0; k < e.K; ++k) acc = fma_rn(to_tf32(xr[k]), to_tf32(wr[k]), acc);
    return with_bias(e, acc);
  }
};

struct UnfusedMulAdd {
  static constexpr const char* kId = "mutant.fwd.f32.unfused-mul-add";
  static constexpr const char* kDefect = "acc = add_rn(mul_rn(x, w), acc): two roundings per term instead of one FMA";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const float* xr = e.x_row();
    const float* wr = e.w_row();
    float acc = 0.0f;
    for (int k = 0; k < e.K; ++k) acc = add_rn(mul_rn(xr[k], wr[k]), acc);
    return with_bias(e, acc);
  }
};

struct DazInputs {
  static constexpr const char* kId = "mutant.fwd.f32.daz-inputs";
  static constexpr const char* kDefect = "subnormal X, W and bias read as zero (DAZ)";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const float* xr = e.x_row();
    const float* wr = e.w_row();
    float acc = 0.0f;
    for (int k = 0; k < e.K; ++k) acc = fma_rn(flush_subnormal(xr[k]), flush_subnormal(wr[k]), acc);
    return e.bias ? add_rn(acc, flush_subnormal(*e.bias)) : acc;
  }
};

struct FtzOutputs {
  static constexpr const char* kId = "mutant.fwd.f32.ftz-outputs";
  static constexpr const char* kDefect = "every subnormal result (each FMA, the bias add) flushed to zero (FTZ)";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const float* xr = e.x_row();
    const float* wr = e.w_row();
    float acc = 0.0f;
    for (int k = 0; k < e.K; ++k) acc = flush_subnormal(fma_rn(xr[k], wr[k], acc));
    return e.bias ? flush_subnormal(add_rn(acc, *e.bias)) : acc;
  }
};

struct StartNegativeZero {
  static constexpr const char* kId = "mutant.fwd.f32.start-negative-zero";
  static constexpr const char* kDefect = "the chain starts at -0 instead of +0";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    return with_bias(e, chain(e.x_row(), e.w_row(), 0, e.K, -0.0f));
  }
};

struct NanPayload {
  static constexpr const char* kId = "mutant.fwd.f32.nan-payload";
  static constexpr const char* kDefect =
      "NaN results keep the payload and sign of the first NaN operand (x86 rules) instead of 0x7fffffff";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const float* xr = e.x_row();
    const float* wr = e.w_row();
    float acc = 0.0f;
    for (int k = 0; k < e.K; ++k) acc = x86_fma(xr[k], wr[k], acc);
    return e.bias ? x86_add(acc, *e.bias) : acc;
  }
};

struct BiasFirst {
  static constexpr const char* kId = "mutant.fwd.f32.bias-first";
  static constexpr const char* kDefect = "the chain starts from b[n] instead of +0 and no bias is added at the end";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    return chain(e.x_row(), e.w_row(), 0, e.K, e.bias ? *e.bias : 0.0f);
  }
};

// ---- edges ------------------------------------------------------------------------------------------

struct KTailDropped {
  static constexpr const char* kId = "mutant.fwd.f32.k-tail-dropped";
  static constexpr const char* kDefect =
      "the k loop runs whole BLOCK_K = 16 slabs only: the last K % 16 terms are dropped";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    return with_bias(e, chain(e.x_row(), e.w_row(), 0, e.K / kMutantTile * kMutantTile, 0.0f));
  }
};

// Unmasked loads of the last slab: the terms past K are the next row's first ones (X and W are
// contiguous), and +0 past the end of the buffer (on the GPU the mutant masks there, so that it faults
// nowhere and its twin reads nothing undefined).
struct KTailOverread {
  static constexpr const char* kId = "mutant.fwd.f32.k-tail-overread";
  static constexpr const char* kDefect =
      "unmasked loads of the last BLOCK_K = 16 slab: for K % 16 != 0 the chain runs on into the next row of X and "
      "W (+0 past the end of the buffer)";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    const std::size_t K = static_cast<std::size_t>(e.K);
    const std::size_t x_end = static_cast<std::size_t>(e.M) * K, w_end = static_cast<std::size_t>(e.N) * K;
    const std::size_t x0 = static_cast<std::size_t>(e.m) * K, w0 = static_cast<std::size_t>(e.n) * K;
    const int padded = (e.K + kMutantTile - 1) / kMutantTile * kMutantTile;
    float acc = 0.0f;
    for (int k = 0; k < padded; ++k) {
      const std::size_t i = x0 + static_cast<std::size_t>(k), j = w0 + static_cast<std::size_t>(k);
      acc = fma_rn(i < x_end ? e.x[i] : 0.0f, j < w_end ? e.w[j] : 0.0f, acc);
    }
    return with_bias(e, acc);
  }
};

struct EdgeLastColumn {
  static constexpr const char* kId = "mutant.fwd.f32.edge-last-column";
  static constexpr const char* kDefect =
      "the last column of a partial N tile (N % 16 != 0) goes through a cleanup path that runs k descending";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    if (e.N % kMutantTile != 0 && e.n == e.N - 1) return KReversed::compute(e);
    return ContractChain::compute(e);
  }
};

struct EdgeLastRow {
  static constexpr const char* kId = "mutant.fwd.f32.edge-last-row";
  static constexpr const char* kDefect =
      "the last row of a partial M tile (M % 16 != 0) goes through a cleanup path without FMA (mul, then add)";
  ORDO_MUTANT_HD static float compute(const ForwardElement& e) {
    if (e.M % kMutantTile != 0 && e.m == e.M - 1) return UnfusedMulAdd::compute(e);
    return ContractChain::compute(e);
  }
};

}  // namespace ordo::mutants
