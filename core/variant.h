#pragma once
#include <string>

#include "core/dtype.h"

namespace ordo {

// The SMs whose arithmetic a contract describes for a variant or subject: min .. max (max 0: any newer).
struct SmRange {
  int min = 0;  // e.g. 80 for sm_80
  int max = 0;  // 0: any newer SM; else the last SM whose arithmetic matches the contract
  bool contains(int sm) const { return sm >= min && (max == 0 || sm <= max); }
  // "sm_80+", "sm_80..sm_89"
  std::string text() const { return "sm_" + std::to_string(min) + (max ? "..sm_" + std::to_string(max) : "+"); }
};

// A kernel variant (a "tile"): one registered implementation of a contract. Adding a tile means
// registering a variant; the harness then qualifies it against the contract's emulator.
struct KernelVariant {
  std::string id;           // spells out arch, types, instruction and tile, e.g. "sm80.fwd.f32.fma.simt.128x128x16"
  std::string contract_id;  // the contract whose bits it must reproduce
  int tile_m = 0, tile_n = 0, tile_k = 0;
  int threads = 0;
  int stages = 0;
  std::string instruction;  // "ffma" (FP32 FMA path), "mma.sync", "wgmma"
  SmRange sm;               // the SMs it runs on: the range whose arithmetic its contract describes
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

  // Whether a GPU of this SM (e.g. 90) may run it: every launch, listing and test asks this.
  bool runs_on(int device_sm) const { return sm.contains(device_sm); }
};

}  // namespace ordo
