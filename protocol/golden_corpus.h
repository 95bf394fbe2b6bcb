#pragma once
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/problem.h"

namespace ordo::protocol {

class StrictObject;

// Golden vectors: small problems with the output bits a real GPU produced for one kernel variant.
// CI has no GPU; replaying these through the host emulator of the variant's contract checks the
// emulator against hardware bits on every run. Format (ordo.golden/1): corpus/README.md.
struct GoldenCase {
  std::string family;  // value family the inputs came from
  ForwardProblem problem;
  std::vector<float> y;  // the GPU's output, [M, N]
};

// Where the bits of a golden file came from; the head of both golden formats (ordo.golden/1 and
// ordo.golden-backward/1).
struct GoldenSource {
  std::string variant;
  std::string contract;
  std::string gpu;     // e.g. "NVIDIA H200, sm_90, driver 13.0"
  std::string commit;  // ordo commit that recorded it
};

struct GoldenFile : GoldenSource {
  std::vector<GoldenCase> cases;
};

inline constexpr std::string_view kGoldenSchema = "ordo.golden/1";

void write_golden_file(const GoldenFile& f, const std::string& path);

// The head of a golden file as JSON: the schema and the source, written once for both formats.
nlohmann::json golden_head_json(std::string_view schema, const GoldenSource& source);
// The JSON of a golden file written to `path` (std::runtime_error when it cannot be opened).
void write_golden_json(const nlohmann::json& j, const std::string& path);
// Reads the head of a golden file (its schema exactly `schema`) into `source`, and returns its cases array.
const nlohmann::json& read_golden_head(StrictObject& h, std::string_view schema, GoldenSource& source);

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
