#pragma once
// Numbers on ordo's command line are exact decimal integers in a stated range: no sign where none is
// allowed, no fraction, no junk, no silent wrap or saturation. CLI11 alone accepts "-5" for a count and
// wraps "-1" into a 64-bit seed; options are therefore read as text and converted here.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace ordo::tools {

// The value of `text` if it is a decimal integer in [lo, hi], else CLI::ValidationError naming the option.
std::int64_t parse_integer(const std::string& text, const std::string& option, std::int64_t lo, std::int64_t hi);
std::uint64_t parse_seed(const std::string& text, const std::string& option);

// Validators for add_option on a std::string, with the same rules (for --help and early errors).
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);
CLI::Validator seed_value();

// The most cases one property may be asked to run (a run of more would take months).
inline constexpr std::int64_t kMaxCases = 10'000'000;

}  // namespace ordo::tools
