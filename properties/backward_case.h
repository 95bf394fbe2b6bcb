#pragma once
// Backward problems built from a forward case (shapes, value family, seed), so that every value family
// reaches the backward checks with the family's structure (cancelling pairs, a swamping lead, an
// ill-conditioned dot product) laid along the axis that is reduced:
//   dX: the case's (M, N, K) read as dX's (M, K, N): N, the reduced axis, is the forward K;
//   dW: the case's (M, N, K) read as (N, K, T): the tokens are the forward K.
#include <cstdint>
#include <string>
#include <vector>

#include "core/backward_problem.h"
#include "properties/forward_case.h"

namespace ordo::properties {

BackwardDataProblem data_problem(const ForwardCase& c);

// Distinct keys for T rows in random row order (or ascending): the first column spread over large
// values, the others negative as often as not (only a negative first column means padding).
LogicalKeys random_keys(std::int64_t T, std::int64_t width, std::uint64_t seed, bool ascending = false);

// key_width 0: no keys (call order); 2 or 3: random_keys.
BackwardWeightProblem weight_problem(const ForwardCase& c, std::int64_t key_width, bool ascending_keys = false);

// `count` padding rows inserted at random places: a negative first key column, X from the nan_inf
// family (a dropped row must never be read), G +0 or -0. The problem must have keys.
BackwardWeightProblem with_padding(const BackwardWeightProblem& p, std::int64_t count, std::uint64_t seed);

// A uniformly random permutation of 0..n-1.
std::vector<std::int64_t> random_permutation(std::int64_t n, Rng& rng);

// "dW T=65 N=2 K=3, keys [T,2], 4 padding rows": the problem as a failure reads it.
std::string describe(const BackwardWeightProblem& p);

// "" when a and b are equal bit for bit, else the first difference (both values in hex).
std::string first_difference(const std::vector<float>& a, const std::vector<float>& b, const std::string& what);
std::string first_difference(const BackwardWeightResult& a, const BackwardWeightResult& b);

std::vector<float> transpose(const std::vector<float>& a, std::int64_t rows, std::int64_t cols);

}  // namespace ordo::properties
