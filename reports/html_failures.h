#pragma once
// The Failures section of the HTML report: per failing row its verdict, diagnosis and failing case ids,
// then every failure it kept, each detail laid out one element per list item with the hex values as <code>
// (never one unbroken paragraph); a row's first failures open, the rest folded in a <details>.
#include <string>

#include "reports/report.h"

namespace ordo::reports {

std::string html_failures(const Report& r);

}  // namespace ordo::reports
