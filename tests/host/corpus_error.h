#pragma once
// The message a corpus reader refuses a file with, for the tests that check every refusal is located.
#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "protocol/strict_json.h"

namespace ordo::testing {

// The message of the CorpusError that `read` throws for `path`; a failure if it throws another type
// (the readers promise CorpusError only) or accepts the file.
template <class Read>
std::string corpus_error_of(Read read, const std::string& path) {
  try {
    read(path);
  } catch (const protocol::CorpusError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": threw an exception that is not a CorpusError: " << e.what();
    return "";
  }
  ADD_FAILURE() << path << " was accepted";
  return "";
}

}  // namespace ordo::testing
