#pragma once
// What an `ordo cases` folder covers, from its manifest and files: the cases of each value family, the K and N
// reached, the largest batch and the anchor rows past each row switch (properties/case_ladders.h), the
// relations of each kind, and the bytes on disk. `ordo cases` prints it after writing a folder, so that a user
// sees whether the folder reaches the sizes their kernel switches at.
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "protocol/cases_manifest.h"

namespace ordo::properties {

struct CasesCoverage {
  std::int64_t cases = 0, output_elements = 0;
  std::map<std::string, std::int64_t> random_cases_by_family, group_cases_by_family;
  std::int64_t k_min = 0, k_max = 0;
  std::int64_t cases_k_at_least_long = 0, cases_k_above_long = 0;  // K >= kLongK, K > kLongK
  std::set<std::int64_t> ks_above_long;
  std::int64_t n_min = 0, n_max = 0;
  std::int64_t groups = 0, largest_batch = 0, largest_anchor_row = -1;
  std::map<std::int64_t, std::int64_t> anchor_relations_at_or_past;  // kRowSwitches entry -> batch_size relations
  std::int64_t widest_shard = 0, widest_sharded_n = 0;
  std::map<std::string, std::int64_t> relations_by_kind;
  std::int64_t input_bytes = 0;   // the files the manifest names as inputs, and the manifest
  std::int64_t output_bytes = 0;  // what the y.npy files will take, headers included
};

// `folder` holds the manifest's files (their sizes are read; a missing one counts nothing).
CasesCoverage cases_coverage(const protocol::CasesManifest& m, const std::string& folder);

// The coverage as indented lines, ending in a newline; `seconds` is the time taken to write the folder.
std::string describe_coverage(const CasesCoverage& c, double seconds);

}  // namespace ordo::properties
