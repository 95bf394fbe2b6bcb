#pragma once
// The contract file format (`ordo.contract/1`, JSON; docs/contract-format.md): how a user states the
// arithmetic of their own kernel, and how `ordo list --contracts --json` prints the built-in ones.
// The parser is strict: unknown or duplicate fields, wrong types, non-integral numbers and values out
// of range are errors that name the file and the field; nothing is guessed.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/contract.h"

namespace ordo {

inline constexpr std::string_view kContractSchema = "ordo.contract/1";

// Every parse error: "FILE: FIELD: what is wrong".
class ContractFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `where` names the source in messages (a file path, "<plugin libfoo.so>", ...).
Contract contract_from_json(const nlohmann::json& j, const std::string& where);
// Parses JSON text strictly (duplicate keys are errors) and then the contract.
Contract contract_from_text(std::string_view text, const std::string& where);
Contract load_contract_file(const std::string& path);
nlohmann::ordered_json contract_to_json(const Contract& c);

// A built-in contract id, or the path of a contract file (anything containing '/' that is not an id,
// or ending in .json). Throws ContractFileError; an unknown id lists the nearest built-in ids.
Contract resolve_contract(const std::string& id_or_path);

// The names in `candidates` closest to `name` (edit distance), best first: for "did you mean" lines.
std::vector<std::string> nearest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t count = 3);

}  // namespace ordo
