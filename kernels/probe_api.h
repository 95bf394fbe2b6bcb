#pragma once
// Micro-kernels that expose one tensor-core instruction to the host, for `ordo probe`. No CUDA
// types here.
#include <cstdint>
#include <vector>

#include "core/status.h"

namespace ordo::kernels {

// Runs `tiles` independent 16x16x16 BF16 tensor-core products D = A * B + C, one warp per tile, through
// nvcuda::wmma (which compiles to two mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 per tile on sm_80 and
// sm_90: every output is one m16n8k16 instruction's result over k = 0..15 with C as its accumulator).
// a: [tiles][16 m][16 k] bf16 bits; bt: [tiles][16 n][16 k] bf16 bits (B transposed, k contiguous);
// c, d: [tiles][16 m][16 n] FP32.
Status run_bf16_mma_tiles(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                          const std::vector<float>& c, std::vector<float>& d, int tiles);

// The instruction forms of the sm_90a wgmma tile (kernels/bf16_wgmma_128x256x64.cu): the N of
// wgmma.mma_async.m64nNk16 and B's layout. The forward uses six N with a K-major B (n128 and n64
// for the halves and quarters of a last wave, n168 for its 128x168 units, n32 for the two consumers of the
// small-M kernel's quarters, n48 for its 48-column units), dX three N with an N-major B
// (imm-trans-b), dW n256 and n128 with an M-major A and an N-major B (imm-trans-a, imm-trans-b).
enum class WgmmaForm {
  n256_b_k_major,
  n128_b_k_major,
  n256_b_n_major,
  n128_b_n_major,
  n256_a_m_major_b_n_major,
  n128_a_m_major_b_n_major,
  n64_b_k_major,
  n64_b_n_major,
  n168_b_k_major,
  n32_b_k_major,
  n48_b_k_major
};
const char* wgmma_form_name(WgmmaForm form);

// The same tiles through the sm_90a wgmma tile in probe mode, in one instruction form: block b runs the
// variants' own pipeline (TMA, 128-byte swizzle, the form's instruction) on rows and columns 16b.. of A
// and B with K = 16, so every output is one wgmma instruction's result, and keeps the 16x16 corner. With
// accumulator_disabled the instruction runs with scale-d = 0 (C is ignored); otherwise C is loaded into
// the accumulators and passed with scale-d = 1. Needs an sm_90 device.
Status run_bf16_wgmma_tiles(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                            const std::vector<float>& c, std::vector<float>& d, int tiles, bool accumulator_disabled,
                            WgmmaForm form = WgmmaForm::n256_b_k_major);

}  // namespace ordo::kernels
