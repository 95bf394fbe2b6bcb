#pragma once
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/problem.h"

namespace ordo::protocol {

// Golden vectors: small problems with the output bits a real GPU produced for one kernel variant.
// CI has no GPU; replaying these through the host emulator of the variant's contract checks the
// emulator against hardware bits on every run. Format (ordo.golden/1): corpus/README.md.
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

inline constexpr std::string_view kGoldenSchema = "ordo.golden/1";

void write_golden_file(const GoldenFile& f, const std::string& path);

// Values as 8-hex-digit binary32 bit patterns (exact: NaN payloads and signed zeros included).
nlohmann::json to_hex(const std::vector<float>& v);

// The strict readers (protocol/strict_json.h): every failure is a CorpusError (a std::runtime_error)
// "FILE: case N: FIELD: what is wrong", and nothing else is thrown for any input. A case read has
// M, N, K in [1, 2^31], every array exactly its shape (counts through checked_product), so that its
// problem passes ForwardProblem::shapes_consistent(); the contract's own checks (bf16 operands, output
// dtype, bias) are the emulator's (check_dot_problem), at replay. `where` names the source.
GoldenFile parse_golden_text(std::string_view text, const std::string& where);
GoldenFile read_golden_file(const std::string& path);  // files over 256 MiB are refused unread

}  // namespace ordo::protocol
