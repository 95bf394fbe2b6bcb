#pragma once
#include <nlohmann/json_fwd.hpp>

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

// Values as 8-hex-digit binary32 bit patterns (exact: NaN payloads and signed zeros included), and back;
// from_hex throws std::runtime_error unless the array holds `expected` values.
nlohmann::json to_hex(const std::vector<float>& v);
std::vector<float> from_hex(const nlohmann::json& a, std::size_t expected, const char* what);
GoldenFile read_golden_file(const std::string& path);  // throws std::runtime_error on a malformed file

}  // namespace ordo::properties
