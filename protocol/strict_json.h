#pragma once
// Strict reading of ordo's JSON corpus files (ordo.golden/1, ordo.golden-backward/1, ordo.regression/1;
// corpus/README.md). A verifier's inputs must fail closed: a file is either exactly what its schema
// says or it is refused with a message that names the file, the case and the field. Nothing is
// converted (3.0, "3" and true are not integers), nothing is guessed (a hex value is exactly 8 digits),
// nothing is ignored (unknown and duplicate fields are errors), and no size is trusted before it has
// been checked against the data actually present.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ordo::protocol {

// Every failure of the corpus readers. what() is "FILE: case N: FIELD: what is wrong", without the
// case part for header fields and without the field part for the file as a whole.
class CorpusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Largest corpus file read: far above any real file (today's are 200 KB), and a bound on what a corrupt
// one can make the JSON parser allocate.
inline constexpr std::uint64_t kMaxCorpusFileBytes = std::uint64_t{256} << 20;
// Deepest nesting accepted. The formats need 5 levels; the bound keeps anything recursive that later
// walks the tree (copies, dumps) away from the stack limit.
inline constexpr std::size_t kMaxJsonDepth = 32;
// Largest M, N, K or T a corpus case may state; element counts are further bounded by kMaxElements
// (core/checked_size.h), and every array must hold them anyway.
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;

// Where a value sits: the file, and the case when it is inside one.
struct Location {
  std::string file;
  std::optional<std::size_t> case_index;

  std::string message(const std::string& field, const std::string& what) const;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
};

// The whole file as text. CorpusError when it cannot be opened, is not a regular file, or is larger
// than kMaxCorpusFileBytes (refused before it is read).
std::string read_corpus_file(const std::string& path);

// JSON text parsed strictly: invalid JSON, a key given twice in one object (nlohmann would keep the
// last silently), nesting deeper than kMaxJsonDepth, or text over kMaxCorpusFileBytes are CorpusErrors
// naming `file` (and the case and field of a duplicate key under "cases").
nlohmann::json parse_strict_json(std::string_view text, const std::string& file);

// Exactly 8 hex digits (either case) of a binary32 bit pattern: no 0x, sign, space or anything else.
// Parsed by hand: stoul would accept " 3f8", "0x3f800000", "+1" and stop silently at junk.
std::optional<std::uint32_t> parse_hex32(std::string_view s);

// For messages: a string quoted, cut at 40 characters, bytes outside printable ASCII as \xNN; a JSON
// value as its text when it is a scalar, or "an array of N" / "an object" (never dumped: dump() recurses).
std::string in_quotes(std::string_view s);
std::string describe_json(const nlohmann::json& v);

// One JSON object read field by field. It remembers what was read so that no_unknown() can refuse the
// rest. Field names in messages carry the prefix ("keys.width"); elements carry their index ("x[3]").
class StrictObject {
 public:
  // Fails unless j is an object. `j` must outlive this view.
  StrictObject(const nlohmann::json& j, Location where, std::string prefix = "");

  bool has(const std::string& field) const;
  const nlohmann::json& required(const std::string& field);  // marks it read; fails when missing
  std::string string(const std::string& field);
  bool boolean(const std::string& field);
  // A JSON integer in [lo, hi]: a float (even 3.0), a string, a bool or a value outside is refused.
  std::int64_t integer(const std::string& field, std::int64_t lo, std::int64_t hi);
  // A JSON array; with `length`, of exactly that many elements.
  const nlohmann::json& array(const std::string& field, std::optional<std::int64_t> length = std::nullopt);
  StrictObject object(const std::string& field);
  // The schema field, exactly `expected`.
  void schema(std::string_view expected);
  // rows * cols through checked_product, named for messages ("M*K"): the count an array must hold.
  std::int64_t count(const std::string& field, const char* formula, std::int64_t rows, std::int64_t cols) const;
  // An array of exactly `count` binary32 values in hex (parse_hex32).
  std::vector<float> hex_values(const std::string& field, std::int64_t count, const char* formula = nullptr);
  // An array of `rows` arrays of `cols` hex values each, row-major.
  std::vector<float> hex_matrix(const std::string& field, std::int64_t rows, std::int64_t cols);
  // An array of exactly `count` JSON integers, each in [lo, hi].
  std::vector<std::int64_t> integers(const std::string& field, std::int64_t count, std::int64_t lo,
                                     std::int64_t hi, const char* formula = nullptr);
  // An array of `rows` arrays of `cols` integers each, in [lo, hi], row-major.
  std::vector<std::int64_t> integer_matrix(const std::string& field, std::int64_t rows, std::int64_t cols,
                                           std::int64_t lo, std::int64_t hi);
  // Fails on the first field that was never read.
  void no_unknown() const;

  std::string name(const std::string& field) const;
  const Location& where() const { return where_; }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const { where_.fail(name(field), what); }

 private:
  const nlohmann::json& j_;
  Location where_;
  std::string prefix_;
  std::set<std::string> read_;
};

// One element of an array, checked and converted as the StrictObject members do; `field` names it in
// messages ("x[3]").
float hex_value(const nlohmann::json& v, const Location& where, const std::string& field);
std::int64_t integer_value(const nlohmann::json& v, const Location& where, const std::string& field,
                           std::int64_t lo, std::int64_t hi);

}  // namespace ordo::protocol
