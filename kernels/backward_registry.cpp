// Registry of the backward variants (FP32 SIMT tiles, the call-order mutant, BF16 tensor-core tiles per
// SM range), and dispatch: validate, then (dW with a reduction order that is not the rows in place)
// upload the order as a device index array, then launch.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "kernels/backward_api.h"
#include "kernels/backward_internal.h"
#include "kernels/bwd_narrow.h"

namespace ordo::kernels {
namespace detail {
namespace {

KernelVariant make_variant(std::string id, std::string contract, bool mutant, std::string description) {
  KernelVariant v;
  v.id = std::move(id);
  v.contract_id = std::move(contract);
  v.tile_m = 128;  // output rows per block: m of dX, n of dW
  v.tile_n = 128;  // output columns per block: k of both
  v.tile_k = 16;   // reduction steps per slab: n of dX, tokens of dW
  v.threads = 256;
  v.stages = 2;
  v.instruction = "ffma";
  v.sm.min = 80;
  v.is_mutant = mutant;
  v.description = std::move(description);
  return v;
}

// A BF16 tensor-core variant of dX (`kind` "dx") or dW/db ("dw") for the SMs arch .. max_sm, whose
// tensor cores compute the T-FDPA parameters of contract bwd.<kind>.bf16.tc-fdpa-sm<arch>/1.
KernelVariant make_bf16_variant(const std::string& kind, int arch, int max_sm, std::string description) {
  KernelVariant v;
  v.id = "sm" + std::to_string(arch) + ".bwd." + kind + ".bf16.mma-sync.32x32x16";
  v.contract_id = "bwd." + kind + ".bf16.tc-fdpa-sm" + std::to_string(arch) + "/1";
  v.tile_m = 32;  // output rows per block: m of dX, n of dW
  v.tile_n = 32;  // output columns per block: k of both
  v.tile_k = 16;  // reduction steps per instruction: n of dX, active tokens of dW
  v.threads = 128;
  v.stages = 1;
  v.instruction = "mma.sync.m16n8k16 (wmma)";
  v.sm.min = arch;
  v.sm.max = max_sm;
  v.operand_dtype = DType::bf16;
  v.description = std::move(description);
  return v;
}

// The narrow-output FP32 tile (kernels/bwd_f32_simt_narrow.cu): 16x32 outputs per block, for outputs
// with few columns and a long reduction, where the 128x128 tile leaves most SMs idle.
KernelVariant make_narrow_variant(const std::string& kind, std::string description) {
  KernelVariant v = make_variant("sm80.bwd." + kind + ".f32.fma.simt.narrow.16x32x32", "bwd." + kind + ".f32.fma-chain/1",
                                 false, std::move(description));
  v.tile_m = 16;
  v.tile_n = 32;
  v.tile_k = 32;
  v.threads = 128;
  v.stages = 2;
  return v;
}

// An FP32 variant whose tile is chosen by shape (`kind` "dx" or "dw"); tile_m x tile_n is its smallest block
// tile, so that the validation's grid check covers every tile it may launch.
KernelVariant make_by_shape_variant(const std::string& kind, std::string description, int tile_m, int tile_n,
                                    int tile_k, int threads) {
  KernelVariant v = make_variant("sm80.bwd." + kind + ".f32.fma.simt.by-shape", "bwd." + kind + ".f32.fma-chain/1",
                                 false, std::move(description));
  v.tile_m = tile_m;
  v.tile_n = tile_n;
  v.tile_k = tile_k;
  v.threads = threads;
  v.stages = 4;
  return v;
}

const char* const kBf16DxDescription =
    "portable BF16 tensor-core tile of dX = G * W: 32x32 block tile of dX, 4 warps, each a 16x16 wmma tile; per "
    "step 32x16 of G and 16x32 of W staged in shared memory (+0 past M, N, K); one chain per output over n "
    "ascending in steps of 16 from +0, the accumulator fragment the C operand of every mma";
const char* const kBf16DwDescription =
    "portable BF16 tensor-core tile of dW = G^T * X: 32x32 block tile of dW, 4 warps, each a 16x16 wmma tile; the "
    "active tokens in canonical order in groups of 16 (the last zero filled), the G and X rows of a group staged "
    "in shared memory, read in place or gathered through the device index of the canonical order; the "
    "accumulator fragment starts at +0 or, with accumulate, at dW, and is the C operand of every mma; db: one "
    "__fadd_rn chain per column over the same tokens, the bfloat16 G widened exactly to FP32";

// dX on the Hopper wgmma tile of the forward (kernels/bf16_wgmma_128x256x64.cu), with W as it lies.
KernelVariant make_wgmma_dx_variant() {
  KernelVariant v;
  v.id = "sm90.bwd.dx.bf16.wgmma.128x256x64";
  v.contract_id = "bwd.dx.bf16.tc-fdpa-sm90/1";
  v.tile_m = 128;  // dX rows per tile
  v.tile_n = 256;  // dX columns (k) per tile
  v.tile_k = 64;   // reduced n per pipeline stage
  v.threads = 384;
  v.stages = 4;
  v.instruction = "wgmma.mma_async.m64n256k16, B N-major (sm_90a)";
  v.sm.min = 90;
  v.sm.max = 90;
  v.operand_dtype = DType::bf16;
  v.k_multiple = 8;  // for dX: N and K, the row lengths of G and W (TMA strides are multiples of 16 bytes)
  v.operand_alignment = 16;
  v.description =
      "Hopper BF16 tile of dX = G * W: the forward wgmma tile (persistent blocks, a TMA producer warpgroup, a 4-stage "
      "ring, two consumer warpgroups) with G as the K-major A and W [N, K] read as it lies, an N-major B "
      "(imm-trans-b) in boxes of 64 k x 64 n; one chain per output of wgmma m64n256k16 steps over n ascending from "
      "+0, the accumulators the C operand of every instruction; a half-full last wave runs as 128x128 halves "
      "(m64n128k16); needs N % 8 == 0, K % 8 == 0 and 16-byte aligned G, W";
  return v;
}

// dW/db on the same tile (kernels/bf16_wgmma_128x256x64.cu), G and X as they lie.
KernelVariant make_wgmma_dw_variant() {
  KernelVariant v = make_wgmma_dx_variant();
  v.id = "sm90.bwd.dw.bf16.wgmma.128x256x64";
  v.contract_id = "bwd.dw.bf16.tc-fdpa-sm90/1";
  v.tile_m = 128;  // dW rows (n) per tile
  v.tile_n = 256;  // dW columns (k) per tile
  v.tile_k = 64;   // active tokens per pipeline stage
  v.instruction = "wgmma.mma_async.m64n256k16, A M-major, B N-major (sm_90a)";
  v.k_multiple = 8;  // N and K, the row lengths of G and X
  v.description =
      "Hopper BF16 tile of dW = G^T * X: the forward wgmma tile with G [T, N] read as it lies as an M-major A "
      "(imm-trans-a) and X [T, K] as an N-major B (imm-trans-b), 64 tokens per stage; rows in canonical order "
      "by TMA in place, others gathered through the device index of the canonical order by the producer warpgroup "
      "(cp.async into the swizzled layout); one chain per output of wgmma m64n256k16 steps over the active "
      "tokens in groups of 16 (the last zero filled), from +0 or, with accumulate, from dW; a half-full last wave "
      "as 128x128 halves; db: one __fadd_rn chain per column over the same tokens; needs N % 8 == 0, K % 8 == 0 "
      "and 16-byte aligned G, X";
  return v;
}

}  // namespace

const std::vector<BackwardDataEntry>& backward_data_entries() {
  static const std::vector<BackwardDataEntry> entries = {
      {make_variant("sm80.bwd.dx.f32.fma.simt.128x128x16", "bwd.dx.f32.fma-chain/1", false,
                    "production SIMT tile of dX = G * W: 128x128 block tile of dX, 16 steps of n per slab, 256 "
                    "threads with 8x8 register micro-tiles; G read n-contiguous and transposed into shared "
                    "memory, W read k-contiguous as it lies; double-buffered with register prefetch; one "
                    "__fmaf_rn chain per output over n ascending from +0"),
       &launch_bwd_dx_f32_simt_128x128x16},
      {make_narrow_variant("dx", "narrow-output SIMT tile of dX = G * W for few output columns and a long reduction "
                                 "(the seed's dX [M, 32] over n = 5376): 16x32 block tile, 128 threads each with 2x2 "
                                 "independent chains over n ascending from +0, 32 steps per slab double-buffered in "
                                 "shared memory with register prefetch"),
       &launch_bwd_dx_f32_simt_narrow},
      {make_by_shape_variant(
           "dx",
           "SIMT tile of dX = G * W chosen by shape (kernels/fwd_f32_simt_by_shape.cu, the forward by-shape "
           "template with W read output-contiguous): tiles from 4x16 (one chain per thread) to 64x64, and the "
           "production 128x128 dX tile; the forward's rule on dX [M, K]. One __fmaf_rn chain per output over n "
           "ascending from +0: the bits do not depend on the tile",
           4, 16, 16, 256),
       &launch_bwd_dx_f32_simt_by_shape},
      {make_bf16_variant("dx", 90, 90, kBf16DxDescription), &launch_bwd_dx_bf16_wmma_32x32x16},
      {make_bf16_variant("dx", 80, 89, kBf16DxDescription), &launch_bwd_dx_bf16_wmma_32x32x16},
      {make_wgmma_dx_variant(), &launch_bwd_dx_bf16_wgmma_128x256x64},
  };
  return entries;
}

const std::vector<BackwardWeightEntry>& backward_weight_entries() {
  static const std::vector<BackwardWeightEntry> entries = {
      {make_variant("sm80.bwd.dw.f32.fma.simt.128x128x16", "bwd.dw.f32.fma-chain/1", false,
                    "production SIMT tile of dW = G^T * X: 128x128 block tile of dW, 16 tokens per slab, 256 "
                    "threads with 8x8 register micro-tiles; G and X rows read as they lie, in place when the "
                    "rows are already in canonical order, else through a device index of the canonical order "
                    "(a gather on the fly); one __fmaf_rn chain per output over the active tokens in "
                    "ascending key order, from +0 or, with accumulate, from dW; db: one __fadd_rn chain per "
                    "column over the same tokens, staged through shared memory"),
       &launch_bwd_dw_f32_simt_128x128x16, TokenOrder::canonical},
      {make_narrow_variant("dw", "narrow-output SIMT tile of dW = G^T * X for few output rows or columns and many "
                                 "tokens (the seed's dW [5376, 32] and [32, 5376]): 16x32 block tile, 128 threads each "
                                 "with 2x2 independent chains over the active tokens in canonical order (in place or "
                                 "gathered), from +0 or, with accumulate, from dW; db chains run in the same kernel"),
       &launch_bwd_dw_f32_simt_narrow, TokenOrder::canonical},
      {make_by_shape_variant(
           "dw",
           "SIMT tile of dW = G^T * X chosen by shape (kernels/bwd_dw_f32_simt_by_shape.cu): threads of 4x4 chains in "
           "blocks of one to eight warps, the narrow 16x32 tile and the production 128x128 tile, the one with the "
           "fewest clocks per token by a model of shared-memory delivery, issue and chain latency "
           "(kernels/by_shape_cost.h); G and X rows read as they lie, in place or gathered through the device index "
           "of the canonical order. One __fmaf_rn chain per output over the active tokens in ascending key order, "
           "from +0 or, with accumulate, from dW; db: one __fadd_rn chain per column. The bits do not depend on "
           "the tile",
           16, 16, 32, 32),
       &launch_bwd_dw_f32_simt_by_shape, TokenOrder::canonical},
      {make_variant("mutant.bwd.dw.f32.call-order", "bwd.dw.f32.fma-chain/1", true,
                    "MUTANT: the production dW/db tile, but the active rows are reduced in call order: padding "
                    "is dropped and the keys are validated, yet never sorted (the seed's original defect)"),
       &launch_bwd_dw_f32_simt_128x128x16, TokenOrder::active_rows_in_call_order},
      {make_bf16_variant("dw", 90, 90, kBf16DwDescription), &launch_bwd_dw_bf16_wmma_32x32x16, TokenOrder::canonical},
      {make_bf16_variant("dw", 80, 89, kBf16DwDescription), &launch_bwd_dw_bf16_wmma_32x32x16, TokenOrder::canonical},
      {make_wgmma_dw_variant(), &launch_bwd_dw_bf16_wgmma_128x256x64, TokenOrder::canonical},
  };
  return entries;
}

}  // namespace detail

namespace {

const detail::BackwardWeightEntry* find_weight_entry(std::string_view id) {
  for (const auto& e : detail::backward_weight_entries())
    if (e.variant.id == id) return &e;
  return nullptr;
}

Status unknown(const char* kind, std::string_view id) {
  std::string known;
  for (const KernelVariant& v : *(std::string_view(kind) == "backward-data" ? &backward_data_variants()
                                                                              : &backward_weight_variants()))
    known += (known.empty() ? "" : ", ") + v.id;
  return Status::error(StatusCode::unknown_variant,
                       std::string("no ") + kind + " variant with id \"" + std::string(id) + "\" (registered: " + known + ")");
}

Status launch_failed(const std::string& what, cudaError_t e) {
  (void)cudaGetLastError();
  return Status::error(StatusCode::launch_failed, what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// Launches a validated dW call. When the rows are not reduced in place, the order goes to a device
// index array that lives, stream-ordered, until the kernels that read it have run.
Status run_weight(const detail::BackwardWeightEntry& entry, detail::BackwardWeightLaunch p, const std::vector<int>& order,
                  bool in_place) {
  if (in_place || order.empty()) {
    p.rows = nullptr;
    const cudaError_t e = entry.launch(p);
    return e == cudaSuccess ? Status::success() : launch_failed("launch of " + entry.variant.id, e);
  }
  const std::size_t bytes = order.size() * sizeof(int);
  void* rows = nullptr;
  bool stream_ordered = true;
  cudaError_t e = cudaMallocAsync(&rows, bytes, p.stream);
  if (e != cudaSuccess) {  // no memory pools on this device or driver: a plain allocation
    (void)cudaGetLastError();
    stream_ordered = false;
    if ((e = cudaMalloc(&rows, bytes)) != cudaSuccess) return launch_failed("allocating the row order", e);
  }
  auto release = [&] {
    if (stream_ordered) {
      (void)cudaFreeAsync(rows, p.stream);
    } else {
      (void)cudaStreamSynchronize(p.stream);
      (void)cudaFree(rows);
    }
  };
  // From pageable memory: the copy has taken the host data when the call returns.
  if ((e = cudaMemcpyAsync(rows, order.data(), bytes, cudaMemcpyHostToDevice, p.stream)) != cudaSuccess) {
    Status s = launch_failed("uploading the row order", e);
    release();
    return s;
  }
  p.rows = static_cast<const int*>(rows);
  e = entry.launch(p);
  Status s = e == cudaSuccess ? Status::success() : launch_failed("launch of " + entry.variant.id, e);
  release();
  return s;
}

}  // namespace

const std::vector<KernelVariant>& backward_data_variants() {
  static const std::vector<KernelVariant> variants = [] {
    std::vector<KernelVariant> v;
    for (const auto& e : detail::backward_data_entries()) v.push_back(e.variant);
    return v;
  }();
  return variants;
}

const std::vector<KernelVariant>& backward_weight_variants() {
  static const std::vector<KernelVariant> variants = [] {
    std::vector<KernelVariant> v;
    for (const auto& e : detail::backward_weight_entries()) v.push_back(e.variant);
    return v;
  }();
  return variants;
}

const KernelVariant* find_backward_variant(std::string_view id) {
  for (const auto* list : {&backward_data_variants(), &backward_weight_variants()})
    for (const KernelVariant& v : *list)
      if (v.id == id) return &v;
  return nullptr;
}

Status backward_data(std::string_view variant_id, const BackwardDataArgs& args) {
  const detail::BackwardDataEntry* entry = nullptr;
  for (const auto& e : detail::backward_data_entries())
    if (e.variant.id == variant_id) entry = &e;
  if (!entry) return unknown("backward-data", variant_id);
  detail::BackwardDataLaunch p;
  if (Status s = detail::validate_backward_data(entry->variant, args, &p); !s.ok()) return s;
  const cudaError_t e = entry->launch(p);
  return e == cudaSuccess ? Status::success() : launch_failed("launch of " + entry->variant.id, e);
}

Status backward_weight(std::string_view variant_id, const BackwardWeightArgs& args) {
  const detail::BackwardWeightEntry* entry = find_weight_entry(variant_id);
  if (!entry) return unknown("backward-weight", variant_id);
  detail::BackwardWeightLaunch p;
  std::vector<int> order;
  bool in_place = true;
  if (Status s = detail::validate_backward_weight(*entry, args, &p, &order, &in_place); !s.ok()) return s;
  return run_weight(*entry, p, order, in_place);
}

Status plan_backward_weight(std::string_view variant_id, const BackwardWeightArgs& args, BackwardWeightPlan* plan) {
  const detail::BackwardWeightEntry* entry = find_weight_entry(variant_id);
  if (!entry) return unknown("backward-weight", variant_id);
  detail::BackwardWeightLaunch p;
  std::vector<int> order;
  bool in_place = true;
  if (Status s = detail::validate_backward_weight(*entry, args, &p, &order, &in_place); !s.ok()) return s;
  plan->tokens = args.x.rows;
  plan->active_tokens = static_cast<std::int64_t>(order.size());
  plan->in_place = in_place || order.empty();
  return Status::success();
}

}  // namespace ordo::kernels
