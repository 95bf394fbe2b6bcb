#include "tools/cli_values.h"

#include <limits>

namespace ordo::tools {
namespace {

// "" when text is a decimal integer in [lo, hi] (one leading '-' only when lo < 0), else why not.
std::string integer_problem(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t* value) {
  const std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (text.empty()) return "expected " + range + ", got nothing";
  std::size_t i = 0;
  const bool negative = text[0] == '-';
  if (negative) {
    if (lo >= 0) return "expected " + range + ", got \"" + text + "\" (no negative values)";
    i = 1;
  }
  if (i == text.size()) return "expected " + range + ", got \"" + text + "\"";
  unsigned long long magnitude = 0;
  for (; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch < '0' || ch > '9') return "expected " + range + ", got \"" + text + "\"";
    const auto digit = static_cast<unsigned long long>(ch - '0');
    if (magnitude > (std::numeric_limits<unsigned long long>::max() - digit) / 10)
      return "\"" + text + "\" is out of range: expected " + range;
    magnitude = magnitude * 10 + digit;
  }
  const auto max = static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max());
  if (magnitude > max + (negative ? 1 : 0)) return "\"" + text + "\" is out of range: expected " + range;
  const std::int64_t v = negative ? (magnitude == max + 1 ? std::numeric_limits<std::int64_t>::min()
                                                          : -static_cast<std::int64_t>(magnitude))
                                  : static_cast<std::int64_t>(magnitude);
  if (v < lo || v > hi) return "\"" + text + "\" is out of range: expected " + range;
  if (value) *value = v;
  return "";
}

std::string seed_problem(const std::string& text, std::uint64_t* value) {
  const std::string what = "a seed: a decimal integer in [0, 18446744073709551615]";
  if (text.empty() || text.size() > 20) return "expected " + what + ", got \"" + text + "\"";
  unsigned long long v = 0;
  for (const char ch : text) {
    if (ch < '0' || ch > '9') return "expected " + what + ", got \"" + text + "\"";
    const auto digit = static_cast<unsigned long long>(ch - '0');
    if (v > (std::numeric_limits<unsigned long long>::max() - digit) / 10) return "\"" + text + "\" is out of range: expected " + what;
    v = v * 10 + digit;
  }
  if (value) *value = v;
  return "";
}

}  // namespace

std::int64_t parse_integer(const std::string& text, const std::string& option, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (std::string p = integer_problem(text, lo, hi, &v); !p.empty()) throw CLI::ValidationError(option, p);
  return v;
}

std::uint64_t parse_seed(const std::string& text, const std::string& option) {
  std::uint64_t v = 0;
  if (std::string p = seed_problem(text, &v); !p.empty()) throw CLI::ValidationError(option, p);
  return v;
}

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator([lo, hi](std::string& text) { return integer_problem(text, lo, hi, nullptr); },
                        "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator seed_value() {
  return CLI::Validator([](std::string& text) { return seed_problem(text, nullptr); }, "SEED (0 .. 2^64-1)");
}

}  // namespace ordo::tools
