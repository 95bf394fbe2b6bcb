#pragma once
// The Failures section of the Markdown report, within a budget of characters: a pull-request comment holds
// 65,536, and a check of thousands of failing cases writes far more. Each failing row gets its heading, its
// diagnosis and its failing case ids (in up to half the budget); then, while the budget lasts, the first
// failures of each row in full (failing rows before the catches of self-tests, a row's first failure before
// any row's second); the rest is pointed to in report.json and report.html.
#include <cstddef>
#include <string>
#include <vector>

#include "reports/report.h"

namespace ordo::reports {

struct MarkdownFailures {
  std::string text;                    // the section, "" when no row failed or kept a failure
  std::vector<std::string> reproduce;  // the reproduce command of each failure shown, in report order
};

// The section in at most `budget` characters, counting each shown failure's reproduce command once more
// for the provenance list that repeats it.
MarkdownFailures markdown_failures(const Report& r, std::size_t budget);

}  // namespace ordo::reports
