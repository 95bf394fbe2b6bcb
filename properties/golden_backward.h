#pragma once
// Backward golden vectors: small dX and dW/db problems with the output bits a real GPU produced for one
// backward variant (`ordo record-golden` writes them; tests/host/golden_backward_replay_test.cpp replays
// them through the contract's host emulator on every CI run). Format (ordo.golden-backward/1):
// corpus/README.md.
#include <optional>
#include <string>
#include <vector>

#include "core/backward_problem.h"

namespace ordo::properties {

struct GoldenBackwardCase {
  std::string family;                       // value family the inputs came from
  std::optional<BackwardDataProblem> data;  // a dX case ...
  std::optional<BackwardWeightProblem> weight;  // ... or a dW/db case (keys and padding included)
  std::vector<float> dx;                    // the GPU's dX [M, K] (data cases)
  BackwardWeightResult dw;                  // the GPU's dW [N, K] and db [N] (weight cases)
};

struct GoldenBackwardFile {
  std::string variant;
  std::string contract;
  std::string gpu;
  std::string commit;
  std::vector<GoldenBackwardCase> cases;
};

void write_golden_backward_file(const GoldenBackwardFile& f, const std::string& path);
GoldenBackwardFile read_golden_backward_file(const std::string& path);  // throws std::runtime_error

}  // namespace ordo::properties
