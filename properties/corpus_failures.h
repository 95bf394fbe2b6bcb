#pragma once
// The failures a campaign finds, as corpus entries (protocol/corpus_entry.h, kind failure): the minimised
// case (the generator's fields, or its values once simplified), the subject's and the emulator's outputs,
// where and how it was found. The entry's name comes from what identifies the failure, so the same failure
// found twice is written once.
#include <cstdint>
#include <string>
#include <vector>

#include "core/contract.h"
#include "properties/forward_case.h"
#include "protocol/corpus_entry.h"

namespace ordo::properties {

struct FailureRecordInput {
  Contract contract;
  std::string subject, property, detail, reproduce;
  ForwardCase minimised_case;
  std::uint64_t seed = 0;
  std::int64_t case_index = -1;
  // The subject's and the emulator's outputs of the minimised case for forward properties; empty for
  // others. A forward failure without `expected` gets the emulator's output of the case.
  std::vector<float> observed, expected;
  std::string gpu;  // where the failure was found, "" when not known
};

enum class AddOutcome { written, already_present };

// corpus_dir/failures/<property>-<16 hex digits>.json, the digits from the SHA-256 of the contract, the
// subject, the property and the case's inputs (generator fields and materialised values): the same
// failure found twice names the same file.
std::string failure_entry_path(const std::string& corpus_dir, const FailureRecordInput& in);

// Writes the entry of one failure (creating corpus_dir/failures/), or returns already_present, writing
// nothing, when its file exists. Safe to call from several threads: one of two identical calls writes.
// std::invalid_argument when the input contradicts itself (outputs of the wrong size, a backward
// property with outputs); FileWriteError / NpyError when the disk refuses.
AddOutcome add_failure_entry(const std::string& corpus_dir, const FailureRecordInput& in);

// The entry add_failure_entry writes, without writing it.
protocol::CorpusEntry failure_entry(const FailureRecordInput& in);

// A minimised case as the corpus records it, and back (std::invalid_argument for a value family this
// build does not know).
protocol::FailureCase failure_case_of(const ForwardCase& c);
ForwardCase forward_case_of(const protocol::FailureCase& f);

}  // namespace ordo::properties
