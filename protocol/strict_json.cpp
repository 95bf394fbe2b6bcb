#include "protocol/strict_json.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <system_error>

#include "core/bounded_file.h"
#include "core/bounded_json.h"
#include "core/checked_size.h"
#include "core/float_bits.h"

namespace ordo::protocol {
namespace {

using nlohmann::json;

// Text from a file, made safe for a one-line message: printable ASCII kept, anything else as \xNN, cut
// at `max` characters (0: no cut).
std::string printable(std::string_view s, std::size_t max) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (max != 0 && i == max) return out + "...";
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) out += static_cast<char>(c);
    else out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
  }
  return out;
}

std::string range_text(std::int64_t lo, std::int64_t hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

// One open object or array while parsing, for duplicate keys and for naming where one was found.
struct Frame {
  bool is_object = false;
  std::string key;          // objects: the key being read
  std::size_t index = 0;    // arrays: elements completed so far, i.e. the index of the current one
  std::set<std::string> keys;
};

// The location of the current key: under "cases"[i] it belongs to case i, as every other message does.
std::pair<std::optional<std::size_t>, std::string> frame_path(const std::vector<Frame>& frames) {
  std::size_t first = 0;
  std::optional<std::size_t> case_index;
  if (frames.size() >= 3 && frames[0].is_object && frames[0].key == "cases" && !frames[1].is_object) {
    case_index = frames[1].index;
    first = 2;
  }
  std::string path;
  for (std::size_t i = first; i < frames.size(); ++i) {
    if (frames[i].is_object) path += (path.empty() ? "" : ".") + printable(frames[i].key, 40);
    else path += "[" + std::to_string(frames[i].index) + "]";
  }
  return {case_index, path};
}

}  // namespace

std::string Location::message(const std::string& field, const std::string& what) const {
  std::string m = file + ": ";
  if (case_index) m += "case " + std::to_string(*case_index) + ": ";
  if (!field.empty()) m += field + ": ";
  return m + what;
}

void Location::fail(const std::string& field, const std::string& what) const {
  throw CorpusError(message(field, what));
}

std::string read_corpus_file(const std::string& path) {
  const Location where{path, std::nullopt};
  try {
    return read_bounded_file(path, static_cast<std::size_t>(kMaxCorpusFileBytes), "corpus files");
  } catch (const FileReadError& e) {
    const std::string what = e.what();
    where.fail("", what.rfind(path + ": ", 0) == 0 ? what.substr(path.size() + 2) : what);
  }
}

json parse_strict_json(std::string_view text, const std::string& file) {
  const Location where{file, std::nullopt};
  if (text.size() > kMaxCorpusFileBytes)
    where.fail("", "the text is " + std::to_string(text.size()) + " bytes; corpus files are at most 256 MiB");
  std::vector<Frame> open;
  // A value (scalar or closed container) completes one element of the array around it.
  const auto element_done = [&] {
    if (!open.empty() && !open.back().is_object) ++open.back().index;
  };
  json::parser_callback_t cb = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (open.size() >= kMaxJsonDepth)
          where.fail("", "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels: not a corpus file");
        open.push_back(Frame{event == json::parse_event_t::object_start, "", 0, {}});
        break;
      case json::parse_event_t::key:
        if (!open.empty()) {
          open.back().key = parsed.get<std::string>();
          if (!open.back().keys.insert(open.back().key).second) {
            const auto [case_index, path] = frame_path(open);
            Location{file, case_index}.fail(path, "field given twice");
          }
        }
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!open.empty()) open.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  };
  return parse_json_events(
      text, cb, [&where](const std::string& what) { where.fail("", "not valid JSON: " + printable(what, 200)); });
}

std::optional<std::uint32_t> parse_hex32(std::string_view s) {
  if (s.size() != 8) return std::nullopt;
  std::uint32_t v = 0;
  for (const char ch : s) {
    std::uint32_t d;
    if (ch >= '0' && ch <= '9') d = static_cast<std::uint32_t>(ch - '0');
    else if (ch >= 'a' && ch <= 'f') d = static_cast<std::uint32_t>(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F') d = static_cast<std::uint32_t>(ch - 'A' + 10);
    else return std::nullopt;
    v = v << 4 | d;
  }
  return v;
}

std::string in_quotes(std::string_view s) { return "\"" + printable(s, 40) + "\""; }

std::string describe_json(const json& v) {
  if (v.is_string()) return "the string " + in_quotes(v.get_ref<const std::string&>());
  if (v.is_array()) return "an array of " + std::to_string(v.size());
  if (v.is_object()) return "an object";
  return printable(v.dump(), 40);  // a number, a bool or null: dump() does not recurse for these
}

float hex_value(const json& v, const Location& where, const std::string& field) {
  if (!v.is_string())
    where.fail(field, "must be a string of 8 hex digits (a binary32 bit pattern), got " + describe_json(v));
  const std::string& s = v.get_ref<const std::string&>();
  const std::optional<std::uint32_t> bits = parse_hex32(s);
  if (!bits)
    where.fail(field, "must be exactly 8 hex digits (a binary32 bit pattern, no 0x, sign or spaces), got " + in_quotes(s));
  return float_of(*bits);
}

std::int64_t integer_value(const json& v, const Location& where, const std::string& field, std::int64_t lo,
                           std::int64_t hi) {
  // Only JSON integers: 3.0, "3" and true are refused, never converted. nlohmann holds non-negative
  // integers as unsigned (up to 2^64 - 1), negative ones as signed.
  const auto refuse = [&] { where.fail(field, "must be an integer in " + range_text(lo, hi) + ", got " + describe_json(v)); };
  if (!v.is_number_integer()) refuse();
  std::int64_t x = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) refuse();
    x = static_cast<std::int64_t>(u);
  } else {
    x = v.get<std::int64_t>();
  }
  if (x < lo || x > hi) refuse();
  return x;
}

StrictObject::StrictObject(const json& j, Location where, std::string prefix)
    : j_(j), where_(std::move(where)), prefix_(std::move(prefix)) {
  if (!j_.is_object()) where_.fail(prefix_, "must be a JSON object, got " + describe_json(j_));
}

std::string StrictObject::name(const std::string& field) const {
  if (prefix_.empty()) return field;
  return field.empty() ? prefix_ : prefix_ + "." + field;
}

bool StrictObject::has(const std::string& field) const { return j_.contains(field); }

const json& StrictObject::required(const std::string& field) {
  read_.insert(field);
  const auto it = j_.find(field);
  if (it == j_.end()) fail(field, "required field missing");
  return *it;
}

std::string StrictObject::string(const std::string& field) {
  const json& v = required(field);
  if (!v.is_string()) fail(field, "must be a string, got " + describe_json(v));
  return v.get<std::string>();
}

bool StrictObject::boolean(const std::string& field) {
  const json& v = required(field);
  if (!v.is_boolean()) fail(field, "must be true or false, got " + describe_json(v));
  return v.get<bool>();
}

std::int64_t StrictObject::integer(const std::string& field, std::int64_t lo, std::int64_t hi) {
  return integer_value(required(field), where_, name(field), lo, hi);
}

const json& StrictObject::array(const std::string& field, std::optional<std::int64_t> length) {
  const json& v = required(field);
  if (!v.is_array()) fail(field, "must be an array, got " + describe_json(v));
  if (length && v.size() != static_cast<std::uint64_t>(*length))
    fail(field, "must hold " + std::to_string(*length) + " elements, found " + std::to_string(v.size()));
  return v;
}

StrictObject StrictObject::object(const std::string& field) {
  return StrictObject(required(field), where_, name(field));
}

void StrictObject::schema(std::string_view expected) {
  const std::string s = string("schema");
  if (s != expected) fail("schema", "must be \"" + std::string(expected) + "\", got " + in_quotes(s));
}

std::int64_t StrictObject::count(const std::string& field, const char* formula, std::int64_t rows,
                                 std::int64_t cols) const {
  const std::optional<std::int64_t> n = checked_product(rows, cols);
  if (!n)
    fail(field, std::string(formula) + " = " + std::to_string(rows) + " * " + std::to_string(cols) +
                    " is more than 2^40 elements");
  return *n;
}

std::vector<float> StrictObject::hex_values(const std::string& field, std::int64_t count, const char* formula) {
  const json& v = required(field);
  if (!v.is_array()) fail(field, "must be an array of hex values, got " + describe_json(v));
  // The length first: nothing is allocated for a count the file does not back with values.
  if (v.size() != static_cast<std::uint64_t>(count))
    fail(field, "must hold " + std::to_string(count) + " values" + (formula ? std::string(" (") + formula + ")" : "") +
                    ", found " + std::to_string(v.size()));
  std::vector<float> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(hex_value(v[i], where_, name(field) + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<float> StrictObject::hex_matrix(const std::string& field, std::int64_t rows, std::int64_t cols) {
  const json& v = required(field);
  if (!v.is_array()) fail(field, "must be an array of rows, got " + describe_json(v));
  if (v.size() != static_cast<std::uint64_t>(rows))
    fail(field, "must hold " + std::to_string(rows) + " rows, found " + std::to_string(v.size()));
  std::vector<float> out;
  for (std::size_t r = 0; r < v.size(); ++r) {
    const std::string row = name(field) + "[" + std::to_string(r) + "]";
    if (!v[r].is_array()) where_.fail(row, "must be an array of hex values, got " + describe_json(v[r]));
    if (v[r].size() != static_cast<std::uint64_t>(cols))
      where_.fail(row, "must hold " + std::to_string(cols) + " values, found " + std::to_string(v[r].size()));
    for (std::size_t c = 0; c < v[r].size(); ++c) out.push_back(hex_value(v[r][c], where_, row + "[" + std::to_string(c) + "]"));
  }
  return out;
}

std::vector<std::int64_t> StrictObject::integers(const std::string& field, std::int64_t count, std::int64_t lo,
                                                 std::int64_t hi, const char* formula) {
  const json& v = required(field);
  if (!v.is_array()) fail(field, "must be an array of integers, got " + describe_json(v));
  if (v.size() != static_cast<std::uint64_t>(count))
    fail(field, "must hold " + std::to_string(count) + " values" + (formula ? std::string(" (") + formula + ")" : "") +
                    ", found " + std::to_string(v.size()));
  std::vector<std::int64_t> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(integer_value(v[i], where_, name(field) + "[" + std::to_string(i) + "]", lo, hi));
  return out;
}

std::vector<std::int64_t> StrictObject::integer_matrix(const std::string& field, std::int64_t rows, std::int64_t cols,
                                                       std::int64_t lo, std::int64_t hi) {
  const json& v = required(field);
  if (!v.is_array()) fail(field, "must be an array of rows, got " + describe_json(v));
  if (v.size() != static_cast<std::uint64_t>(rows))
    fail(field, "must hold " + std::to_string(rows) + " rows, found " + std::to_string(v.size()));
  std::vector<std::int64_t> out;
  for (std::size_t r = 0; r < v.size(); ++r) {
    const std::string row = name(field) + "[" + std::to_string(r) + "]";
    if (!v[r].is_array()) where_.fail(row, "must be an array of integers, got " + describe_json(v[r]));
    if (v[r].size() != static_cast<std::uint64_t>(cols))
      where_.fail(row, "must hold " + std::to_string(cols) + " values, found " + std::to_string(v[r].size()));
    for (std::size_t c = 0; c < v[r].size(); ++c)
      out.push_back(integer_value(v[r][c], where_, row + "[" + std::to_string(c) + "]", lo, hi));
  }
  return out;
}

void StrictObject::no_unknown() const {
  for (const auto& item : j_.items())
    if (!read_.count(item.key())) fail(printable(item.key(), 40), "unknown field");
}

}  // namespace ordo::protocol
