#pragma once
// `ordo check`: judges the outputs a program wrote into an `ordo cases` folder. With a contract, every
// output element against the contract's emulator, bit for bit, and against the exact result and the
// plan's bound; with or without one, every invariance relation of the manifest (a row alone against the
// same row in batches of other sizes and positions, a permuted batch, a column shard against its slice).
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/contract.h"
#include "protocol/case_folder.h"
#include "properties/property_runner.h"

namespace ordo::properties {

struct FolderCheckOptions {
  std::optional<Contract> contract;  // nullopt: judge the invariances only
  std::vector<std::string> only_cases;  // empty: every case
  // Elements per case judged against the exact result (every mismatching one up to this many, then a
  // deterministic sample of the rest): MPFR costs ~100 ns a term, so a big case is sampled.
  std::int64_t bound_elements_per_case = 2000;
  int shown_mismatches = 5;
  // Outputs kept in memory between relations (a group's anchor is compared with every batch); beyond
  // this the cache starts again. Tests set it small to exercise eviction.
  std::size_t output_cache_bytes = std::size_t{1} << 30;
  std::function<void(const std::string& what, std::int64_t done, std::int64_t total)> progress;
  // Set (by SIGINT or SIGTERM) to stop after the case or relation in progress: the rows then have fewer
  // judged than requested, which is never a pass.
  const std::atomic<bool>* stop = nullptr;
};

// One report row per property: check.equals_contract, check.within_error_bound, and per relation kind
// check.batch_size_invariance, check.permutation_invariance, check.column_shard_equals_slice. Throws
// protocol::InputError for any bad input before judging anything.
std::vector<PropertyRun> check_folder(protocol::CaseFolder& folder, const FolderCheckOptions& options);

}  // namespace ordo::properties
