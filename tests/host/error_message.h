#pragma once
// The message a parser or reader refuses its input with, for the tests that check each refusal names
// what is wrong.
#include <gtest/gtest.h>

#include <string>

namespace ordo::testing {

// The what() of the Error that run() throws; "" and a test failure saying `accepted` when run() returns
// instead. Any other exception is left to gtest, which fails the test with it.
template <class Error, class Run>
std::string error_message(Run&& run, const std::string& accepted) {
  try {
    run();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << accepted;
  return "";
}

// parse(text) must throw an Error whose message starts with `prefix`.
template <class Error, class Parse>
void expect_refused_with_prefix(Parse&& parse, const std::string& text, const std::string& prefix) {
  const std::string message = error_message<Error>([&] { (void)parse(text); }, "accepted; expected: " + prefix);
  if (message.empty()) return;
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message << "\nexpected: " << prefix;
}

}  // namespace ordo::testing
