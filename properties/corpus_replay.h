#pragma once
// Replaying ordo.corpus/1 entries (protocol/corpus_entry.h), for `ordo replay` and the host tests.
//   golden and regression entries: the contract's host emulator reproduces every expected bit;
//   failure entries: the entry parses with every digest right, the emulator still gives the recorded
//   expected output (it has not changed under the entry), the seed still materialises the recorded
//   inputs, and the recorded observed output still differs from the expected one (the entry still
//   documents a failure). Whether the failing subject has been fixed is for `ordo verify` to say.
// Every entry is replayed on its own: a bad one is reported with its located reasons and the next one
// is replayed, so one bad file never hides the state of the others.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/corpus_entry.h"

namespace ordo::properties {

// Worst first: a malformed entry outranks a mismatch.
enum class ReplayOutcome { pass = 0, mismatch = 1, malformed = 2 };
std::string_view replay_outcome_name(ReplayOutcome o);  // "ok", "MISMATCH", "MALFORMED"

struct EntryReplay {
  std::string path;
  ReplayOutcome outcome = ReplayOutcome::pass;
  std::optional<protocol::EntryKind> kind;  // unset when not even the kind could be read
  std::string subject, contract, property, gpu;
  std::size_t cases = 0;
  std::int64_t elements = 0;  // output elements compared
  std::string note;           // failure entries: what the replay could and could not check
  std::vector<std::string> problems;  // each located: "PATH: case 3 (uniform): y[17] (row 2, column 4): ..."
};

// Never throw: a file that cannot be read or is malformed is one problem of a malformed replay.
EntryReplay replay_entry(const protocol::CorpusEntry& entry, const std::string& path);
EntryReplay replay_corpus_file(const std::string& path, const protocol::CorpusReadOptions& options = {});

// The entries under `paths`: a file as given, a folder searched recursively for *.json (the .npy files
// beside them are named by the entries), sorted, each once. std::invalid_argument naming a path that
// does not exist.
std::vector<std::string> corpus_entry_files(const std::vector<std::string>& paths);

// The contracts stated by the *.json files of `dir` (ordo replay --contract-dir). ContractFileError for a
// file that is not a contract, or for two files stating one id.
std::vector<Contract> load_contract_dir(const std::string& dir);

// Counts of a replay, per kind and overall, and the exit code `ordo replay` gives for them: 0 every entry
// replays, 1 a mismatch (and nothing malformed), 2 a malformed entry.
struct ReplayTally {
  struct PerKind {
    std::size_t entries = 0, passed = 0, mismatched = 0, malformed = 0, cases = 0;
    std::int64_t elements = 0;
  };
  PerKind golden, regression, failure, unknown;  // unknown: entries whose kind could not be read
  std::size_t entries = 0, mismatched = 0, malformed = 0;

  void add(const EntryReplay& r);
  PerKind& of(const std::optional<protocol::EntryKind>& kind);
  int exit_code() const { return malformed > 0 ? 2 : mismatched > 0 ? 1 : 0; }
};

// "ok    PATH: golden, SUBJECT (CONTRACT), 30 cases, 8103 elements" or the outcome and the first problem.
std::string replay_line(const EntryReplay& r);
// The summary lines: entries per kind and outcome, the failure entries, PASS or FAIL.
std::string replay_summary(const ReplayTally& t);

}  // namespace ordo::properties
