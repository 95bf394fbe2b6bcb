#pragma once
#include <string>

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
  bool is_mutant = false;   // deliberately broken, for the harness self-test only
  std::string description;
};

}  // namespace ordo
