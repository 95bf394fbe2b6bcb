#pragma once
// `ordo identify`: which contract, if any, reproduces the outputs a black-box kernel wrote into an
// `ordo cases` folder bit for bit. The candidates are every built-in forward contract of the folder's
// operand type and a family around them: tensor-core parameter sets of sm_80 and sm_90, fixed segments of
// K (powers of two, and K/2 .. K/16 where they divide K: split-K) combined in ascending order or as a
// pairwise tree, K padded with zero products to a block multiple as
// masked loads do, the bias after the chain or as the initial accumulator. Each is run through the same
// plan interpreter as every contract.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/contract.h"
#include "protocol/case_folder.h"

namespace ordo::properties {

struct CandidateScore {
  Contract contract;
  std::int64_t elements = 0;    // output elements compared
  std::int64_t mismatches = 0;  // of those, how many differ
  std::int64_t cases = 0, cases_matching = 0;
  std::string first_difference;  // case, element, both values
  // Compared on every element of every case. A sample only ranks candidates; a match is always
  // confirmed, and a candidate that failed its confirmation carries the counts of the whole comparison.
  bool confirmed = false;
};

struct IdentifyResult {
  // Contracts that reproduce every output element of every case, bit for bit: each compared in full.
  std::vector<CandidateScore> matches;
  // The best of the rest, fewest mismatches first; counts over the sample unless `confirmed` (a candidate
  // that matched the sample and failed the whole comparison).
  std::vector<CandidateScore> closest;
  std::int64_t candidates = 0;
  std::int64_t sample_rows = 0, sample_cols = 0;  // the ranking sample: rows x columns of each case at most
  std::int64_t cases = 0, elements = 0;           // what a confirmation compares: every output of every case
};

struct IdentifyOptions {
  // Outputs compared per case: up to this many rows (and all columns up to max_cols) of each case.
  std::int64_t max_rows = 64, max_cols = 512;
  int closest = 5;
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};

// The candidate contracts for forward cases with these operands, K values and outputs.
std::vector<Contract> identify_candidates(DType operands, bool bf16_output, bool any_bias, const std::vector<std::int64_t>& Ks);

// Ranks every candidate on a sample of each case, then compares each candidate that reproduces the whole
// sample on every element of every case: only those that reproduce everything are matches. Throws
// protocol::InputError for bad input (as `ordo check` does) before comparing anything.
IdentifyResult identify(protocol::CaseFolder& folder, const IdentifyOptions& options);

}  // namespace ordo::properties
