#pragma once
// The message a parser or reader refuses its input with, for the tests that check each refusal names
// what is wrong.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// A text a parser must refuse, and the start of the message it must refuse it with.
struct RefusedText {
  std::string text, prefix;
};

// parse(text) must throw an Error whose message starts with `prefix`, for each of `refused`.
template <class Error, class Parse>
void expect_each_refused(Parse&& parse, const std::vector<RefusedText>& refused) {
  for (const RefusedText& r : refused) {
    const std::string message = error_message<Error>([&] { (void)parse(r.text); }, "accepted; expected: " + r.prefix);
    if (!message.empty()) {
      EXPECT_EQ(message.rfind(r.prefix, 0), 0u) << message << "\nexpected: " << r.prefix;
    }
  }
}

// The text of a JSON object with one more member, `member` ("\"name\":value"), after its last.
inline std::string with_member(const std::string& object_text, const std::string& member) {
  return object_text.substr(0, object_text.size() - 1) + "," + member + "}";
}

}  // namespace ordo::testing
