#pragma once
// The arithmetic the self-test's mutants are written in, compiled twice: by nvcc into the GPU mutants
// (kernels/mutants/*.cu) and by the host compiler into their host twins (subjects/mutants/), so that a
// mutant's defect is one piece of code whichever machine runs it, and the self-test that kills the host
// twin in CI kills the same arithmetic the GPU runs. The host side follows the GPU's rules exactly: one
// rounding per operation (std::fma is fused; a * b and a + b round separately under -ffp-contract=off),
// subnormals kept (no FTZ/DAZ, as ordo's kernels are built), and every NaN result the canonical
// 0x7fffffff the GPU returns (x86 would propagate payloads). Plain C++17: device code has no C++20.
#include <cstdint>
#include <cstring>
#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#if defined(__CUDACC__)
#define ORDO_MUTANT_HD __host__ __device__ __forceinline__
#else
#define ORDO_MUTANT_HD inline
#endif

namespace ordo::mutants {

ORDO_MUTANT_HD std::uint32_t bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

ORDO_MUTANT_HD float from_bits(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

ORDO_MUTANT_HD bool is_nan(float f) { return (bits(f) & 0x7FFFFFFFu) > 0x7F800000u; }
ORDO_MUTANT_HD float canonical_nan() { return from_bits(0x7FFFFFFFu); }
ORDO_MUTANT_HD float gpu_nan(float f) { return is_nan(f) ? canonical_nan() : f; }

// One correctly rounded operation each, round to nearest even, NaN results canonical.
ORDO_MUTANT_HD float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return gpu_nan(std::fma(a, b, c));
#endif
}
ORDO_MUTANT_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return gpu_nan(a + b);
#endif
}
ORDO_MUTANT_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return gpu_nan(a * b);
#endif
}

// A subnormal (or zero) becomes the zero of its sign: what FTZ does to results and DAZ to operands.
ORDO_MUTANT_HD float flush_subnormal(float f) {
  const std::uint32_t u = bits(f);
  return (u & 0x7F800000u) == 0 ? from_bits(u & 0x80000000u) : f;
}

// FP32 -> TF32 as cvt.rna.tf32.f32 does it: 10 fraction bits, round to nearest with ties away from zero;
// NaN and Inf unchanged. The tensor-core TF32 path feeds such operands to the FMA path's place.
ORDO_MUTANT_HD float to_tf32(float f) {
  const std::uint32_t u = bits(f);
  if ((u & 0x7F800000u) == 0x7F800000u) return f;
  return from_bits((u + 0x1000u) & 0xFFFFE000u);
}

// FP32 -> BF16 with round to nearest even (cvt.rn.bf16.f32), as the float of equal value; every NaN is
// BF16 0x7fff. The same bits as oracle::round_to_bf16, written again here because kernels never include
// the oracle.
ORDO_MUTANT_HD float round_bf16_rne(float f) {
  const std::uint32_t u = bits(f);
  if (is_nan(f)) return from_bits(0x7FFF0000u);
  const std::uint32_t lsb = (u >> 16) & 1u;
  return from_bits((u + 0x7FFFu + lsb) & 0xFFFF0000u);
}

// FP32 -> BF16 by dropping the low 16 bits (round toward zero): a cast written as `bits >> 16`.
ORDO_MUTANT_HD float truncate_bf16(float f) {
  if (is_nan(f)) return from_bits(0x7FFF0000u);
  return from_bits(bits(f) & 0xFFFF0000u);
}

// x86 SSE/AVX NaN rules, which a kernel ported from CPU code (or a select on isnan) reproduces: an
// operation with a NaN operand returns the first NaN operand, quieted, payload and sign kept; an invalid
// operation on non-NaN operands (Inf - Inf, 0 * Inf) returns the x86 default NaN 0xffc00000.
ORDO_MUTANT_HD float quiet(float f) { return from_bits(bits(f) | 0x00400000u); }
ORDO_MUTANT_HD float x86_fma(float a, float b, float c) {
  if (is_nan(a)) return quiet(a);
  if (is_nan(b)) return quiet(b);
  if (is_nan(c)) return quiet(c);
  const float r = fma_rn(a, b, c);
  return is_nan(r) ? from_bits(0xFFC00000u) : r;
}
ORDO_MUTANT_HD float x86_add(float a, float b) {
  if (is_nan(a)) return quiet(a);
  if (is_nan(b)) return quiet(b);
  const float r = add_rn(a, b);
  return is_nan(r) ? from_bits(0xFFC00000u) : r;
}

}  // namespace ordo::mutants
