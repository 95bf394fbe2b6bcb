#pragma once
// The frame of the corpus readers' targets (golden, golden-backward, regression, corpus entry): their one
// documented failure is a CorpusError, and its message names the source first.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "protocol/strict_json.h"

namespace ordo::fuzz {

// Calls read(text) on the input (read checks the promises of what it accepted); a CorpusError is the normal
// outcome of a malformed input, anything else surfaces.
template <class Read>
int fuzz_corpus_reader(const std::uint8_t* data, std::size_t size, const Read& read) {
  try {
    read(as_text(data, size));
  } catch (const protocol::CorpusError& e) {
    ORDO_FUZZ_REQUIRE(names_source(e.what()), "a CorpusError names the file first");
  }
  return 0;
}

}  // namespace ordo::fuzz
