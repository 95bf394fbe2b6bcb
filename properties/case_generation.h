#pragma once
// `ordo cases`: writes generated forward cases as .npy with a manifest (protocol/cases_manifest.h), for a
// program in any language to run; protocol::CaseFolder (protocol/case_folder.h) reads them back. Generation is
// deterministic in (seed, level, operands, shapes), so a folder can be regenerated anywhere and only the
// outputs moved.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/contract.h"
#include "protocol/cases_manifest.h"

namespace ordo::properties {

struct ShapeRequest {
  std::int64_t M = 0, N = 0, K = 0;  // an invariance group at N x K with batches up to M rows
};

struct CasesOptions {
  std::optional<Contract> contract;  // nullopt: "none" (operands and the output from the options)
  DType operands = DType::f32;
  int level = 1;
  std::uint64_t seed = 1;
  std::vector<ShapeRequest> shapes;  // empty: groups at generated shapes
  std::string y_dtype = "auto";      // "auto" (f32, half bf16 where the contract allows), "f32", "bf16"
  std::int64_t max_batch = 16384;    // the largest batch of an invariance group (batch_ladder)
  bool bias = true;                  // false: no case has a bias (e.g. a library whose bias is not FP32)
  std::string generated_by;
};

// Writes the folder (created if needed; existing case files are replaced) and returns its manifest.
// Throws std::invalid_argument for options that cannot be met (a bf16 Y under a contract without one).
protocol::CasesManifest generate_cases(const CasesOptions& options, const std::string& folder);

}  // namespace ordo::properties
