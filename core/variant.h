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
  DType operand_dtype = DType::f32;  // X and W; the bias and Y are f32 for every contract so far
  bool is_mutant = false;   // deliberately broken, for the harness self-test only
  std::string description;
};

}  // namespace ordo
