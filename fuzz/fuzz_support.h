#pragma once
// Shared by the libFuzzer targets (fuzz/README.md). Each target calls one parser on the input, catches
// the parser's documented exception type (a malformed input is the normal case) and lets everything
// else surface: a crash, an ASan or UBSan report, any other exception (std::terminate, which libFuzzer
// reports as a deadly signal and keeps the input), or a broken promise checked with ORDO_FUZZ_REQUIRE.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

// A promise the parser makes about every input it accepts (or every error it reports); a violation is
// a bug, so it aborts like a crash and libFuzzer writes the input out.
#define ORDO_FUZZ_REQUIRE(cond, what)                                               \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "ordo fuzz: broken promise: %s (%s)\n", what, #cond);    \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

namespace ordo::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Every error message names its source first: "<fuzz>: ...".
inline constexpr const char* kWhere = "<fuzz>";
inline bool names_source(const char* what) { return std::string_view(what).starts_with("<fuzz>: "); }

}  // namespace ordo::fuzz
