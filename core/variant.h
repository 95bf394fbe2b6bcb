#pragma once
#include <string>

#include "core/dtype.h"

namespace ordo {

// A kernel variant (a "tile"): one registered implementation of a contract. Adding a tile means
// registering a variant; the harness then qualifies it against the contract's emulator.
struct KernelVariant {
  std::string id;           // spells out arch, types, instruction and tile, e.g. "sm80.fwd.f32.fma.simt.128x128x16"
  std::string contract_id;  // the contract whose bits it must reproduce
  int tile_m = 0, tile_n = 0, tile_k = 0;
  int threads = 0;
  int stages = 0;
  std::string instruction;  // "ffma" (FP32 FMA path), "mma.sync", "wgmma"
  int min_sm = 0;           // e.g. 80 for sm_80
  int max_sm = 0;           // 0: any newer SM; else the last SM whose arithmetic matches the contract
  DType operand_dtype = DType::f32;  // X and W; the bias is always f32
  // Y is f32 for every variant; a variant with bf16_output also accepts a bf16 Y, written with one
  // round-to-nearest-even cast of the f32 result at the store (the contract's output rounding).
  bool bf16_output = false;
  // K must be a multiple of this (1: any K). TMA-fed variants need 16-byte row strides, so K % 8 == 0
  // for bf16 operands; other K fail closed with StatusCode::unsupported_shape.
  int k_multiple = 1;
  // X and W base pointers must be aligned to this many bytes (0: the element size). TMA needs 16.
  int operand_alignment = 0;
  bool is_mutant = false;   // deliberately broken, for the harness self-test only
  std::string description;
};

}  // namespace ordo
