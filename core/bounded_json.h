#pragma once
// JSON text to nlohmann::json for the readers of ordo's own files (the `ordo cases` manifest, reports), with
// the two refusals nlohmann leaves to the caller:
//   - nesting deeper than max_depth. The readers copy values and dump() them into messages, and both recurse
//     once per level: 40 KB of [[[...]]] overflowed the stack of both readers under fuzzing
//     (fuzz/deep_nesting_probe.py). The formats need a handful of levels.
//   - a key given twice in one object (nlohmann keeps the last one silently, so an edited file could say two
//     things and be read as one of them).
// Invalid JSON and numbers no double holds (1e999) are refused too. Every refusal is a JsonTextError whose
// message says what is wrong and where ("line 3, column 7", or the key), without the source's name: the
// caller puts its file first.
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ordo {

struct JsonTextError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json parse_json_bounded(std::string_view text, int max_depth);

}  // namespace ordo
