#pragma once
// The corpus format, `ordo.corpus/1` (corpus/README.md): one JSON file per entry, for every kind of case
// ordo keeps: golden vectors (bits a GPU produced), hand-written regressions, and minimised failures that
// campaigns find. An entry states its kind and why it is there, its contract (a built-in id or an embedded
// ordo.contract/1 document), the subject and GPU/commit that produced it where known, the inputs of each
// case, the expected output with its SHA-256, and the expected verdict. Small tensors are text (8 hex
// digits per binary32 value); large ones sit in an .npy file beside the entry, which names it together
// with the SHA-256 of its values, so that a swapped or corrupted file is detected.
//
// Reading is strict (protocol/strict_json.h): every failure is a CorpusError "FILE: case N: FIELD: what
// is wrong", nothing else is thrown for any input, and every problem read passes the checks of the
// contract's emulator. A changed value is not a read error (the replay finds it, naming the element); a
// wrong digest, a missing or mismatching .npy, an unknown field or a bad schema are.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/problem.h"

namespace ordo::protocol {

inline constexpr std::string_view kCorpusSchema = "ordo.corpus/1";
// Tensors of more than this many values are written to an .npy file beside the entry.
inline constexpr std::size_t kMaxInlineValues = 4096;

enum class EntryKind { golden, regression, failure };
std::string_view entry_kind_name(EntryKind k);  // "golden", "regression", "failure"

// One case: exactly one problem, of the contract's operation, and the output the contract's emulator
// must reproduce bit for bit.
struct CorpusCase {
  std::string label;  // the value family of a generated case, or what a hand-written case shows
  std::optional<ForwardProblem> forward;        // forward contracts: X, W, bias, y dtype
  std::optional<BackwardDataProblem> data;      // dX contracts: G, W
  std::optional<BackwardWeightProblem> weight;  // dW contracts: X, G, keys (padding rows included), row order
  std::vector<float> expected;                  // Y [M, N], dX [M, K] or dW [N, K]
  std::optional<std::vector<float>> expected_db;  // db [N]: dW cases with with_bias_grad
  // As read: the digest the file records (expected_sha256() of the values when nobody edited them). The
  // writer ignores it and computes the digest of the values it writes.
  std::string expected_sha256;
};

// What a failure entry records beyond its case (kind failure only).
// The generator's description of a case, as data: its shape, value family (by name), seed and flags, and
// the values themselves when the runner simplified them. The generator (properties/forward_case.h) turns it
// back into the case (properties/corpus_failures.h); the format only stores it.
struct FailureCase {
  std::int64_t M = 1, N = 1, K = 1;
  std::string family;  // a value family's name ("ties", "order_2^-24", ...)
  bool has_bias = false;
  std::uint64_t seed = 0;
  bool bf16_operands = false;
  bool bf16_output = false;
  std::optional<ForwardProblem> explicit_values;
};

struct FailureDetails {
  // The minimised case the failure was found on. Backward problems derive from it deterministically
  // (properties/backward_case.h); a forward failure also holds it materialised as its one case, with the
  // emulator's output as the expected output.
  FailureCase minimised_case;
  std::uint64_t campaign_seed = 0;
  std::int64_t case_index = -1;  // -1: not known
  // The subject's output of the case (forward properties), and its SHA-256. The writer computes the
  // digest from the values when there are any; an entry may also record the digest alone.
  std::optional<std::vector<float>> observed;
  std::string observed_sha256;
  std::string detail;     // what differed, in words
  std::string reproduce;  // a command line that re-runs the failing case
};

struct CorpusEntry {
  EntryKind kind = EntryKind::golden;
  std::string why;  // why the entry is in the corpus, for people
  Contract contract;
  std::string subject;  // the variant or plugin that produced the bits ("" for hand-written cases)
  std::string gpu;      // "" when not known
  std::string commit;   // the ordo commit that recorded it, "" when not known
  std::string property;  // failures: the property that failed
  std::vector<CorpusCase> cases;  // golden and regression: at least one; failure: at most one
  std::optional<FailureDetails> failure;  // exactly for kind failure
};

// How contracts named by id are found: the built-in ones, then these (ordo replay --contract-dir).
struct CorpusReadOptions {
  std::vector<Contract> contracts;
};

CorpusEntry read_corpus_entry(const std::string& path);
CorpusEntry read_corpus_entry(const std::string& path, const CorpusReadOptions& options);
// The same from text; `where` names the source in messages, .npy files are looked up in `npy_dir`.
CorpusEntry parse_corpus_entry_text(std::string_view text, const std::string& where, const std::string& npy_dir,
                                    const CorpusReadOptions& options = {});

struct CorpusWriteOptions {
  std::size_t max_inline_values = kMaxInlineValues;  // larger tensors go to "<entry stem>.<field>.npy"
};

// Writes the .npy files first and the JSON last, each atomically (core/atomic_file.h, protocol::write_npy):
// a reader never sees an entry that names a file not yet written. std::invalid_argument for an entry that
// breaks the format's rules (a case of the wrong operation, a bf16 tensor with low bits set, ...),
// FileWriteError / protocol::NpyError when the disk refuses.
void write_corpus_entry(const std::string& path, const CorpusEntry& entry);
void write_corpus_entry(const std::string& path, const CorpusEntry& entry, const CorpusWriteOptions& options);

// SHA-256 of values as the format defines it: the little-endian bytes of each binary32 (a bfloat16 as the
// binary32 of equal value, bits << 16), or of each int64. expected_sha256 covers Y, dX, or dW then db.
std::string values_sha256(const std::vector<float>& v);
std::string values_sha256(const std::vector<std::int64_t>& v);
std::string expected_sha256(const std::vector<float>& expected, const std::optional<std::vector<float>>& db);

// The `why` of a golden entry recorded on a GPU (ordo record-golden, and the entries converted from it).
std::string golden_why(const std::string& variant, const std::string& contract_id);

}  // namespace ordo::protocol
