#pragma once
// Launch API of the production fixed-order backward GEMMs of Y = X * W^T + b:
//   backward_data:   dX [M,K] = G [M,N] * W [N,K]
//   backward_weight: dW [N,K] = G^T * X, db [N] = sum_t G
// Two families of variants (backward_data_variants(), backward_weight_variants()):
//   FP32, any sm_80 or newer GPU: f32 operands, contracts bwd.dx.f32.fma-chain/1, bwd.dw.f32.fma-chain/1;
//   BF16 tensor cores: bf16 operands (G, W, X as uint16 bit patterns), f32 outputs, one variant per SM
//     range whose arithmetic its contract describes: "sm90.bwd.{dx,dw}.bf16.mma-sync.32x32x16" (sm_90
//     only; bwd.{dx,dw}.bf16.tc-fdpa-sm90/1) and "sm80.bwd.{dx,dw}.bf16.mma-sync.32x32x16" (sm_80 ..
//     sm_89; -sm80/1), and on Hopper "sm90.bwd.{dx,dw}.bf16.wgmma.128x256x64" (TMA-fed: N % 8 == 0,
//     K % 8 == 0, 16-byte aligned operands). A variant refuses a GPU outside its range (unsupported_device).
// KernelVariant::operand_dtype says which operand dtype a variant takes; keys are always int64 and
// dX, dW, db always f32.
// Host code includes this header only; it has no CUDA types in it, so it compiles with a plain C++
// compiler. The kernels never include oracle code (and the oracle never includes this).
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"
#include "core/variant.h"
#include "kernels/forward_api.h"  // TensorRef, DeviceInfo

namespace ordo::kernels {

// A dense row-major output matrix in device memory (a vector is rows = 1).
struct OutputRef {
  void* data = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

struct BackwardDataArgs {
  TensorRef g;   // [M, N] the variant's operand dtype (f32 or bf16): the gradient of Y
  TensorRef w;   // [N, K] the variant's operand dtype: the forward weight
  OutputRef dx;  // [M, K] f32
  void* stream = nullptr;  // cudaStream_t; nullptr = the legacy default stream
  LaunchOptions options;   // how the variant runs, never what it computes (kernels/launch_options.h)
};

struct BackwardWeightArgs {
  TensorRef x;  // [T, K] the variant's operand dtype: the forward input (T >= 0; with T = 0, x and g may be null)
  TensorRef g;  // [T, N] the variant's operand dtype: the gradient of Y
  // Logical keys [T, 2] or [T, 3] int64 in device memory (rows = T, cols = the key width), or no keys
  // (data == nullptr, rows == 0, cols == 0): every row is then reduced, in call order. A row whose
  // first key column is negative is padding: dropped (its X never read), its G must be +-0.
  TensorRef keys;
  OutputRef dw;            // [N, K] f32
  OutputRef db;            // [1, N] f32, or data == nullptr for no bias gradient
  // false: every chain starts from +0. true: every chain starts from the current contents of dW (and
  // db), so calls over consecutive microbatches, in canonical order, continue one chain per element.
  //
  // FP32 variants: calls over consecutive microbatches (each microbatch's active keys after every
  // key of the earlier ones) give the bits of one whole-batch call, for any split.
  //
  // BF16 variants: dW folds the active tokens in instructions of 16 consecutive tokens, and a call
  // forms its groups starting at its own first active token (its last group zero filled). The GPU
  // API keeps no carry between calls, so a sequence of calls equals one whole-batch call only when
  // every call but the last has a multiple of 16 active tokens (padding rows do not count). Any
  // other split gives other, equally deterministic, bits: not those of the contract's whole-batch
  // reduction. The host session (oracle/backward_session.h) handles the general case with a carry
  // of up to 15 token rows. db is a chain of single additions and has no such restriction.
  bool accumulate = false;
  void* stream = nullptr;  // cudaStream_t; nullptr = the legacy default stream
  LaunchOptions options;   // how the variant runs, never what it computes (kernels/launch_options.h)
};

// What backward_weight does with a valid call.
struct BackwardWeightPlan {
  std::int64_t tokens = 0;         // T
  std::int64_t active_tokens = 0;  // rows reduced (T minus the padding rows)
  // true: the kernels read the rows where they lie, with no index array (no keys, keys already in
  // canonical order with no padding, or no active row); false: through a device index array of the
  // reduction order (a gather on the fly; X and G are never copied).
  bool in_place = true;
};

// Every registered variant of each kind; mutants have is_mutant = true.
const std::vector<KernelVariant>& backward_data_variants();
const std::vector<KernelVariant>& backward_weight_variants();
const KernelVariant* find_backward_variant(std::string_view id);  // either kind

// Validate everything first (fail-closed: on any error nothing is launched and no output is written),
// then launch on args.stream and return once the work is queued; errors raised by a kernel itself
// surface at the next synchronisation. Codes, first failure wins: unknown_variant, no_device,
// unsupported_device (the GPU is outside the variant's SM range), wrong_dtype (an operand not of the
// variant's operand dtype, an output not f32), bad_size, inconsistent_size, unsupported_shape (a TMA-fed
// variant: N or K not a multiple of its k_multiple), bad_keys (key shape or dtype),
// null_pointer, host_pointer, wrong_device, misaligned (a pointer not aligned to its element size, or
// to the variant's operand_alignment), aliasing, then, for backward_weight with keys, the key contents:
// duplicate_key, padding_gradient_nonzero. launch_failed when a CUDA call fails.
//
// backward_weight with keys reads them (and the G rows of padding tokens) back to the host on
// args.stream and waits for it before launching, so that work queued earlier on the stream is seen.
Status backward_data(std::string_view variant_id, const BackwardDataArgs& args);
Status backward_weight(std::string_view variant_id, const BackwardWeightArgs& args);

// The validation of backward_weight alone (the same checks and codes, key contents included), with
// what the call would do; launches nothing and writes no output.
Status plan_backward_weight(std::string_view variant_id, const BackwardWeightArgs& args, BackwardWeightPlan* plan);

}  // namespace ordo::kernels
