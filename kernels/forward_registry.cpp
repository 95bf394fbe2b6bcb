// Registry of the forward variants, dispatch, and the device query.
#include <cuda_runtime_api.h>

#include <string>

#include "kernels/forward_api.h"
#include "kernels/forward_internal.h"

namespace ordo::kernels {
namespace detail {

namespace {

constexpr const char* kContract = "fwd.f32.fma-chain/1";

KernelVariant make_variant(std::string id, int tm, int tn, int tk, int threads, int stages, bool mutant,
                           std::string description) {
  KernelVariant v;
  v.id = std::move(id);
  v.contract_id = kContract;
  v.tile_m = tm;
  v.tile_n = tn;
  v.tile_k = tk;
  v.threads = threads;
  v.stages = stages;
  v.instruction = "ffma";
  v.sm.min = 80;
  v.is_mutant = mutant;
  v.description = std::move(description);
  return v;
}

KernelVariant make_bf16_variant(int arch, int max_sm) {
  KernelVariant v;
  v.id = "sm" + std::to_string(arch) + ".fwd.bf16.mma-sync.32x32x16";
  v.contract_id = "fwd.bf16.tc-fdpa-sm" + std::to_string(arch) + "/1";
  v.tile_m = 32;
  v.tile_n = 32;
  v.tile_k = 16;
  v.threads = 128;
  v.stages = 1;
  v.instruction = "mma.sync.m16n8k16 (wmma)";
  v.sm.min = arch;
  v.sm.max = max_sm;
  v.operand_dtype = DType::bf16;
  v.bf16_output = true;
  v.description = "portable BF16 tensor-core baseline: 4 warps, each a 16x16 wmma tile over k steps of 16 staged in "
                  "shared memory; the accumulator is the C operand of every instruction; bias added after in FP32";
  return v;
}

KernelVariant make_wgmma_variant() {
  KernelVariant v;
  v.id = "sm90.fwd.bf16.wgmma.128x256x64";
  v.contract_id = "fwd.bf16.tc-fdpa-sm90/1";
  v.tile_m = 128;
  v.tile_n = 256;
  v.tile_k = 64;
  v.threads = 384;
  v.stages = 4;
  v.instruction = "wgmma.mma_async.m64n256k16 (sm_90a)";
  v.sm.min = 90;
  v.sm.max = 90;
  v.operand_dtype = DType::bf16;
  v.bf16_output = true;
  v.k_multiple = 8;
  v.operand_alignment = 16;
  v.description = "Hopper BF16 tile: persistent blocks; a TMA producer warpgroup feeds a "
                  "4-stage ring of 128x64 X and 256x64 W tiles, two consumer "
                  "warpgroups chain wgmma m64n256k16 over k ascending with the accumulator as C; a half-full last "
                  "wave runs as 128x128 halves; bias added after in FP32; needs K % 8 == 0 and 16-byte aligned X, W";
  return v;
}

}  // namespace

const std::vector<VariantEntry>& variant_entries() {
  static const std::vector<VariantEntry> entries = {
      {make_variant("sm80.fwd.f32.fma.simt.128x128x16", 128, 128, 16, 256, 2, false,
                    "production SIMT SGEMM (TN): 128x128 block tile, BK=16, 256 threads with 8x8 register "
                    "micro-tiles, operands transposed into double-buffered shared memory with register "
                    "prefetch; one __fmaf_rn chain per output in ascending k"),
       &launch_fwd_f32_simt_128x128x16},
      {make_variant("sm80.fwd.f32.fma.simt.narrow.16x32x32", 16, 32, 32, 128, 2, false,
                    "narrow-output SIMT tile for few output columns and a long K (the seed's audio rows, N = 32, "
                    "K = 5376), where the 128x128 tile leaves most SMs idle: 16x32 outputs per block, 128 threads "
                    "with 2x2 register micro-tiles, X and W transposed into double-buffered shared memory with a "
                    "two-slab register prefetch; one __fmaf_rn chain per output in ascending k, then the bias"),
       &launch_fwd_f32_simt_narrow},
      {make_variant("sm80.fwd.f32.fma.simt.by-shape", 4, 16, 8, 256, 4, false,
                    "SIMT tile chosen by shape (kernels/fwd_f32_simt_by_shape.cu): one cp.async-pipelined kernel template over "
                    "block tiles from 4x16 (one chain per thread, slabs of 128 k) to 64x64 (4x4 chains per thread), plus "
                    "the production 128x128 tile; the rule takes, in order of reuse, the first tile no wider than the "
                    "output that fills the SMs evenly (>= 0.9 blocks per SM, last wave >= 80% full), else the smallest. "
                    "One __fmaf_rn chain per output in ascending k, then the bias: the bits do not depend on the tile"),
       &launch_fwd_f32_simt_by_shape},
      {make_variant("sm80.fwd.f32.fma.simt.naive16x16", 16, 16, 1, 256, 1, false,
                    "reference-shaped SIMT kernel: one thread per output, 16x16 thread blocks, plain "
                    "ascending-k __fmaf_rn loop; shows the bits do not depend on the tile"),
       &launch_fwd_f32_simt_naive16x16},
      {make_variant("mutant.fwd.f32.k-reversed", 16, 16, 1, 256, 1, true,
                    "MUTANT: the chain runs over k descending (K-1 .. 0) instead of ascending"),
       &launch_mutant_k_reversed},
      {make_variant("mutant.fwd.f32.k-split-halves", 16, 16, 1, 256, 1, true,
                    "MUTANT: two chains from +0 over k in [0,K/2) and [K/2,K), joined with one __fadd_rn"),
       &launch_mutant_k_split_halves},
      {make_variant("mutant.fwd.f32.bias-first", 16, 16, 1, 256, 1, true,
                    "MUTANT: the chain starts from b[n] instead of +0 and no bias is added at the end"),
       &launch_mutant_bias_first},
      {make_bf16_variant(90, 90), &launch_fwd_bf16_wmma_32x32x16},
      {make_bf16_variant(80, 89), &launch_fwd_bf16_wmma_32x32x16},
      {make_wgmma_variant(), &launch_fwd_bf16_wgmma_128x256x64},
  };
  return entries;
}

}  // namespace detail

const std::vector<KernelVariant>& forward_variants() {
  static const std::vector<KernelVariant> variants = [] {
    std::vector<KernelVariant> v;
    for (const auto& e : detail::variant_entries()) v.push_back(e.variant);
    return v;
  }();
  return variants;
}

const KernelVariant* find_forward_variant(std::string_view id) {
  for (const KernelVariant& v : forward_variants())
    if (v.id == id) return &v;
  return nullptr;
}

Status forward(std::string_view variant_id, const ForwardArgs& args) {
  const detail::VariantEntry* entry = nullptr;
  for (const auto& e : detail::variant_entries())
    if (e.variant.id == variant_id) entry = &e;
  if (!entry)
    return Status::error(StatusCode::unknown_variant,
                         "no forward variant with id \"" + std::string(variant_id) + "\"");

  detail::LaunchParams params;
  Status s = detail::validate_forward(entry->variant, args, &params);
  if (!s.ok()) return s;

  const cudaError_t e = entry->launch(params);
  if (e != cudaSuccess)
    return Status::error(StatusCode::launch_failed, "launch of " + entry->variant.id + " failed: " +
                                                        cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  return Status::success();
}

DeviceInfo device_info(int ordinal) {
  DeviceInfo info;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // do not leave the error for a later, unrelated check
    info.reason = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return info;
  }
  if (count <= 0) {
    info.reason = "cudaGetDeviceCount reported no CUDA device";
    return info;
  }
  if (ordinal < 0 || ordinal >= count) {
    info.reason = "device ordinal " + std::to_string(ordinal) + " is out of range (" + std::to_string(count) +
                  " device(s))";
    return info;
  }
  cudaDeviceProp prop{};
  e = cudaGetDeviceProperties(&prop, ordinal);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    info.reason = std::string("cudaGetDeviceProperties: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    return info;
  }
  info.present = true;
  info.name = prop.name;
  info.sm = prop.major * 10 + prop.minor;
  info.sm_count = prop.multiProcessorCount;
  if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess) {
    (void)cudaGetLastError();
    info.driver_version = 0;
  }
  if (cudaRuntimeGetVersion(&info.runtime_version) != cudaSuccess) {
    (void)cudaGetLastError();
    info.runtime_version = 0;
  }
  return info;
}

}  // namespace ordo::kernels
