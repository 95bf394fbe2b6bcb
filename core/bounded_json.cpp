#include "core/bounded_json.h"

#include <set>
#include <vector>

namespace ordo {

using nlohmann::json;

json parse_json_bounded(std::string_view text, int max_depth) {
  std::vector<std::set<std::string>> open_keys;  // one set per open object
  int open_containers = 0;
  json::parser_callback_t cb = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (++open_containers > max_depth)
          throw JsonTextError("nested deeper than " + std::to_string(max_depth) + " levels");
        if (event == json::parse_event_t::object_start) open_keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!open_keys.empty()) open_keys.pop_back();
        --open_containers;
        break;
      case json::parse_event_t::array_end:
        --open_containers;
        break;
      case json::parse_event_t::key:
        if (!open_keys.empty() && !open_keys.back().insert(parsed.get<std::string>()).second)
          throw JsonTextError("\"" + parsed.get<std::string>() + "\" is given twice in one object");
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  return parse_json_events(text, cb, [](const std::string& what) { throw JsonTextError("not valid JSON: " + what); });
}

json parse_json_events(std::string_view text, const json::parser_callback_t& events,
                       const std::function<void(const std::string&)>& syntax_error) {
  std::string what;
  try {
    return json::parse(text.begin(), text.end(), events);
  } catch (const json::exception& e) {
    // parse_error, or out_of_range for 1e999. what() is "[json.exception.parse_error.101] parse error at
    // line L, column C: ...".
    what = e.what();
    if (const auto close = what.find("] "); what.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
      what = what.substr(close + 2);
  }
  syntax_error(what);
  throw std::logic_error("parse_json_events: syntax_error returned");
}

}  // namespace ordo
