#pragma once
// The manifest of an `ordo cases` folder (ordo.cases/1; docs/file-protocol.md): the cases (shapes, value
// family, the files of their inputs and of the output a user's program writes) and the invariance
// relations between them. Read strictly: every defect is an error naming the file and the field.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/contract.h"

namespace ordo::protocol {

// /2: every input file's digest is recorded (and checked by `ordo check`); the contract_definition is
// checked against the contract id. /1 folders are refused: regenerate them (the same command writes the
// same inputs).
inline constexpr const char* kCasesSchema = "ordo.cases/2";

class ManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CaseEntry {
  std::string id;  // "c0007"
  std::int64_t M = 0, N = 0, K = 0;
  bool bias = false;
  std::string y_dtype = "f32";  // what the generator asks for: "f32" or "bf16"
  std::string family;           // value family of the inputs
  std::string purpose;          // "random", "anchor", "batch", "permuted", "whole", "shard"
  std::int64_t group = -1;      // invariance group, -1 for none
  // Paths relative to the folder. Cases of one group share w (and b).
  std::string x, w, b, y;
  // SHA-256 of each input file's data (the bytes after the .npy header: the values exactly as stored),
  // so that an input replaced after generation is found before anything is judged.
  std::string x_sha256, w_sha256, b_sha256;
};

// y[subject.case][subject.rows[i], subject.col_begin + j] must equal
// y[reference.case][reference.rows[i], reference.col_begin + j], bit for bit, for every i and every
// j < cols: a row alone and the same row in a batch, a batch and its row permutation, a shard and its slice.
struct RowBlock {
  std::string case_id;
  std::vector<std::int64_t> rows;
  std::int64_t col_begin = 0;
};

struct Relation {
  std::string kind;  // "batch_size", "permutation", "column_shard"
  std::string description;
  std::int64_t cols = 0;
  RowBlock reference, subject;
};

struct CasesManifest {
  std::string contract;                        // the contract the cases were generated for ("none": none)
  std::optional<nlohmann::json> contract_definition;  // its ordo.contract/1 document
  // The definition as read: checked to parse, to carry the id `contract` names, and (for a built-in id)
  // to state that contract's plan. What `ordo check` judges by when the id is not a built-in one.
  std::optional<Contract> defined_contract;
  std::string operands = "f32";                // "f32" or "bf16" (bf16: raw bits '<u2')
  std::uint64_t seed = 0;
  int level = 1;
  std::string generated_by;  // "ordo 0.1.0 (commit)"
  std::vector<CaseEntry> cases;
  std::vector<Relation> relations;

  const CaseEntry* find(const std::string& id) const;
};

nlohmann::json manifest_to_json(const CasesManifest& m);
// `where` names the file in errors. Checks the schema, every field's type and range, unique case ids, that
// relations name existing cases with rows and columns inside their shapes, and that paths stay inside the
// folder (no absolute paths, no "..").
CasesManifest manifest_from_json(const nlohmann::json& j, const std::string& where);
// The manifest's text, from `where` (named first in every error): JSON nested at most kMaxManifestDepth
// levels (the format needs 4; an embedded contract 3 more), no key twice in one object, then
// manifest_from_json.
inline constexpr int kMaxManifestDepth = 16;
// A manifest of 2^20 cases is about 300 MB; ordo writes a few thousand at most. Larger files are refused
// unread.
inline constexpr std::size_t kMaxManifestBytes = std::size_t{256} << 20;
CasesManifest parse_manifest(std::string_view text, const std::string& where);
CasesManifest read_manifest(const std::string& folder);           // folder/manifest.json
void write_manifest(const std::string& folder, const CasesManifest& m);  // atomically

}  // namespace ordo::protocol
