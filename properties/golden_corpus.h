#pragma once
#include <string>
#include <vector>

#include "core/problem.h"

namespace ordo::properties {

// Golden vectors: small problems with the output bits a real GPU produced for one kernel variant.
// CI has no GPU; replaying these through the host emulator of the variant's contract checks the
// emulator against hardware bits on every run. Format: corpus/README.md.
struct GoldenCase {
  std::string family;  // value family the inputs came from
  ForwardProblem problem;
  std::vector<float> y;  // the GPU's output, [M, N]
};

struct GoldenFile {
  std::string variant;
  std::string contract;
  std::string gpu;     // e.g. "NVIDIA H200, sm_90, driver 13.0"
  std::string commit;  // ordo commit that recorded it
  std::vector<GoldenCase> cases;
};

void write_golden_file(const GoldenFile& f, const std::string& path);
GoldenFile read_golden_file(const std::string& path);  // throws std::runtime_error on a malformed file

}  // namespace ordo::properties
