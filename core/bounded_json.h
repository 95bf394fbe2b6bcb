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
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ordo {

struct JsonTextError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json parse_json_bounded(std::string_view text, int max_depth);

// nlohmann's parse of `text`, `events` seeing every event (to refuse what the format does not allow: what it
// throws passes through). Invalid JSON, or a number no double holds (1e999), calls syntax_error with
// nlohmann's message without its tag ("[json.exception.parse_error.101] "; it helps nobody), which must
// throw. The strict reader of the corpus files (protocol/strict_json.h) parses through this too.
nlohmann::json parse_json_events(std::string_view text, const nlohmann::json::parser_callback_t& events,
                                 const std::function<void(const std::string&)>& syntax_error);

}  // namespace ordo
