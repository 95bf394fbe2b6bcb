#pragma once
// Backward golden vectors: small dX and dW/db problems with the output bits a real GPU produced for one
// backward variant (`ordo record-golden` writes them; tests/host/golden_backward_replay_test.cpp replays
// them through the contract's host emulator on every CI run). Format (ordo.golden-backward/1):
// corpus/README.md.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backward_problem.h"
#include "protocol/golden_corpus.h"

namespace ordo::protocol {

struct GoldenBackwardCase {
  std::string family;                       // value family the inputs came from
  std::optional<BackwardDataProblem> data;  // a dX case ...
  std::optional<BackwardWeightProblem> weight;  // ... or a dW/db case (keys and padding included)
  std::vector<float> dx;                    // the GPU's dX [M, K] (data cases)
  BackwardWeightResult dw;                  // the GPU's dW [N, K] and db [N] (weight cases)
};

struct GoldenBackwardFile : GoldenSource {
  std::vector<GoldenBackwardCase> cases;
};

inline constexpr std::string_view kGoldenBackwardSchema = "ordo.golden-backward/1";

void write_golden_backward_file(const GoldenBackwardFile& f, const std::string& path);

// The strict readers (protocol/strict_json.h): every failure is a CorpusError (a std::runtime_error)
// "FILE: case N: FIELD: what is wrong", and nothing else is thrown for any input. Shapes are integers
// in [1, 2^31] (T in [0, 2^31]), every array exactly its shape (counts through checked_product), keys
// of width 2 or 3 with T * width int64 values; each problem read passes ordo::validate
// (core/backward_problem.h: padding rows with a zero gradient, no duplicate key, bf16 operands under a
// bf16 contract), and a case's kind must match a built-in contract's operation. `where` names the source.
GoldenBackwardFile parse_golden_backward_text(std::string_view text, const std::string& where);
GoldenBackwardFile read_golden_backward_file(const std::string& path);  // files over 256 MiB refused unread

}  // namespace ordo::protocol
