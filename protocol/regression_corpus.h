#pragma once
// Hand-written regression cases (`ordo.regression/1`, corpus/regressions/*.json; corpus/README.md):
// one dW/db problem (T token rows of X and G, optional logical keys) and cases that each take some of
// its rows in a stated order, with or without the keys, and write down the dW and db bits expected.
// tests/host/backward_regression_test.cpp checks every expected bit against the emulator and the
// scalar reference; fuzz/fuzz_regression.cpp feeds the reader arbitrary bytes.
#include <string>
#include <string_view>
#include <vector>

#include "core/backward_problem.h"

namespace ordo::protocol {

inline constexpr std::string_view kRegressionSchema = "ordo.regression/1";

struct RegressionCase {
  std::string order;  // what the case shows, for messages ("call order: 1, 2^-24, -1")
  BackwardWeightProblem problem;  // the file's rows in the case's order; keys only with use_keys
  BackwardWeightResult expected;  // dW [N, K], and db [N] when with_bias_grad
};

struct RegressionFile {
  std::string name;
  std::string contract;  // a built-in backward_weight contract id
  std::string description;
  std::vector<RegressionCase> cases;
};

// Strict (protocol/strict_json.h): every failure is a CorpusError "FILE: case N: FIELD: what is
// wrong" and nothing else is thrown for any input. Fields: schema, name, contract (a built-in dW
// contract; its operand dtype decides bf16), description and values (text), T in [1, 2^31], N, K in
// [1, 2^31], x [T][K] and g [T][N] as rows of hex values, optional keys {width 2 or 3, rows [T][width]
// int64}, with_bias_grad, and cases[]: rows (distinct indices in [0, T)), use_keys (true needs keys),
// order (text), dw [N][K] and db [N] (present exactly when with_bias_grad). Every problem built passes
// ordo::validate. `where` names the source in messages.
RegressionFile parse_regression_text(std::string_view text, const std::string& where);
RegressionFile read_regression_file(const std::string& path);  // files over 256 MiB refused unread

}  // namespace ordo::protocol
