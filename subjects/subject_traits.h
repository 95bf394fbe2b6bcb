#pragma once
#include <string>
#include <vector>

#include "core/contract.h"
#include "core/dtype.h"
#include "core/variant.h"  // SmRange

namespace ordo {

// What a subject under test declares about itself: the suite is built from these traits alone, never
// from registry ids, so an ordo variant, a plugin and a host emulator are qualified the same way.
struct SubjectTraits {
  std::string id;    // what reports call it: a variant id, "plugin:<name>/<operation>", "host.emulator:<contract>"
  std::string kind;  // "cuda", "plugin", "emulator", "scalar-reference"
  Contract contract;  // the arithmetic it claims (a built-in contract or one from a file)
  DType operand_dtype = DType::f32;
  std::vector<DType> output_dtypes{DType::f32};
  // Forward: the reduced dimension K must be a multiple of this. Backward (TMA-fed tiles): every operand
  // row, so dX's N and K, and dW's N and K; the generated cases and shards respect it
  // (properties::backward_case_options).
  int k_multiple = 1;
  int operand_alignment = 0;  // bytes every operand pointer needs (0: the element size)
  SmRange sm;  // device subjects: the SM range (max 0: any newer)
  bool device_buffers = false;  // runs on a GPU (needs one to run at all)
  bool fail_closed = false;     // promises fail-closed checks: its fail-closed rows run
  bool accumulate = false;      // backward_weight: continues chains across calls (microbatches)
  bool is_mutant = false;       // deliberately broken, for the self-test: the suite must catch it
  std::string description;

  bool allows_output(DType t) const;
};

// Why a subject cannot run here, or "" when it can. `gpu_present` and `device_sm` describe the machine
// (device_sm 0: unknown); `gpu_absent_reason` is quoted when a device subject finds no GPU.
std::string not_runnable_reason(const SubjectTraits& t, bool gpu_present, int device_sm,
                                const std::string& gpu_absent_reason);

}  // namespace ordo
